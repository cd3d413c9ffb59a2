import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useDebouncedValue } from '@mantine/hooks';
import { estimateCost } from '../../../speech/api';

export const ESTIMATE_DEBOUNCE_MS = 400;

/**
 * POST /tts/estimate once typing pauses: the price, and whether the voice speaks the text's
 * language. `current` is false while the shown answer is for an older text or voice.
 */
export function useEstimate(text: string, voiceId: string | undefined, enabled: boolean, more: object = {}) {
  const [settled] = useDebouncedValue(text, ESTIMATE_DEBOUNCE_MS);
  const query = useQuery({
    queryKey: ['tts-estimate', voiceId, settled, more],
    queryFn: ({ signal }) => estimateCost(settled, voiceId!, signal, more),
    enabled: enabled && !!voiceId && settled.trim().length > 0,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    retry: false,
    meta: { silent: true },
  });
  const current = settled === text && !query.isPlaceholderData && !query.isFetching;
  return { ...query, current };
}
