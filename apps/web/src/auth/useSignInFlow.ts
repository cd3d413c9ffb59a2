import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { emailExists, registerEmail, sendEmailCode, signInWithEmail, type AccountWithSid } from '../api/accounts';
import { isApiError } from '../api/errors';
import { queryClient } from '../lib/query-client';
import { notifyError, notifyInfo, notifySuccess } from '../lib/notify';
import { afterSignIn } from './guards';
import { signInHandoff } from './handoff';
import { useAccount } from './hooks';
import { session } from './session';
import { ME_KEY } from './session-controller';
import { useSignIn } from './SignInContext';
import type { Cooldown } from './useCooldown';
import { chooseSignInRoute } from './validation';

/** The server keeps registration's side effects (grants, merges) coming for a moment: look again. */
export const REFRESH_AFTER_REGISTER_MS = 5000;
const DEFAULT_RESEND_SECONDS = 60;

export function useSendCode(cooldown: Cooldown) {
  const { t } = useTranslation();
  return useMutation({
    mutationFn: (email: string) => sendEmailCode(email),
    meta: { silent: true },
    onSuccess: (res, email) => {
      cooldown.start(email, res.resend_after > 0 ? res.resend_after : DEFAULT_RESEND_SECONDS);
      notifyInfo(t('signIn.codeSent', { email }));
    },
    onError: (error, email) => {
      if (isApiError(error) && error.code === 'CODE_COOLDOWN') {
        cooldown.start(email, error.retryAfter ?? DEFAULT_RESEND_SECONDS);
      }
      notifyError(error);
    },
  });
}

interface SubmitResult {
  result: AccountWithSid;
  registered: boolean;
}

export function useSubmitSignIn(onDone: () => void) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { account } = useAccount();
  const { target, close } = useSignIn();

  return useMutation({
    mutationFn: async ({ email, vcode }: { email: string; vcode: string }): Promise<SubmitResult> => {
      const exists = account?.anonymous ? await emailExists(email) : true;
      if (chooseSignInRoute(account, exists) === 'register') {
        return { result: await registerEmail(email, vcode), registered: true };
      }
      return { result: await signInWithEmail(email, vcode), registered: false };
    },
    onSuccess: ({ result, registered }) => {
      const to = afterSignIn(target);
      signInHandoff.set(to);
      session.adopt(result);
      const email = result.account.email ?? '';
      if (registered) {
        setTimeout(() => void queryClient.invalidateQueries({ queryKey: ME_KEY }), REFRESH_AFTER_REGISTER_MS);
        notifySuccess(t('signIn.registered', { email }));
      } else {
        notifySuccess(t('signIn.welcomeBack', { email }));
      }
      onDone();
      close();
      void navigate(to);
    },
  });
}
