import { ERROR_STATUS, type ErrorCode } from '@polyvox/contracts';

/** The one error class of the domain: a contract code plus the values its message names. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly params: Record<string, string | number>;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    params: Record<string, string | number> = {},
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(code, { cause: options.cause });
    this.code = code;
    this.params = params;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
