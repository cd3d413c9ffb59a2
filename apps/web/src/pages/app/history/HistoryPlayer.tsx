import { Alert, Skeleton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { decodePeaks } from '../../../speech/audio/decode';
import { useBlobUrl } from '../../../speech/audio/useBlobUrl';
import { fetchHistoryAudio } from '../../../speech/history';
import { WaveformPlayer } from '../playground/WaveformPlayer';

/** A generation's audio with its waveform: fetched once (never charged), decoded for the peaks, played from a blob. */
export function HistoryPlayer({ id }: { id: string }) {
  const { t } = useTranslation();
  const audio = useQuery({
    queryKey: ['history-audio', id],
    queryFn: async ({ signal }) => {
      const blob = await fetchHistoryAudio(id, signal);
      const decoded = await decodePeaks(new Uint8Array(await blob.arrayBuffer()));
      return { blob, decoded };
    },
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    retry: 1,
    meta: { silent: true },
  });
  const src = useBlobUrl(audio.data?.blob ?? null);
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
