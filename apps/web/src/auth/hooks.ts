import { useSyncExternalStore } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Account } from '@polyvox/contracts';
import { fetchMe } from '../api/accounts';
import { session } from './session';
import { ME_KEY, type SessionSnapshot } from './session-controller';

export function useSession(): SessionSnapshot {
  return useSyncExternalStore(session.subscribe, session.getSnapshot);
}

export interface AccountState {
  account: Account | undefined;
  /** A registered account is signed in (anonymous accounts are not). */
  signedIn: boolean;
  isFetching: boolean;
}

export function useAccount(): AccountState {
  const { status } = useSession();
  const query = useQuery({ queryKey: ME_KEY, queryFn: () => fetchMe(), enabled: status === 'ready' });
  const account = status === 'ready' ? query.data : undefined;
  return { account, signedIn: account?.anonymous === false, isFetching: query.isFetching };
}
