import { useState } from 'react';
import { Alert, Button, Code, Group, Paper, Stack, Text, Textarea } from '@mantine/core';
import { IconEye } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { describeError } from '../../../api/errors';
import { useLocaleChoice } from '../../../i18n/hooks';
import { normalizeWith } from '../../../speech/pronunciation';
import { DictionaryPicker, locatorsOf } from '../playground/DictionaryPicker';

/** POST /tts/normalize with the chosen dictionaries: the text exactly as the voice will be given it, nothing charged. */
export function SpokenPreview({ voiceId, initial }: { voiceId: string | undefined; initial: string[] }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [text, setText] = useState(() => t('pronunciation.previewDefault'));
  const [ids, setIds] = useState<string[]>(initial);
  // No dictionary chosen: the field is left out, so the account's default applies, as in synthesis.
  const preview = useMutation({
    mutationFn: () => normalizeWith(text, voiceId!, locatorsOf(ids).pronunciation_dictionary_locators),
  });
  return (
    <Paper withBorder radius="md" p="md" data-testid="spoken-preview">
      <Stack gap="sm">
        <Text fw={500}>{t('pronunciation.previewTitle')}</Text>
        <Text size="sm" c="dimmed">
          {t('pronunciation.previewHint')}
        </Text>
        <Textarea
          label={t('pronunciation.previewText')}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          autosize
          minRows={2}
          maxLength={5000}
          data-testid="spoken-preview-text"
        />
        <DictionaryPicker
          value={ids}
          onChange={setIds}
          label={t('pronunciation.previewDictionaries')}
          testId="spoken-preview-dictionaries"
        />
        <Group>
          <Button
            leftSection={<IconEye size={16} />}
            onClick={() => preview.mutate()}
            disabled={!voiceId || !text.trim()}
            loading={preview.isPending}
            data-testid="spoken-preview-run"
          >
            {t('pronunciation.previewRun')}
          </Button>
        </Group>
        {preview.isError && (
          <Alert color="red" variant="light" data-testid="spoken-preview-error">
            {describeError(preview.error, ui, t('errors.network'))}
          </Alert>
        )}
        {preview.data && (
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              {t('pronunciation.previewResult')}
            </Text>
            <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="spoken-form">
              {preview.data.text}
            </Code>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
