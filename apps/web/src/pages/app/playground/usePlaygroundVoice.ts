import { useCallback } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { isApiError } from '../../../api/errors';
import { useLocaleChoice } from '../../../i18n/hooks';
import { fetchVoice, listVoices, type Voice } from '../../../speech/api';
import { preferredVoiceLanguage } from '../../../speech/languages';

const LAST_VOICE_KEY = 'polyvox.playground.voice';

function readLast(): string | null {
  try {
    return localStorage.getItem(LAST_VOICE_KEY);
  } catch {
    return null;
  }
}

function writeLast(id: string): void {
  try {
    localStorage.setItem(LAST_VOICE_KEY, id);
  } catch {
    // Storage refused: the choice lives in the URL only.
  }
}

export interface PlaygroundVoice {
  voice: Voice | undefined;
  loading: boolean;
  /** The voice in the URL does not exist (any more). */
  missing: boolean;
  choose: (voice: Voice) => void;
}

/**
 * The voice is the route's `?voice=` (so /app/playground?voice=… opens with it); without one, the
 * last voice used here, else the library's first voice in the UI language.
 */
export function usePlaygroundVoice(): PlaygroundVoice {
  const { ui } = useLocaleChoice();
  const [params, setParams] = useSearchParams();
  const fromUrl = params.get('voice');
  const wanted = fromUrl ?? readLast();

  const chosen = useQuery({
    queryKey: ['voice', wanted],
    queryFn: ({ signal }) => fetchVoice(wanted!, signal),
    enabled: !!wanted,
    staleTime: 5 * 60_000,
    retry: false,
    meta: { silent: true },
  });
  const notFound = isApiError(chosen.error) && chosen.error.status === 404;
  const needDefault = !wanted || (notFound && !fromUrl);

  const fallback = useQuery({
    queryKey: ['voices', 'default', ui],
    queryFn: ({ signal }) =>
      listVoices({ source: 'official', languages: preferredVoiceLanguage(ui), page: 1, page_size: 1 }, signal),
    enabled: needDefault,
    staleTime: Infinity,
  });

  const choose = useCallback(
    (voice: Voice) => {
      writeLast(voice.id);
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          next.set('voice', voice.id);
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );

  const voice = needDefault ? fallback.data?.items[0] : chosen.data;
  return {
    voice,
    loading: needDefault ? fallback.isLoading : chosen.isLoading,
    missing: !!fromUrl && notFound,
    choose,
  };
}
