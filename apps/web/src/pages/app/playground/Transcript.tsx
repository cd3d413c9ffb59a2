import { Box, Button, Group, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { fetchJobSubtitles } from '../../../speech/api';
import { wordAt, type TranscriptCue } from '../../../speech/subtitles';

/** Saves a job's subtitles under its id: fetched with the session, then handed to the browser as a file. */
async function saveSubtitles(jobId: string, format: 'srt' | 'vtt'): Promise<void> {
  const text = await fetchJobSubtitles(jobId, format);
  const url = URL.createObjectURL(new Blob([text], { type: format === 'vtt' ? 'text/vtt' : 'application/x-subrip' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${jobId}.${format}`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The text as it was spoken, each word lit while it plays; the subtitles to download beside it. */
export function Transcript({ cues, time, jobId }: { cues: TranscriptCue[]; time: number; jobId: string | null }) {
  const { t } = useTranslation();
  const at = wordAt(cues, time);
  return (
    <Box data-testid="result-transcript">
      <Group justify="space-between" mb={4} wrap="wrap">
        <Text size="xs" c="dimmed">
          {t('playground.transcript')}
        </Text>
        {jobId && (
          <Group gap={6}>
            {(['srt', 'vtt'] as const).map((format) => (
              <Button
                key={format}
                size="compact-xs"
                variant="subtle"
                leftSection={<IconDownload size={12} />}
                onClick={() => void saveSubtitles(jobId, format)}
                aria-label={t('playground.downloadSubtitles', { format: format.toUpperCase() })}
                data-testid={`result-subtitles-${format}`}
              >
                {format.toUpperCase()}
              </Button>
            ))}
          </Group>
        )}
      </Group>
      <Text size="sm" style={{ lineHeight: 1.8, maxHeight: 180, overflowY: 'auto', overflowWrap: 'anywhere' }}>
        {cues.map((cue, c) =>
          cue.words.map((word, w) => {
            const lit = at !== null && at[0] === c && at[1] === w;
            return (
              <span
                key={`${c}-${w}`}
                data-start={word.start}
                data-lit={lit || undefined}
                style={{
                  borderRadius: 4,
                  padding: '1px 2px',
                  background: lit ? 'var(--mantine-color-violet-light)' : undefined,
                  color: lit ? 'var(--mantine-color-violet-light-color)' : undefined,
                }}
              >
                {word.text}{' '}
              </span>
            );
          }),
        )}
      </Text>
    </Box>
  );
}
