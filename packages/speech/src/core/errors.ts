/**
 * The one error class of the package. Its codes are a subset of the HTTP contract's closed list,
 * so the server maps them to a status without a second table.
 */
export const SPEECH_ERROR_CODES = [
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'TEXT_TOO_LONG',
  'LANGUAGE_UNSUPPORTED',
  'MIX_LIMIT',
  'UNSUPPORTED_FILE_TYPE',
  'AUDIO_TOO_SHORT',
  'AUDIO_TOO_LONG',
  'RATE_LIMITED',
  'INSUFFICIENT_BALANCE',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'INTERNAL',
] as const;

export type SpeechErrorCode = (typeof SPEECH_ERROR_CODES)[number];

export class SpeechError extends Error {
  readonly code: SpeechErrorCode;
  readonly params: Record<string, string | number>;
  /** Seconds a caller should wait before retrying (RATE_LIMITED). */
  readonly retryAfter?: number;
  /** The upstream HTTP status, for remote providers. */
  readonly upstreamStatus?: number;

  constructor(
    code: SpeechErrorCode,
    message: string,
    options: {
      params?: Record<string, string | number>;
      retryAfter?: number;
      upstreamStatus?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SpeechError';
    this.code = code;
    this.params = options.params ?? {};
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
    if (options.upstreamStatus !== undefined) this.upstreamStatus = options.upstreamStatus;
  }

  toJSON(): { code: SpeechErrorCode; message: string; params: Record<string, string | number> } {
    return { code: this.code, message: this.message, params: this.params };
  }
}

export function isSpeechError(e: unknown): e is SpeechError {
  return e instanceof SpeechError || (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'SpeechError');
}

/** Rebuilds a SpeechError that crossed a worker boundary as a plain object. */
export function reviveError(e: unknown): Error {
  if (e && typeof e === 'object' && (e as { name?: unknown }).name === 'SpeechError') {
    const o = e as { code: SpeechErrorCode; message: string; params?: Record<string, string | number> };
    return new SpeechError(o.code, o.message, { params: o.params ?? {} });
  }
  if (e instanceof Error) return e;
  return new Error(String(e));
}
