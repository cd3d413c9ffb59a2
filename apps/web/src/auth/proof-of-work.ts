import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/web/sha';
import { fetchChallenge, sendMobileCode } from '../api/accounts';
import { isApiError } from '../api/errors';

/**
 * Solves the server's proof-of-work in the browser (altcha-lib's solver, Web Crypto's SHA-256; no third-party
 * service) and returns the payload `POST /verification/mobile` takes as `challenge`.
 */
export async function solveProofOfWork(): Promise<string> {
  const challenge = (await fetchChallenge()) as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('proof-of-work not solved in time');
  return btoa(JSON.stringify({ challenge, solution }));
}

/**
 * Texts a code to `mobile`. The first codes of the day from an address go at once; past them the server answers
 * CAPTCHA_INCORRECT until the request carries a solved challenge: solved here, then asked again once.
 */
export async function sendMobileCodeWithWork(mobile: string): Promise<{ resend_after: number }> {
  try {
    return await sendMobileCode(mobile);
  } catch (e) {
    if (!isApiError(e) || e.code !== 'CAPTCHA_INCORRECT') throw e;
    return sendMobileCode(mobile, await solveProofOfWork());
  }
}
