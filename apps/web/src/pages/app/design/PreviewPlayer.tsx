import { useState } from 'react';
import { Alert, Skeleton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useDecodedAudio } from '../../../speech/audio/useDecodedAudio';
import { fetchPreviewAudio, fetchPreviewSubtitles } from '../../../design/api';
import { parseVtt } from '../../../speech/subtitles';
import { WaveformPlayer } from '../playground/WaveformPlayer';
import { Transcript } from '../playground/Transcript';

interface Props {
  url: string;
  /** The preview's id: its subtitles light each word of its text as it plays. */
  previewId: string;
  /** Start as soon as the audio has arrived (a preview just made). */
  autoplay?: boolean;
  testId?: string;
}

/**
 * A preview's audio with its waveform: the bytes are fetched once with the session, decoded for
 * the peaks, and played from a blob, so play and seek never go back to the server.
 */
export function PreviewPlayer({ url, previewId, autoplay = false, testId = 'preview-player' }: Props) {
  const { t } = useTranslation();
  const [time, setTime] = useState(0);
  // The words' times; none (null) for a voice without timings, and the player works without them.
  const transcript = useQuery({
    queryKey: ['preview-subtitles', previewId],
    queryFn: ({ signal }) => fetchPreviewSubtitles(previewId, 'vtt', signal).then(parseVtt, () => null),
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    retry: false,
    meta: { silent: true },
  });
  const { audio, src } = useDecodedAudio(['preview-audio', url], (signal) => fetchPreviewAudio(url, signal));

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
        onTime={setTime}
      />
      {transcript.data && transcript.data.length > 0 && (
        <Transcript
          cues={transcript.data}
          time={time}
          testId={`${testId}-transcript`}
          download={{ name: previewId, fetch: (format) => fetchPreviewSubtitles(previewId, format) }}
        />
      )}
    </div>
  );
}
