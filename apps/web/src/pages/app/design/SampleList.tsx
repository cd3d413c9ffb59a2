import { useEffect, useRef, useState } from 'react';
import { ActionIcon, Badge, Button, Divider, Group, Paper, Stack, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconPlayerPlayFilled, IconPlayerStopFilled } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { describeError } from '../../../api/errors';
import { fetchPreviewAudio, listSamples, SAMPLES_KEY, type CloneSample } from '../../../design/api';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatBytes, formatNumber } from '../../../lib/format';

/** One sample's player: its audio fetched once with the session, played in the page. */
function SamplePlayer({ sample }: { sample: CloneSample }) {
  const { t } = useTranslation();
  const audio = useRef<HTMLAudioElement | null>(null);
  const url = useRef<string | null>(null);
  const [playing, setPlaying] = useState(false);
  const [error, setError] = useState(false);
  useEffect(
    () => () => {
      audio.current?.pause();
      if (url.current) URL.revokeObjectURL(url.current);
    },
    [],
  );
  const toggle = async () => {
    if (playing) {
      audio.current?.pause();
      return;
    }
    try {
      if (!audio.current) {
        url.current = URL.createObjectURL(await fetchPreviewAudio(sample.audio_url));
        audio.current = new Audio(url.current);
        // 'playing', not 'play': the audio has started, so a pause now cannot interrupt a pending play().
        audio.current.onplaying = () => setPlaying(true);
        audio.current.onpause = () => setPlaying(false);
        audio.current.onended = () => setPlaying(false);
      }
      setError(false);
      await audio.current.play();
    } catch (e) {
      // A pause during the start of playback interrupts play(): that is the user's stop, not a failure.
      if (!(e instanceof DOMException && e.name === 'AbortError')) setError(true);
    }
  };
  const label = t('design.samplePlay', { index: String(sample.index) });
  return (
    <Tooltip label={error ? t('design.audioFailed') : label}>
      <ActionIcon
        variant="light"
        color={error ? 'red' : 'violet'}
        radius="xl"
        onClick={() => void toggle()}
        aria-label={label}
        aria-pressed={playing}
        data-testid="sample-play"
        data-state={playing ? 'playing' : error ? 'error' : 'idle'}
      >
        {playing ? <IconPlayerStopFilled size={14} /> : <IconPlayerPlayFilled size={14} />}
      </ActionIcon>
    </Tooltip>
  );
}

/** The account's samples (uploaded or recorded), newest first: index, format, size, duration; play one or use it. */
export function SampleList({ selected, onUse }: { selected: string | null; onUse: (sample: CloneSample) => void }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const list = useQuery({ queryKey: [SAMPLES_KEY], queryFn: ({ signal }) => listSamples(1, 50, signal) });
  const items = list.data?.items ?? [];
  return (
    <Paper withBorder radius="md" p="md" data-testid="sample-list" data-total={list.data?.total ?? ''}>
      <Stack gap="xs">
        <Text fw={600}>{t('design.samplesTitle')}</Text>
        <Text size="xs" c="dimmed">
          {t('design.samplesHint')}
        </Text>
        {list.isError ? (
          <Group gap="xs">
            <Text size="sm" c="red" data-testid="sample-list-error">
              {describeError(list.error, ui, t('errors.network'))}
            </Text>
            <Button size="xs" variant="light" onClick={() => void list.refetch()}>
              {t('common.retry')}
            </Button>
          </Group>
        ) : list.data && items.length === 0 ? (
          <Text size="sm" c="dimmed" data-testid="sample-list-empty">
            {t('design.samplesEmpty')}
          </Text>
        ) : (
          items.map((sample, i) => (
            <div key={sample.id}>
              {i > 0 && <Divider mb="xs" />}
              <Group gap="sm" wrap="nowrap" data-testid="sample-row" data-sample-id={sample.id} data-index={sample.index}>
                <SamplePlayer sample={sample} />
                <Stack gap={0} style={{ flex: 1, minWidth: 0 }}>
                  <Text size="sm" fw={600}>
                    {t('design.sampleN', { index: String(sample.index) })}
                  </Text>
                  <Text size="xs" c="dimmed" truncate>
                    {sample.format.toUpperCase()} · {formatBytes(sample.size, ui)} ·{' '}
                    {t('design.seconds', { seconds: formatNumber(Math.round(sample.duration * 10) / 10, ui) })}
                  </Text>
                </Stack>
                {selected === sample.id ? (
                  <Badge color="green" variant="light" leftSection={<IconCheck size={12} />} data-testid="sample-in-use">
                    {t('design.sampleInUse')}
                  </Badge>
                ) : (
                  <Button size="xs" variant="subtle" onClick={() => onUse(sample)} data-testid="sample-use">
                    {t('design.sampleUse')}
                  </Button>
                )}
              </Group>
            </div>
          ))
        )}
      </Stack>
    </Paper>
  );
}
