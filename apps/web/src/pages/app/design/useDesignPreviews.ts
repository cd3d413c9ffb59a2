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
 * Previews on the chosen models (up to three, side by side): one request with `models`, each
 * model its own version and charge. A failure shows in every column it concerns.
 */
export function useDesignPreviews() {
  const [results, setResults] = useState<PreviewResult[]>([]);
  const [pending, setPending] = useState(false);
  const run = useRef(0);

  const start = useCallback(async (body: Omit<PreviewBody, 'model' | 'models'>, models: string[]) => {
    const id = ++run.current;
    setPending(true);
    setResults(models.map((model) => ({ model })));
    try {
      const answer = await createPreview({ ...body, model: models[0]!, ...(models.length > 1 ? { models } : {}) });
      if (id !== run.current) return;
      const items = answer.items?.length ? answer.items : [answer];
      setResults(items.map((preview) => ({ model: preview.model, preview })));
    } catch (error) {
      if (id !== run.current) return;
      setResults(models.map((model) => ({ model, error })));
    } finally {
      if (id === run.current) setPending(false);
      void queryClient.invalidateQueries({ queryKey: ME_KEY });
      void queryClient.invalidateQueries({ queryKey: [PREVIEWS_KEY] });
    }
  }, []);

  return { results, pending, start };
}
