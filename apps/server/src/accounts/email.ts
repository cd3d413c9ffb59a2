import { canonicalEmail, isEmail } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';

/** An address as typed, checked and in its canonical form (trimmed, lower-cased domain): EMAIL_REQUIRED, EMAIL_FORMAT. */
export function normalizeEmail(raw: string | undefined): string {
  const email = (raw ?? '').trim();
  if (!email) throw new AppError('EMAIL_REQUIRED');
  if (!isEmail(email)) throw new AppError('EMAIL_FORMAT');
  return canonicalEmail(email);
}
