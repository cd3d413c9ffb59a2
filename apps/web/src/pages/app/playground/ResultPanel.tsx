import { useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Button, Group, Loader, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconDownload, IconWaveSine } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { describeError, isApiError } from '../../../api/errors';
import { EmptyState } from '../../../components/EmptyState';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatBytes, formatNumber, formatSeconds } from '../../../lib/format';
import { jobPercent } from '../../../speech/synthesis/job-runner';
import type { SynthesisSnapshot } from '../../../speech/synthesis/session';
import { WaveformPlayer } from './WaveformPlayer';
import { Transcript } from './Transcript';
import { fetchJobSubtitles } from '../../../speech/api';

interface Props {
  snapshot: SynthesisSnapshot;
  fileName: string;
}

function useObjectUrl(blob: Blob | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!blob) {
      setUrl(null);
      return;
    }
    const next = URL.createObjectURL(blob);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [blob]);
  return url;
}

/** Progress while the audio streams in or the job runs, then the waveform, the summary and the download. */
export function ResultPanel({ snapshot: s, fileName }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const downloadUrl = useObjectUrl(s.blob);
  const [time, setTime] = useState(0);
  const panel = useRef<HTMLDivElement>(null);
  // A new run: bring its progress into view (a long text pushes it below the fold).
  useEffect(() => {
    if (s.run > 0) panel.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [s.run]);
  const working = s.phase === 'waiting' || s.phase === 'streaming' || s.phase === 'job';

  if (s.phase === 'idle' && !s.src) {
    return <EmptyState icon={<IconWaveSine size={26} />} title={t('playground.emptyTitle')} body={t('playground.emptyBody')} />;
  }

  const size = formatBytes(s.bytes, ui);
  let status: string;
  if (s.phase === 'waiting') status = t('playground.waiting');
  else if (s.phase === 'job')
    status =
      s.job && s.job.total > 0
        ? t('playground.jobProgress', { done: formatNumber(s.job.done, ui), total: formatNumber(s.job.total, ui) })
        : t('playground.jobPreparing');
  else if (s.phase === 'streaming')
    status =
      s.seconds !== null
        ? t('playground.receivingSeconds', { size, seconds: formatSeconds(s.seconds, ui) })
        : t('playground.receiving', { size });
  else
    status = t('playground.summary', {
      seconds: formatSeconds(s.seconds ?? s.duration ?? 0, ui),
      size,
      format: s.format.toUpperCase(),
    });

  return (
    <Paper
      ref={panel}
      withBorder
      radius="md"
      p="lg"
      data-testid="playground-result"
      data-phase={s.phase}
      data-mode={s.mode ?? ''}
    >
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap">
          <Text fw={500} size="sm">
            {t('playground.result')}
          </Text>
          {s.phase === 'done' && downloadUrl && (
            <Button
              component="a"
              href={downloadUrl}
              download={fileName}
              variant="light"
              size="xs"
              leftSection={<IconDownload size={14} />}
              data-testid="result-download"
              data-file-name={fileName}
            >
              {t('playground.download')}
            </Button>
          )}
        </Group>
        {s.phase === 'error' && <ErrorAlert error={s.error} />}
        {(s.src || s.peaks || s.phase === 'done') && (
          <WaveformPlayer src={s.src} peaks={s.peaks} duration={s.duration} autoplay onTime={setTime} />
        )}
        {(s.phase === 'done' || s.phase === 'streaming') && s.transcript && (
          <Transcript
            cues={s.transcript}
            time={time}
            download={s.jobId ? { name: s.jobId, fetch: (format) => fetchJobSubtitles(s.jobId!, format) } : null}
          />
        )}
        {s.phase === 'job' && (
          <Progress value={jobPercent(s.job ?? undefined)} animated striped size="lg" data-testid="result-job-progress" />
        )}
        {(s.phase === 'waiting' || (s.phase === 'streaming' && !s.peaks)) && <Progress value={100} animated striped size="sm" />}
        {s.phase !== 'error' && (
          <Group gap="xs" justify="space-between" wrap="wrap">
            <Group gap={6}>
              {working && <Loader size={14} />}
              <Text size="sm" c="dimmed" data-testid="result-status" data-bytes={s.bytes} data-seconds={s.seconds ?? ''}>
                {status}
              </Text>
            </Group>
            {s.credits !== null && s.phase === 'done' && (
              <Text size="sm" c="dimmed" data-testid="result-charged">
                {t('playground.charged', { credits: formatNumber(s.credits, ui) })}
              </Text>
            )}
          </Group>
        )}
        {s.phase === 'streaming' && s.mode === 'collect' && (
          <Text size="xs" c="dimmed">
            {t('playground.playsAtEnd')}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

function ErrorAlert({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const broken = !isApiError(error) && !(error instanceof DOMException);
  const message = broken ? t('playground.streamBroken') : describeError(error, ui, t('errors.network'));
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title={t('playground.failed')}
      data-testid="result-error"
    >
      {message}
      {isApiError(error) && error.code === 'INSUFFICIENT_BALANCE' && (
        <>
          {' '}
          <Anchor component={Link} to="/app/pricing" size="sm">
            {t('playground.buyCredits')}
          </Anchor>
        </>
      )}
    </Alert>
  );
}
