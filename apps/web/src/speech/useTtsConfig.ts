import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useDebouncedValue } from '@mantine/hooks';
import { useSession } from '../auth/hooks';
import { useLocaleChoice } from '../i18n/hooks';
import { fetchTtsConfig, type ModelInfo, type TtsConfig } from './api';
import { CONFIG_LANGUAGE_DEBOUNCE_MS, configRetryDelay, shouldRetryConfig } from './config-retry';

export const TTS_CONFIG_KEY = 'tts-config';

/**
 * The models and limits, loaded once per UI language (the descriptions are localized): kept for
 * the page's life, retried after 3, 8 and 15 s; ModelConfigGate offers a retry after the last.
 * A language change reloads it once the language has settled for 100 ms.
 */
export function useTtsConfig() {
  const { status } = useSession();
  const { ui } = useLocaleChoice();
  const [lang] = useDebouncedValue(ui, CONFIG_LANGUAGE_DEBOUNCE_MS);
  return useQuery({
    queryKey: [TTS_CONFIG_KEY, lang],
    queryFn: ({ signal }) => fetchTtsConfig(signal),
    enabled: status === 'ready',
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnWindowFocus: false,
    placeholderData: keepPreviousData,
    retry: (failureCount) => shouldRetryConfig(failureCount),
    retryDelay: (failureCount) => configRetryDelay(failureCount),
    meta: { silent: true },
  });
}

export function findModel(config: TtsConfig | undefined, id: string | undefined): ModelInfo | undefined {
  return id ? config?.models.find((m) => m.model === id) : undefined;
}
