import { ERROR_STATUS, type ErrorCode } from '@polyvox/contracts';

/** The one error class of the domain: a contract code plus the values its message names. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly params: Record<string, string | number>;
  readonly headers: Record<string, string>;
  /** The code's status unless a route answers the same code with another (a stale write: 409). */
  private readonly statusOverride: number | undefined;

  constructor(
    code: ErrorCode,
    params: Record<string, string | number> = {},
    options: { headers?: Record<string, string>; cause?: unknown; status?: number } = {},
  ) {
    super(code, { cause: options.cause });
    this.code = code;
    this.params = params;
    this.headers = options.headers ?? {};
    this.statusOverride = options.status;
  }

  get status(): number {
    return this.statusOverride ?? ERROR_STATUS[this.code];
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
