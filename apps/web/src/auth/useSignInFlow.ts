import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { emailExists, registerEmail, sendEmailCode, signInWithEmail, signInWithSms, type AccountWithSid } from '../api/accounts';
import { sendMobileCodeWithWork } from './proof-of-work';
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

/** Where a code goes: an email address, or a phone number (by SMS, with the proof-of-work once the server asks). */
export type SignInMethod = 'email' | 'phone';

export function useSendCode(cooldown: Cooldown, method: SignInMethod = 'email') {
  const { t } = useTranslation();
  return useMutation({
    mutationFn: (to: string) => (method === 'phone' ? sendMobileCodeWithWork(to) : sendEmailCode(to)),
    meta: { silent: true },
    onSuccess: (res, email) => {
      cooldown.start(email, res.resend_after > 0 ? res.resend_after : DEFAULT_RESEND_SECONDS);
      notifyInfo(method === 'phone' ? t('signIn.smsSent', { mobile: email }) : t('signIn.codeSent', { email }));
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
    mutationFn: async ({
      email,
      vcode,
      method = 'email',
    }: {
      email: string;
      vcode: string;
      method?: SignInMethod;
    }): Promise<SubmitResult> => {
      if (method === 'phone') {
        // The server signs in to the number's account, or registers this anonymous account under it in place.
        const result = await signInWithSms(email, vcode);
        return { result, registered: account?.anonymous === true && result.account.id === account.id };
      }
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
      const email = result.account.email ?? result.account.mobile ?? '';
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
