import { clearCooldowns } from './useCooldown';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

interface SignInState {
  opened: boolean;
  /** Where to go after signing in; undefined: the dashboard. */
  target: string | undefined;
  open: (target?: string) => void;
  close: () => void;
  /** Changes on every sign-out: the form is rebuilt empty, so nothing of the previous user remains. */
  epoch: number;
  /** Forgets everything typed, ticked or counting down: called on sign-out. */
  reset: () => void;
}

const SignInContext = createContext<SignInState | null>(null);

export function SignInProvider({ children }: { children: ReactNode }) {
  const [opened, setOpened] = useState(false);
  const [target, setTarget] = useState<string | undefined>(undefined);
  const open = useCallback((next?: string) => {
    setTarget(next);
    setOpened(true);
  }, []);
  const [epoch, setEpoch] = useState(0);
  const close = useCallback(() => setOpened(false), []);
  const reset = useCallback(() => {
    setOpened(false);
    setTarget(undefined);
    clearCooldowns();
    setEpoch((e) => e + 1);
  }, []);
  const value = useMemo(() => ({ opened, target, open, close, epoch, reset }), [opened, target, open, close, epoch, reset]);
  return <SignInContext.Provider value={value}>{children}</SignInContext.Provider>;
}

export function useSignIn(): SignInState {
  const ctx = useContext(SignInContext);
  if (!ctx) throw new Error('useSignIn outside SignInProvider');
  return ctx;
}
