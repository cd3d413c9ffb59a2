import { isSpeechError } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';

/**
 * Speech errors carry contract codes already. Upstream credential or quota problems are the
 * operator's, not the caller's: they answer INTERNAL rather than telling a user their session failed.
 */
export function toAppError(e: unknown): unknown {
  if (!isSpeechError(e)) return e;
  switch (e.code) {
    case 'UNAUTHENTICATED':
    case 'FORBIDDEN':
    case 'INSUFFICIENT_BALANCE':
    case 'INTERNAL':
      return new AppError('INTERNAL', {}, { cause: e });
    case 'RATE_LIMITED': {
      const seconds = Math.max(1, Math.round(e.retryAfter ?? 30));
      return new AppError('RATE_LIMITED', { seconds }, { headers: { 'retry-after': String(seconds) }, cause: e });
    }
    default:
      return new AppError(e.code, e.params, { cause: e });
  }
}

export async function mapSpeechErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw toAppError(e);
  }
}
