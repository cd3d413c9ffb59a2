import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

interface SignInState {
  opened: boolean;
  /** Where to go after signing in; undefined: the dashboard. */
  target: string | undefined;
  open: (target?: string) => void;
  close: () => void;
}

const SignInContext = createContext<SignInState | null>(null);

export function SignInProvider({ children }: { children: ReactNode }) {
  const [opened, setOpened] = useState(false);
  const [target, setTarget] = useState<string | undefined>(undefined);
  const open = useCallback((next?: string) => {
    setTarget(next);
    setOpened(true);
  }, []);
  const close = useCallback(() => setOpened(false), []);
  const value = useMemo(() => ({ opened, target, open, close }), [opened, target, open, close]);
  return <SignInContext.Provider value={value}>{children}</SignInContext.Provider>;
}

export function useSignIn(): SignInState {
  const ctx = useContext(SignInContext);
  if (!ctx) throw new Error('useSignIn outside SignInProvider');
  return ctx;
}
