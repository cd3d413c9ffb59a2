import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isApiError } from '../api/errors';
import { notifyError } from './notify';

/** Hooks set by the session once it exists (it imports this module, so it cannot be imported here). */
export const queryHooks = { onUnauthenticated: () => {} };

function handle(error: unknown, silent: boolean): void {
  if (isApiError(error) && error.status === 401) {
    queryHooks.onUnauthenticated();
    return;
  }
  if (!silent) notifyError(error);
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: (error, query) => handle(error, query.meta?.silent === true) }),
  mutationCache: new MutationCache({
    onError: (error, _vars, _ctx, mutation) => handle(error, mutation.meta?.silent === true),
  }),
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: true,
      retry: (count, error) => !(isApiError(error) && error.status > 0 && error.status < 500) && count < 2,
    },
    mutations: { retry: false },
  },
});
