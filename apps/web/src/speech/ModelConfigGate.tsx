import { lazy, Suspense } from 'react';
import { useTtsConfig } from './useTtsConfig';

/**
 * Loads the model configuration as soon as the session is up, and asks the user to retry once
 * the automatic retries (3, 8, 15 s) have all failed.
 */
export function ModelConfigGate() {
  const config = useTtsConfig();
  const failed = config.isError && !config.isFetching;
  // The dialog (and the modal code) loads only once the retries have failed.
  if (!failed) return null;
  return (
    <Suspense fallback={null}>
      <RetryDialog onRetry={() => void config.refetch()} />
    </Suspense>
  );
}

const RetryDialog = lazy(async () => ({ default: (await import('./ModelConfigDialog')).ModelConfigDialog }));
