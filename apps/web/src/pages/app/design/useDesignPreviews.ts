import { useCallback, useRef, useState } from 'react';
import { ME_KEY } from '../../../auth/session-controller';
import { createPreview, PREVIEWS_KEY, type PreviewBody, type PreviewCreated } from '../../../design/api';
import { queryClient } from '../../../lib/query-client';

export interface PreviewResult {
  model: string;
  preview?: PreviewCreated;
  error?: unknown;
}

/**
 * One preview per chosen model, all at once (the A/B columns); each is its own version and charge,
 * so one model failing leaves the others' previews standing.
 */
export function useDesignPreviews() {
  const [results, setResults] = useState<PreviewResult[]>([]);
  const [pending, setPending] = useState(false);
  const run = useRef(0);

  const start = useCallback(async (bodies: PreviewBody[]) => {
    const id = ++run.current;
    setPending(true);
    setResults(bodies.map((b) => ({ model: b.model })));
    const settled = await Promise.allSettled(bodies.map((b) => createPreview(b)));
    if (id !== run.current) return;
    setResults(
      settled.map((s, i) =>
        s.status === 'fulfilled' ? { model: bodies[i]!.model, preview: s.value } : { model: bodies[i]!.model, error: s.reason },
      ),
    );
    setPending(false);
    void queryClient.invalidateQueries({ queryKey: ME_KEY });
    void queryClient.invalidateQueries({ queryKey: [PREVIEWS_KEY] });
  }, []);

  return { results, pending, start };
}
