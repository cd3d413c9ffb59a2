import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useDebouncedValue } from '@mantine/hooks';
import { useAccount, useSession } from '../auth/hooks';
import { useLocaleChoice } from '../i18n/hooks';
import { fetchTtsConfig, type ModelInfo, type TtsConfig } from './api';
import { CONFIG_LANGUAGE_DEBOUNCE_MS, configRetryDelay, shouldRetryConfig } from './config-retry';

export const TTS_CONFIG_KEY = 'tts-config';

/**
 * The models and limits, loaded once per UI language (the descriptions are localized): kept for
 * the page's life, retried after 3, 8 and 15 s; ModelConfigGate offers a retry after the last.
 * A language change reloads it once the language has settled for 100 ms. Its text limit is the
 * account's plan's, so a new account or a new plan (a purchase, an expiry) reloads it too.
 */
export function useTtsConfig() {
  const { status } = useSession();
  const { account } = useAccount();
  const { ui } = useLocaleChoice();
  const [lang] = useDebouncedValue(ui, CONFIG_LANGUAGE_DEBOUNCE_MS);
  // Until the account is known, a new visitor's: the free plan.
  const plan = account ? `${account.id}:${account.vip.level}` : 'free';
  return useQuery({
    queryKey: [TTS_CONFIG_KEY, lang, plan],
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
