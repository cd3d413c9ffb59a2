import type { IncomingMessage } from 'node:http';
import { newId } from '../platform/ids.js';

/**
 * What an incoming `x-request-id` may be to be kept: a load balancer's or a client's id (UUIDs, `req_…`, trace ids),
 * at most 128 characters, no spaces, quotes or control characters, so it is safe in a log line and a header.
 */
const ACCEPTED = /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,127}$/;

/**
 * The id of a request: the caller's `x-request-id` when it is one we can carry (so a proxy's id follows the request
 * through our logs), else a new `req_…`. Fastify binds it to every log line of the request and it is echoed in the
 * `x-request-id` header and in error bodies.
 */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && ACCEPTED.test(given)) return given;
  return newId('request');
}
