import { useEffect, type ReactNode } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { FullPageLoader } from '../components/FullPageLoader';
import { notifyInfo } from '../lib/notify';
import { guardApp, guardPublic, type GuardState } from './guards';
import { signInHandoff } from './handoff';
import { useAccount, useSession } from './hooks';
import { hadStoredSid, session } from './session';
import { useSignIn } from './SignInContext';

function useGuardState(): GuardState {
  const { status } = useSession();
  const { signedIn } = useAccount();
  return { status, signedIn, hasStoredSid: hadStoredSid };
}

/** Home and public pricing: a signed-in user goes to the console instead. */
export function PublicGuard({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const decision = guardPublic(pathname, useGuardState());
  if (decision.kind === 'wait') return <FullPageLoader label={t('session.connecting')} />;
  if (decision.kind === 'redirect') return <Navigate to={signInHandoff.get() ?? decision.to} replace />;
  return children;
}

/** /app/*: a registered account only; otherwise back to the root with the sign-in modal open. */
export function AppGuard({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { pathname, search } = useLocation();
  const navigate = useNavigate();
  const { open: openSignIn } = useSignIn();
  const { loginFailed } = useSession();
  const decision = guardApp(pathname + search, useGuardState());
  const redirectTo = decision.kind === 'redirect' ? decision.to : null;
  const signInTarget = decision.kind === 'redirect' ? decision.signInTarget : undefined;

  useEffect(() => {
    if (redirectTo === null) return;
    if (loginFailed) {
      notifyInfo(t('session.expired'));
      session.acknowledgeLoginFailure();
    }
    if (signInTarget) openSignIn(signInTarget);
    void navigate(redirectTo, { replace: true });
  }, [redirectTo, signInTarget, loginFailed, navigate, openSignIn, t]);

  const arrived = decision.kind === 'render';
  useEffect(() => {
    if (arrived) signInHandoff.clear();
  }, [arrived]);

  if (decision.kind === 'render') return children;
  return <FullPageLoader label={t('session.connecting')} />;
}
