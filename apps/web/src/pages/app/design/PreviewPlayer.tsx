import { useEffect, useState } from 'react';
import { Alert, Skeleton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { decodePeaks } from '../../../speech/audio/decode';
import { fetchPreviewAudio } from '../../../design/api';
import { WaveformPlayer } from '../playground/WaveformPlayer';

interface Props {
  url: string;
  /** Start as soon as the audio has arrived (a preview just made). */
  autoplay?: boolean;
  testId?: string;
}

/**
 * A preview's audio with its waveform: the bytes are fetched once with the session, decoded for
 * the peaks, and played from a blob, so play and seek never go back to the server.
 */
export function PreviewPlayer({ url, autoplay = false, testId = 'preview-player' }: Props) {
  const { t } = useTranslation();
  const audio = useQuery({
    queryKey: ['preview-audio', url],
    queryFn: async ({ signal }) => {
      const blob = await fetchPreviewAudio(url, signal);
      const decoded = await decodePeaks(new Uint8Array(await blob.arrayBuffer()));
      return { blob, decoded };
    },
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    retry: 1,
    meta: { silent: true },
  });
  const [src, setSrc] = useState<string | null>(null);
  const blob = audio.data?.blob ?? null;
  useEffect(() => {
    if (!blob) return;
    const next = URL.createObjectURL(blob);
    setSrc(next);
    return () => {
      URL.revokeObjectURL(next);
      setSrc(null);
    };
  }, [blob]);

  if (audio.isError) {
    return (
      <Alert color="red" variant="light" data-testid={`${testId}-error`}>
        {t('design.audioFailed')}
      </Alert>
    );
  }
  if (!audio.data || !src) return <Skeleton h={80} data-testid={`${testId}-loading`} />;
  return (
    <div data-testid={testId} data-url={url}>
      <WaveformPlayer
        src={src}
        peaks={audio.data.decoded?.peaks ?? null}
        duration={audio.data.decoded?.duration ?? null}
        autoplay={autoplay}
      />
    </div>
  );
}
