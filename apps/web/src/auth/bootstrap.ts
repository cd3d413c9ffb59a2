import type { Account } from '@polyvox/contracts';
import { isApiError } from '../api/errors';

export interface BootstrapDeps {
  storedSid: () => string | null;
  saveSid: (sid: string | null) => void;
  fetchMe: () => Promise<Account>;
  createAnonymous: () => Promise<{ account: Account; sid: string }>;
}

export interface BootstrapResult {
  account: Account;
  /** A stored session was refused (401): the user was signed out behind their back. */
  loginFailed: boolean;
}

/**
 * Start-up: confirm the stored session, or create an anonymous account when there is none or the
 * server refuses it. Any other failure (network, 5xx) propagates and keeps the stored sid.
 */
export async function bootstrapSession(deps: BootstrapDeps): Promise<BootstrapResult> {
  let loginFailed = false;
  if (deps.storedSid()) {
    try {
      return { account: await deps.fetchMe(), loginFailed: false };
    } catch (error) {
      if (!isApiError(error) || error.status !== 401) throw error;
      deps.saveSid(null);
      loginFailed = true;
    }
  }
  const created = await deps.createAnonymous();
  deps.saveSid(created.sid);
  return { account: created.account, loginFailed };
}
