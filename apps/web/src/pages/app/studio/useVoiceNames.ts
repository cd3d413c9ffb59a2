import { useQueries } from '@tanstack/react-query';
import { fetchVoice, type Voice } from '../../../speech/api';

/** Voices by id (each asked once and kept, under the key the playground's voice uses). */
export function useVoices(ids: readonly string[]): Map<string, Voice> {
  const unique = [...new Set(ids.filter(Boolean))];
  const results = useQueries({
    queries: unique.map((id) => ({
      queryKey: ['voice', id],
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchVoice(id, signal),
      staleTime: 5 * 60_000,
      retry: false,
      meta: { silent: true },
    })),
  });
  const out = new Map<string, Voice>();
  results.forEach((r, i) => {
    if (r.data) out.set(unique[i]!, r.data);
  });
  return out;
}

const PALETTE = ['violet', 'teal', 'orange', 'blue', 'pink', 'lime', 'cyan', 'grape', 'yellow', 'indigo'];

/** A speaker's colour: the same for a speaker everywhere on the page. */
export function speakerColor(speakers: readonly { name: string }[], name: string): string {
  const i = speakers.findIndex((s) => s.name === name);
  return PALETTE[(i < 0 ? 0 : i) % PALETTE.length]!;
}
