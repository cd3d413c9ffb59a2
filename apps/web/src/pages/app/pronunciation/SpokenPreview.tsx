import { useState, type ReactNode } from 'react';
import { Alert, Button, Code, Group, Mark, Paper, Stack, Text, Textarea } from '@mantine/core';
import { IconEye } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { describeError } from '../../../api/errors';
import { useLocaleChoice } from '../../../i18n/hooks';
import { normalizeWith, rulesApplied } from '../../../speech/pronunciation';
import { readableSpoken, spokenChanges, type SpokenChange } from '../../../speech/spoken-changes';
import { DictionaryPicker, locatorsOf } from '../playground/DictionaryPicker';

/**
 * POST /tts/normalize with the chosen dictionaries: the text as the voice will speak it, nothing charged; a phoneme
 * rule's sounds shown in IPA (not the engine's own notation), and the words the dictionaries change marked in the text.
 */
export function SpokenPreview({ voiceId, initial }: { voiceId: string | undefined; initial: string[] }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [text, setText] = useState(() => t('pronunciation.previewDefault'));
  const [ids, setIds] = useState<string[]>(initial);
  // No dictionary chosen: the field is left out, so the account's default applies, as in synthesis.
  const preview = useMutation({
    mutationFn: async () => {
      const [spoken, rules] = await Promise.all([
        normalizeWith(text, voiceId!, locatorsOf(ids).pronunciation_dictionary_locators),
        rulesApplied(ids),
      ]);
      const changes = spokenChanges(text, rules);
      return { text, changes, spoken: readableSpoken(spoken.text, changes) };
    },
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
              {preview.data.spoken}
            </Code>
            <ChangedWords text={preview.data.text} changes={preview.data.changes} />
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

/** The text as written, each word a dictionary changes marked, and what each became: "word → /IPA/" or "word → alias". */
function ChangedWords({ text, changes }: { text: string; changes: SpokenChange[] }) {
  const { t } = useTranslation();
  const parts: ReactNode[] = [];
  let last = 0;
  changes.forEach((c, k) => {
    parts.push(text.slice(last, c.from), <Mark key={k}>{c.word}</Mark>);
    last = c.to;
  });
  parts.push(text.slice(last));
  return (
    <Stack gap={4} data-testid="spoken-changes" data-count={changes.length}>
      <Text size="sm" fw={500}>
        {t('pronunciation.previewChanges')}
      </Text>
      {changes.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('pronunciation.previewNoChanges')}
        </Text>
      ) : (
        <>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="spoken-changed-text">
            {parts}
          </Text>
          {changes.map((c, k) => (
            <Text
              key={k}
              size="sm"
              style={{ wordBreak: 'break-word' }}
              data-testid="spoken-change"
              data-word={c.word}
              data-type={c.type}
            >
              <Mark>{c.word}</Mark> → {c.type === 'phoneme' ? `/${c.said}/` : c.said}{' '}
              <Text span size="xs" c="dimmed">
                ({c.type === 'phoneme' ? t('pronunciation.phoneme') : t('pronunciation.alias')})
              </Text>
            </Text>
          ))}
        </>
      )}
    </Stack>
  );
}
