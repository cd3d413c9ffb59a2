import { isEmail, LIMITS } from '@polyvox/contracts';

export type EmailProblem = 'EMAIL_REQUIRED' | 'EMAIL_FORMAT';
export type CodeProblem = 'required' | 'format';

export function checkEmail(raw: string): EmailProblem | null {
  const email = raw.trim();
  if (!email) return 'EMAIL_REQUIRED';
  return isEmail(email) ? null : 'EMAIL_FORMAT';
}

const CODE_PATTERN = new RegExp(`^\\d{${LIMITS.codeLength}}$`);

export function checkCode(raw: string): CodeProblem | null {
  const code = raw.trim();
  if (!code) return 'required';
  return CODE_PATTERN.test(code) ? null : 'format';
}

/** Which step submits the form: an anonymous account with a new email is registered in place. */
export function chooseSignInRoute(account: { anonymous: boolean } | undefined, exists: boolean): 'register' | 'signin' {
  return account?.anonymous && !exists ? 'register' : 'signin';
}
