import { useQuery } from '@tanstack/react-query';
import { decodePeaks } from './decode';
import { useBlobUrl } from './useBlobUrl';

/**
 * Audio fetched once per key and decoded for its waveform's peaks, played from a blob URL the hook revokes: what a
 * player of stored audio (a preview, a history item) shows. `src` is null until the audio is there.
 */
export function useDecodedAudio(queryKey: readonly unknown[], fetchAudio: (signal: AbortSignal) => Promise<Blob>) {
  const audio = useQuery({
    queryKey,
    queryFn: async ({ signal }) => {
      const blob = await fetchAudio(signal);
      const decoded = await decodePeaks(new Uint8Array(await blob.arrayBuffer()));
      return { blob, decoded };
    },
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    retry: 1,
    meta: { silent: true },
  });
  return { audio, src: useBlobUrl(audio.data?.blob ?? null) };
}
