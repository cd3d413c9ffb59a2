import { useEffect, useMemo, useRef, useState } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { ME_KEY } from '../../../auth/session-controller';
import { useDebouncedValue } from '@mantine/hooks';
import { useLocaleChoice } from '../../../i18n/hooks';
import { listVoices } from '../../../speech/api';
import { preferredVoiceLanguage } from '../../../speech/languages';
import { estimateDialogue, generateDialogue } from '../../../studio/dialogue';
import { dialogueInputs, moveTurn, newTurn, nextVoice, type Turn } from '../../../studio/turns';
import { ESTIMATE_DEBOUNCE_MS } from '../playground/useEstimate';

export interface DialogueResult {
  blob: Blob;
  characters: number | null;
  at: Date;
}

/**
 * The dialogue's turns (two to start, spoken by the library's first two voices in the UI language), their price once
 * typing pauses, and the generation (stoppable) with its file.
 */
export function useDialogue() {
  const { ui } = useLocaleChoice();
  const client = useQueryClient();
  const [turns, setTurns] = useState<Turn[]>([]);
  const defaults = useQuery({
    queryKey: ['voices', 'dialogue-default', ui],
    queryFn: ({ signal }) =>
      listVoices({ source: 'official', languages: preferredVoiceLanguage(ui), page: 1, page_size: 2 }, signal),
    staleTime: Infinity,
  });
  useEffect(() => {
    const [a, b] = defaults.data?.items ?? [];
    if (a && turns.length === 0) setTurns([newTurn(a.id), newTurn((b ?? a).id)]);
  }, [defaults.data, turns.length]);

  const inputs = useMemo(() => dialogueInputs(turns), [turns]);
  const [settled] = useDebouncedValue(inputs, ESTIMATE_DEBOUNCE_MS);
  const estimate = useQuery({
    queryKey: ['dialogue-estimate', settled],
    queryFn: ({ signal }) => estimateDialogue(settled, signal),
    enabled: settled.length > 0,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    retry: false,
    meta: { silent: true },
  });
  const current = settled === inputs && !estimate.isPlaceholderData && !estimate.isFetching;

  const [result, setResult] = useState<DialogueResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const generate = async () => {
    if (busy || inputs.length === 0) return;
    setBusy(true);
    setError(null);
    abort.current = new AbortController();
    try {
      const made = await generateDialogue(inputs, abort.current.signal);
      setResult({ ...made, at: new Date() });
      // Charged: the balance shown everywhere follows.
      void client.invalidateQueries({ queryKey: ME_KEY });
    } catch (e) {
      if (!(e instanceof DOMException && e.name === 'AbortError')) setError(e);
    } finally {
      setBusy(false);
    }
  };

  const edit = {
    text: (i: number, text: string) => setTurns((ts) => ts.map((t, j) => (j === i ? { ...t, text } : t))),
    voice: (i: number, voiceId: string) => setTurns((ts) => ts.map((t, j) => (j === i ? { ...t, voiceId } : t))),
    move: (i: number, delta: number) => setTurns((ts) => moveTurn(ts, i, i + delta)),
    remove: (i: number) => setTurns((ts) => ts.filter((_, j) => j !== i)),
    add: () => setTurns((ts) => [...ts, newTurn(nextVoice(ts))]),
  };
  return {
    turns,
    inputs,
    edit,
    estimate: { data: inputs.length ? estimate.data : undefined, error: estimate.error, current },
    result,
    error,
    busy,
    generate,
    stop: () => abort.current?.abort(),
  };
}
