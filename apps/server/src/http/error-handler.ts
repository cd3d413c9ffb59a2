import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { errorMessage, LIMITS, type ErrorCode } from '@polyvox/contracts';
import { AppError, isAppError } from '../platform/errors.js';
import { requestLocale } from './locale.js';
import { JSON_BODY_LIMIT_TEXT } from './body.js';

/** Fastify names the failing part by its schema key; the parsed values sit on the request under these names. */
const REQUEST_PART = new Map([
  ['body', 'body'],
  ['querystring', 'query'],
  ['params', 'params'],
  ['headers', 'headers'],
]);

interface Issue {
  path?: PropertyKey[];
  message?: string;
  params?: { issue?: Issue };
  instancePath?: string;
}

/**
 * Turns a schema failure into the contract's codes: a missing field is PARAMETERS_NEEDED, the rest name field and rule.
 * fastify-type-provider-zod reports a zod issue as {keyword, instancePath: '/a/b', message}; zod 4 leaves the input
 * out of its issues, so whether the field was missing is read from the part of the request that failed.
 */
function fromValidation(error: FastifyError, request: FastifyRequest): AppError {
  const first = (error.validation?.[0] ?? {}) as Issue;
  const issue = first.params?.issue ?? first;
  const path = issue.path?.map(String) ?? (first.instancePath ?? '').split('/').filter(Boolean);
  const field = path.join('.') || 'body';
  const partName = REQUEST_PART.get(error.validationContext ?? '');
  const part = partName ? (request as unknown as Record<string, unknown>)[partName] : undefined;
  const value = path.reduce<unknown>(
    (v, key) => (v !== null && typeof v === 'object' && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined),
    part,
  );
  // Absent is missing whatever zod calls it (invalid_type for a string, invalid_value for an enum).
  if (value === undefined || (path.length === 0 && value === null)) return new AppError('PARAMETERS_NEEDED', { field });
  return new AppError('VALIDATION_FAILED', { field, rule: issue.message ?? 'invalid' });
}

/** Maps framework errors (bad JSON, body too large, media type) onto the closed list. */
function fromFramework(error: FastifyError): AppError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('PARAMETERS_NEEDED', { field: 'body' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_FAILED', { field: 'body', rule: 'must be valid JSON' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('FILE_TOO_LARGE', { limit: JSON_BODY_LIMIT_TEXT });
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError('FILE_TOO_LARGE', { limit: `${LIMITS.avatarMaxBytes / (1024 * 1024)} MB` });
    case 'FST_FILES_LIMIT':
      return new AppError('VALIDATION_FAILED', { field: 'file', rule: 'one file at most' });
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new AppError('VALIDATION_FAILED', { field: 'body', rule: 'too many multipart fields' });
    case 'FST_PROTO_VIOLATION':
      return new AppError('VALIDATION_FAILED', { field: 'body', rule: 'field name not allowed' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError('UNSUPPORTED_FILE_TYPE');
    default:
      break;
  }
  if (error.statusCode === 429) return new AppError('RATE_LIMITED', { seconds: 60 });
  if (error.statusCode === 404) return new AppError('NOT_FOUND');
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('VALIDATION_FAILED', { field: 'request', rule: error.message });
  }
  return null;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  const code: ErrorCode = error.code;
  // INTERNAL's template has no placeholders, so no detail of the failure can reach the body.
  const message = errorMessage(code, requestLocale(request), code === 'INTERNAL' ? {} : error.params);
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  // A route may have set an audio type before failing; the error body is JSON whatever it set.
  return reply
    .status(error.status)
    .type('application/json; charset=utf-8')
    .send({ error: { code, message, request_id: request.id } });
}

/** The one error handler; also Fastify's `frameworkErrors` (bad URL, over-long parameter), which skip the hooks. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // A client that left is not an error of ours: there is no one to answer and nothing to log as one.
  if (reply.raw.destroyed || request.raw.socket?.destroyed) {
    request.log.info({ err: error }, 'client left before the response');
    reply.hijack();
    return reply;
  }
  if (isAppError(error)) return sendError(request, reply, error);
  if (hasZodFastifySchemaValidationErrors(error) || error.validation)
    return sendError(request, reply, fromValidation(error, request));
  const mapped = fromFramework(error);
  if (mapped) return sendError(request, reply, mapped);
  request.log.error({ err: error }, 'unexpected error');
  return sendError(request, reply, new AppError('INTERNAL'));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => sendError(request, reply, new AppError('NOT_FOUND')));
}
