import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MB, sizeLimitText } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';

/** The largest JSON body a route takes; said in FILE_TOO_LARGE's message when a body is over it. */
export const JSON_BODY_LIMIT = 1 * MB;
export const JSON_BODY_LIMIT_TEXT = sizeLimitText(JSON_BODY_LIMIT);

/**
 * An empty body with a JSON content type is an absent body, not malformed JSON: clients such as fetch wrappers send
 * `content-type: application/json` on every call, sign-out included. Routes that need a body still answer
 * PARAMETERS_NEEDED from their schema.
 */
export function acceptEmptyJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parse(request, text, done);
  });
}

type Found = { field: string } | null;

/** The path of the first key or string holding a NUL: PostgreSQL refuses NUL in text, and no field has a use for it. */
function findNul(value: unknown, path: string[], depth = 0): Found {
  if (typeof value === 'string') return value.includes('\u0000') ? { field: path.join('.') || 'body' } : null;
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], [...path, String(i)], depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('\u0000')) return { field: [...path, key.replaceAll('\u0000', '\\0')].join('.') };
    const found = findNul(inner, [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}

/** One guard for every route, before its schema: a NUL anywhere in params, query or body is a 400 naming the field. */
export function refuseNul(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    for (const part of [request.params, request.query, request.body]) refuseNulIn(part);
  });
}

/** Throws VALIDATION_FAILED naming the first field of `value` that holds a NUL: for fields read apart (multipart). */
export function refuseNulIn(value: unknown): void {
  const found = findNul(value, []);
  if (found) throw new AppError('VALIDATION_FAILED', { field: found.field, rule: 'must not contain NUL characters' });
}

/**
 * HTML forms post `application/x-www-form-urlencoded` (the sandbox checkout's buttons): read as a flat object of
 * strings. Object.fromEntries defines every key as an own property, so `__proto__` stays an ordinary key.
 */
export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    done(null, Object.fromEntries(new URLSearchParams(text)));
  });
}

/**
 * An answer that goes out before its request's body was read through (a refusal before an upload is read: no
 * session, a rate limit, an unsupported type, a second file, a body over its limit) closes the connection after it.
 * Kept alive, the connection would wait for the unread rest of the body, and the client's next request on it would
 * hang until the request timeout answered 408. What still arrives until the close is read and dropped, so the
 * client's kernel is not sent a reset while the answer is on its way.
 */
export function closeAfterUnreadBody(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const raw = request.raw;
    if (raw.complete || reply.raw.headersSent) return payload;
    void reply.header('connection', 'close');
    raw.unpipe();
    raw.resume();
    return payload;
  });
}
