/**
 * What arrives on a realtime socket, read and checked before the session acts on it (the size of a message, its JSON,
 * its fields against `ClientMessage`), and the errors and close codes that end a socket. No socket, no state.
 */
import { errorMessage, type ErrorCode, type MessageLocale } from '@polyvox/contracts';
import { AppError } from '../../platform/errors.js';
import { ClientMessage, MAX_MESSAGE_CHARS } from './protocol.js';

/** WebSocket close codes. */
export const NORMAL = 1000;
export const POLICY = 1008;
export const TOO_BIG = 1009;
export const FAILED = 1011;

/** A client that does not read what it is sent: the socket is closed, every hold released. */
export const UNREAD_FIELD = 'socket';
export const unread = (rule: string): AppError => new AppError('VALIDATION_FAILED', { field: UNREAD_FIELD, rule });
export const isUnread = (e: AppError): boolean => e.code === 'VALIDATION_FAILED' && e.params.field === UNREAD_FIELD;

/** Errors after which nothing more can be spoken on the socket: it is closed. */
export const FATAL = new Set<ErrorCode>(['INSUFFICIENT_BALANCE', 'KEY_LIMIT_REACHED', 'RATE_LIMITED', 'INTERNAL', 'FORBIDDEN']);

/** A message that cannot be taken: its error, and the close code when it is not the usual one. */
export interface Refused {
  error: AppError;
  code?: number;
}

/** A client's message read and checked: the message, a refusal (answered with an error and a close), or null (a blank binary frame, ignored). */
export function readClientMessage(
  data: Buffer | ArrayBuffer | Buffer[],
  isBinary: boolean,
): { message: ClientMessage } | Refused | null {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
  if (bytes.length > MAX_MESSAGE_CHARS * 4)
    return {
      error: new AppError('VALIDATION_FAILED', {
        field: 'message',
        rule: `must be at most ${MAX_MESSAGE_CHARS} characters long`,
      }),
      code: TOO_BIG,
    };
  const text = bytes.toString('utf8');
  if (text.length > MAX_MESSAGE_CHARS)
    return {
      error: new AppError('VALIDATION_FAILED', {
        field: 'message',
        rule: `must be at most ${MAX_MESSAGE_CHARS} characters long`,
      }),
      code: TOO_BIG,
    };
  if (isBinary && text.trim() === '') return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { error: new AppError('VALIDATION_FAILED', { field: 'message', rule: 'must be valid JSON' }) };
  }
  const parsed = ClientMessage.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.join('.') : 'message';
    return { error: new AppError('VALIDATION_FAILED', { field, rule: issue.message }) };
  }
  return { message: parsed.data };
}

/** An error message as the socket sends it: the contract's code and message in the socket's language, and the request. */
export function errorBody(error: AppError, locale: MessageLocale, requestId: string): Record<string, unknown> {
  const message = errorMessage(error.code, locale, error.code === 'INTERNAL' ? {} : error.params);
  return { error: error.code, message, code: error.status, request_id: requestId };
}

/** A close's reason, at most 123 bytes: the code, and the start of the message (never a broken character). */
export function closeReason(code: ErrorCode, message: string): string {
  return Buffer.from(`${code}: ${message}`)
    .subarray(0, 120)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/** What a socket or a context that got no text for `seconds` fails with. */
export const idleError = (seconds: number): AppError =>
  new AppError('VALIDATION_FAILED', { field: 'text', rule: `no text for ${seconds} seconds` });
