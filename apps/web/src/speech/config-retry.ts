/**
 * The model configuration is retried after 3, 8 and 15 seconds; after the fourth failure the
 * console stops and asks the user (a retry dialog). TanStack Query calls `retryDelay` and `retry`
 * with the number of failures so far, before counting the one that just happened (0 first).
 */
export const CONFIG_RETRY_DELAYS_MS = [3_000, 8_000, 15_000] as const;

export function configRetryDelay(failureCount: number): number {
  const last = CONFIG_RETRY_DELAYS_MS[CONFIG_RETRY_DELAYS_MS.length - 1]!;
  return CONFIG_RETRY_DELAYS_MS[Math.max(0, failureCount)] ?? last;
}

export function shouldRetryConfig(failureCount: number): boolean {
  return failureCount < CONFIG_RETRY_DELAYS_MS.length;
}

/** When each request goes out, in ms after the first: [0, 3000, 11000, 26000]. */
export function configAttemptTimes(): number[] {
  const times = [0];
  for (const delay of CONFIG_RETRY_DELAYS_MS) times.push(times[times.length - 1]! + delay);
  return times;
}

/** How long the language must stay put before the configuration is loaded again in it. */
export const CONFIG_LANGUAGE_DEBOUNCE_MS = 100;
