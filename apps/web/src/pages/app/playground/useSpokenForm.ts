import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useDebouncedValue } from '@mantine/hooks';
import { isApiError } from '../../../api/errors';
import { useLocaleChoice } from '../../../i18n/hooks';
import { spokenForm } from '../../../speech/api';
import { ssmlPlace, type SsmlPlace } from '../../../speech/ssml';
import type { TextType } from '../../../speech/types';
import { ESTIMATE_DEBOUNCE_MS } from './useEstimate';

export interface SsmlProblem {
  message: string;
  place: SsmlPlace | null;
}

/**
 * SSML mode: POST /tts/normalize once typing pauses, for the spoken form and, when the document is refused, the
 * server's message (in the console's language) and the line and column it names. Nothing is charged. The language
 * is part of the query's key: switching it asks again, so the message is never left in the previous language.
 */
export function useSpokenForm(text: string, voiceId: string | undefined, textType: TextType) {
  const [settled] = useDebouncedValue(text, ESTIMATE_DEBOUNCE_MS);
  const { ui } = useLocaleChoice();
  const query = useQuery({
    queryKey: ['tts-normalize', voiceId, textType, settled, ui],
    queryFn: ({ signal }) => spokenForm(settled, voiceId!, textType, signal),
    enabled: textType === 'ssml' && !!voiceId && settled.trim().length > 0,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    retry: false,
    meta: { silent: true },
  });
  const current = settled === text && !query.isPlaceholderData && !query.isFetching;
  const error = query.error;
  const problem: SsmlProblem | null =
    textType === 'ssml' && error && isApiError(error) && error.code === 'VALIDATION_FAILED'
      ? { message: error.serverMessage || error.message, place: ssmlPlace(error.serverMessage || error.message) }
      : null;
  return { spoken: textType === 'ssml' && !error ? query.data : undefined, problem, current };
}
