import type { Account } from '@polyvox/contracts';
import type { DeviceDescriptor } from './device';
import { http } from './client';

export type { Account };

export interface AccountWithSid {
  account: Account;
  sid: string;
}

export function createAnonymousAccount(device: DeviceDescriptor, referrer?: string): Promise<AccountWithSid> {
  return http('POST', '/accounts/anonymous', {
    json: { channel: 'def_web', device, referrer: referrer || undefined },
    bypassQueue: true,
  });
}

export function fetchMe(options: { bypassQueue?: boolean } = {}): Promise<Account> {
  return http('GET', '/accounts/me', { bypassQueue: options.bypassQueue });
}

export function updateProfile(patch: { name?: string; avatar?: string | null }): Promise<Account> {
  return http('PUT', '/accounts/me', { json: patch });
}

export function uploadAvatar(file: File): Promise<{ id: string; url: string }> {
  const form = new FormData();
  form.append('type', 'avatar');
  form.append('file', file, file.name);
  return http('POST', '/uploads', { form });
}

export async function emailExists(email: string): Promise<boolean> {
  const res = await http<{ exists: boolean }>('GET', '/accounts/exists', { query: { email } });
  return res.exists;
}

export function sendEmailCode(email: string): Promise<{ resend_after: number }> {
  return http('POST', '/verification/email', { json: { email } });
}

export function signInWithEmail(email: string, vcode: string): Promise<AccountWithSid> {
  return http('POST', '/auth/email', { json: { email, vcode } });
}

/** Registers the current anonymous account in place under the email. */
export function registerEmail(email: string, vcode: string): Promise<AccountWithSid> {
  return http('PUT', '/accounts/me/email', { json: { email, vcode } });
}

/** Moves a registered account to a new email: a code from the new address and one from the current address. */
export function changeEmail(email: string, vcode: string, currentVcode: string): Promise<AccountWithSid> {
  return http('PUT', '/accounts/me/email', { json: { email, vcode, current_vcode: currentVcode } });
}

export function endSession(): Promise<void> {
  return http('DELETE', '/accounts/me/session');
}

export async function mobileExists(mobile: string): Promise<boolean> {
  const res = await http<{ exists: boolean }>('GET', '/accounts/exists', { query: { mobile } });
  return res.exists;
}

/** Texts a code; `challenge` is the solved proof-of-work once the server asks for one (`auth/proof-of-work.ts`). */
export function sendMobileCode(mobile: string, challenge?: string): Promise<{ resend_after: number }> {
  return http('POST', '/verification/mobile', { json: { mobile, ...(challenge ? { challenge } : {}) } });
}

export function fetchChallenge(): Promise<unknown> {
  return http('GET', '/verification/challenge');
}

/** Signs in to the number's account, or registers the current anonymous account under it. */
export function signInWithSms(mobile: string, vcode: string): Promise<AccountWithSid> {
  return http('POST', '/auth/sms', { json: { mobile, vcode } });
}

/** Binds a number, or changes it (with a code from the current number too). */
export function bindMobile(mobile: string, vcode: string, currentVcode?: string): Promise<Account> {
  return http('PUT', '/accounts/me/mobile', {
    json: { mobile, vcode, ...(currentVcode ? { current_vcode: currentVcode } : {}) },
  });
}
