import { useEffect, useState, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { isApiError } from '../../api/errors';
import { ME_KEY } from '../../auth/session-controller';
import { queryHooks } from '../../lib/query-client';
import { SynthesisSession, type SynthesisSnapshot } from './session';

/** The playground's generation: one session per page, stopped when the page goes away. */
export function useSynthesis(): { session: SynthesisSession; snapshot: SynthesisSnapshot } {
  const queryClient = useQueryClient();
  const [session] = useState(
    () =>
      new SynthesisSession({
        onCharged: () => void queryClient.invalidateQueries({ queryKey: ME_KEY }),
        onError: (error) => {
          if (isApiError(error) && error.status === 401) queryHooks.onUnauthenticated();
        },
      }),
  );
  useEffect(() => () => session.dispose(), [session]);
  const snapshot = useSyncExternalStore(session.subscribe, session.getSnapshot);
  return { session, snapshot };
}
