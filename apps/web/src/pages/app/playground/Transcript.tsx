import { Box, Button, Group, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { spaceBetween, wordAt, type TranscriptCue } from '../../../speech/subtitles';

export type SubtitleFormat = 'srt' | 'vtt';
/** Subtitles the server keeps for what was spoken (a job, a preview), saved under `name`. */
export interface SubtitleDownload {
  name: string;
  fetch: (format: SubtitleFormat) => Promise<string>;
}

/** Saves subtitles under their name: fetched with the session, then handed to the browser as a file. */
async function saveSubtitles(download: SubtitleDownload, format: SubtitleFormat): Promise<void> {
  const text = await download.fetch(format);
  const url = URL.createObjectURL(new Blob([text], { type: format === 'vtt' ? 'text/vtt' : 'application/x-subrip' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${download.name}.${format}`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The text as it was spoken, each word lit while it plays; the subtitles to download beside it. */
export function Transcript({
  cues,
  time,
  download,
  testId = 'result-transcript',
}: {
  cues: TranscriptCue[];
  time: number;
  download: SubtitleDownload | null;
  testId?: string;
}) {
  const { t } = useTranslation();
  const at = wordAt(cues, time);
  return (
    <Box data-testid={testId}>
      <Group justify="space-between" mb={4} wrap="wrap">
        <Text size="xs" c="dimmed">
          {t('playground.transcript')}
        </Text>
        {download && (
          <Group gap={6}>
            {(['srt', 'vtt'] as const).map((format) => (
              <Button
                key={format}
                size="compact-xs"
                variant="subtle"
                leftSection={<IconDownload size={12} />}
                onClick={() => void saveSubtitles(download, format)}
                aria-label={t('playground.downloadSubtitles', { format: format.toUpperCase() })}
                data-testid={`${testId.replace(/-transcript$/, '')}-subtitles-${format}`}
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
            const next = cue.words[w + 1] ?? cues[c + 1]?.words[0];
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
                {word.text}
                {next && spaceBetween(word.text, next.text) ? ' ' : ''}
              </span>
            );
          }),
        )}
      </Text>
    </Box>
  );
}
