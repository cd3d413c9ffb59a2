import { ERROR_CODES, errorMessage, type ErrorCode, type MessageLocale } from '@polyvox/contracts';

/** A failed request: the server's error body, or NETWORK when no answer came. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  /** Seconds to wait, from the `retry-after` header (CODE_COOLDOWN, RATE_LIMITED). */
  readonly retryAfter: number | undefined;
  /** The localized text the server sent, possibly empty. */
  readonly serverMessage: string;

  constructor(init: { status: number; code: string; message: string; requestId?: string; retryAfter?: number }) {
    super(init.message || init.code);
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.serverMessage = init.message;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

export function isErrorCode(code: string): code is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code);
}

/** `retry-after` is either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The text to show for a failed request: the server's own (already localized) message first,
 * then the contract's catalogue for its code, then a generic line.
 */
export function describeError(error: unknown, locale: MessageLocale, networkText: string): string {
  if (isApiError(error)) {
    if (error.code === 'NETWORK') return networkText;
    if (error.serverMessage) return error.serverMessage;
    if (isErrorCode(error.code)) {
      return errorMessage(error.code, locale, error.retryAfter !== undefined ? { seconds: error.retryAfter } : {});
    }
  }
  return errorMessage('INTERNAL', locale);
}
