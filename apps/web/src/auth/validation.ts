import { isEmail } from '@polyvox/contracts';

export type EmailProblem = 'EMAIL_REQUIRED' | 'EMAIL_FORMAT';
export type CodeProblem = 'required' | 'format';

export function checkEmail(raw: string): EmailProblem | null {
  const email = raw.trim();
  if (!email) return 'EMAIL_REQUIRED';
  return isEmail(email) ? null : 'EMAIL_FORMAT';
}

/** The seed's rule: a code is worth sending when it is longer than 3 characters once trimmed; the server judges the rest. */
const MIN_CODE_LENGTH = 4;

export function checkCode(raw: string): CodeProblem | null {
  const code = raw.trim();
  if (!code) return 'required';
  return code.length >= MIN_CODE_LENGTH ? null : 'format';
}

/** Which step submits the form: an anonymous account with a new email is registered in place. */
export function chooseSignInRoute(account: { anonymous: boolean } | undefined, exists: boolean): 'register' | 'signin' {
  return account?.anonymous && !exists ? 'register' : 'signin';
}
