import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { errorMessage, isKnownRule, LIMITS, sizeLimitText, type ErrorCode } from '@polyvox/contracts';
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
  code?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  expected?: string;
  values?: unknown[];
  format?: string;
  divisor?: number;
  keys?: string[];
  params?: Omit<Issue, 'params'> & { issue?: Issue };
  instancePath?: string;
  keyword?: string;
}

/**
 * Turns a schema failure into the contract's codes: a missing field is PARAMETERS_NEEDED, the rest name field and rule.
 * fastify-type-provider-zod reports a zod issue as {keyword, instancePath: '/a/b', message}; zod 4 leaves the input
 * out of its issues, so whether the field was missing is read from the part of the request that failed.
 */
function fromValidation(error: FastifyError, request: FastifyRequest): AppError {
  const first = (error.validation?.[0] ?? {}) as Issue;
  // fastify-type-provider-zod hands the zod issue over as {keyword: code, message, params: the rest}.
  const issue: Issue = first.params?.issue ?? { ...(first.params ?? {}), code: first.keyword, message: first.message };
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
  return new AppError('VALIDATION_FAILED', { field, rule: ruleOf(issue) });
}

/**
 * The rule a zod issue broke, in the fixed English wording that the message catalogue translates (zod's own
 * messages are English only). A schema's own message that the catalogue knows is kept as written.
 */
export function ruleOf(issue: Issue): string {
  if (issue.message && isKnownRule(issue.message)) return issue.message;
  const n = (v: number | bigint | undefined) => String(v ?? '');
  switch (issue.code) {
    case 'too_small':
      if (issue.origin === 'string') return `must be at least ${n(issue.minimum)} characters long`;
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at least ${n(issue.minimum)} items`;
      return issue.inclusive === false ? `must be greater than ${n(issue.minimum)}` : `must be at least ${n(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${n(issue.maximum)} characters long`;
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at most ${n(issue.maximum)} items`;
      return issue.inclusive === false ? `must be less than ${n(issue.maximum)}` : `must be at most ${n(issue.maximum)}`;
    case 'invalid_type':
      return `must be of type ${issue.expected ?? 'unknown'}`;
    case 'invalid_value':
      return `must be one of: ${(issue.values ?? []).map(String).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'has an invalid format' : `must be a valid ${issue.format ?? 'value'}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor ?? ''}`;
    case 'unrecognized_keys':
      return `has unknown fields: ${(issue.keys ?? []).join(', ')}`;
    case 'invalid_union':
    case 'invalid_key':
    case 'invalid_element':
      return 'has an invalid value';
    default:
      return issue.message ?? 'has an invalid value';
  }
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
      return new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(LIMITS.avatarMaxBytes) });
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
