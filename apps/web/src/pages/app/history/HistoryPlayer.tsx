import { Alert, Skeleton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useDecodedAudio } from '../../../speech/audio/useDecodedAudio';
import { fetchHistoryAudio } from '../../../speech/history';
import { WaveformPlayer } from '../playground/WaveformPlayer';

/** A generation's audio with its waveform: fetched once (never charged), decoded for the peaks, played from a blob. */
export function HistoryPlayer({ id }: { id: string }) {
  const { t } = useTranslation();
  const { audio, src } = useDecodedAudio(['history-audio', id], (signal) => fetchHistoryAudio(id, signal));
  if (audio.isError || (audio.data && !audio.data.decoded)) {
    return (
      <Alert color="orange" variant="light" data-testid="history-player-error">
        {t('history.audioFailed')}
      </Alert>
    );
  }
  if (!audio.data || !src) return <Skeleton h={80} data-testid="history-player-loading" />;
  return (
    <div data-testid="history-player">
      <WaveformPlayer
        src={src}
        peaks={audio.data.decoded?.peaks ?? null}
        duration={audio.data.decoded?.duration ?? null}
        autoplay
      />
    </div>
  );
}
