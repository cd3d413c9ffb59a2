import { useState } from 'react';
import { Button, Code, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../../economy/clipboard';
import { curlExample } from '../../../economy/keys';
import { useLocaleChoice } from '../../../i18n/hooks';
import { listVoices } from '../../../speech/api';
import { languageName, preferredVoiceLanguage } from '../../../speech/languages';

/**
 * The code sample, with the secret (just created) or a placeholder (the keys page, any time): a library voice of the
 * interface's language speaks a sentence in it, and Accept-Language asks for refusals in that language too.
 */
export function KeySample({ secret }: { secret?: string }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const language = preferredVoiceLanguage(ui);
  const voice = useQuery({
    queryKey: ['key-sample-voice', language],
    queryFn: ({ signal }) => listVoices({ source: 'official', languages: language, page: 1, page_size: 1 }, signal),
    staleTime: Infinity,
  });
  const [copy, setCopy] = useState<'idle' | 'copied' | 'denied'>('idle');
  const placeholder = t('apiKeys.samplePlaceholder');
  const voiceId = voice.data?.items[0]?.id;
  const command = voiceId
    ? curlExample(window.location.origin, secret ?? placeholder, { voice: voiceId, text: t('apiKeys.sampleText'), lang: ui })
    : null;
  return (
    <Stack gap="xs" data-testid="key-sample" data-voice={voiceId}>
      {!secret && <Text size="sm">{t('apiKeys.sampleBody', { placeholder, language: languageName(language, ui) })}</Text>}
      {command ? (
        <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }} data-testid="key-sample-code">
          {command}
        </Code>
      ) : (
        <Skeleton h={120} radius="sm" />
      )}
      {!secret && command && (
        <Group>
          <Button
            size="xs"
            variant="default"
            leftSection={copy === 'copied' ? <IconCheck size={14} /> : <IconCopy size={14} />}
            onClick={() => void copyText(command).then(setCopy)}
            data-testid="key-sample-copy"
          >
            {copy === 'copied' ? t('common.copied') : t('apiKeys.copySample')}
          </Button>
        </Group>
      )}
    </Stack>
  );
}

/** The keys page's section that shows how to call the API, whether or not a key was just created. */
export function KeySampleSection() {
  const { t } = useTranslation();
  return (
    <Paper withBorder radius="md" p="md">
      <Title order={2} size="h4" mb="xs">
        {t('apiKeys.sampleTitle')}
      </Title>
      <KeySample />
    </Paper>
  );
}
