import type { Socket } from 'node:net';
import { errorMessage } from '@polyvox/contracts';

/** Node's HTTP parser errors that have a status of their own; any other is a malformed request (400). */
const STATUS_BY_PARSER_CODE = new Map<string, [number, string]>([
  ['HPE_HEADER_OVERFLOW', [431, 'request headers are too large']],
  ['ERR_HTTP_REQUEST_TIMEOUT', [408, 'the request took too long to arrive']],
  ['ERR_HTTP_HEADERS_TIMEOUT', [408, 'the request headers took too long to arrive']],
]);
const REASONS = new Map([
  [400, 'Bad Request'],
  [408, 'Request Timeout'],
  [431, 'Request Header Fields Too Large'],
]);

/**
 * Fastify's `clientErrorHandler`: the request never reached routing (over-long headers, broken framing, too slow),
 * so its language is unknown and the answer is in English, but it is still the contract's body with its request id.
 */
export function clientErrorHandler(newRequestId: () => string) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, rule] = STATUS_BY_PARSER_CODE.get(error.code ?? '') ?? [400, 'malformed HTTP request'];
    const id = newRequestId();
    const body = JSON.stringify({
      error: {
        code: 'VALIDATION_FAILED',
        message: errorMessage('VALIDATION_FAILED', 'en', { field: 'request', rule }),
        request_id: id,
      },
    });
    socket.end(
      `HTTP/1.1 ${status} ${REASONS.get(status) ?? 'Bad Request'}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${id}\r\nconnection: close\r\n\r\n${body}`,
    );
  };
}
