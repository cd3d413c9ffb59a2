import type { Socket } from 'node:net';
import { errorMessage, resolveMessageLocale, type MessageLocale } from '@polyvox/contracts';

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

/** The language of whatever part of the request did arrive (`lang` in the target, else Accept-Language), else English. */
function partialRequestLocale(raw: unknown): MessageLocale {
  if (!Buffer.isBuffer(raw)) return 'en';
  const head = raw.subarray(0, 32 * 1024).toString('latin1');
  const lang = /^[A-Z]+ [^ \r\n]*[?&]lang=([A-Za-z-]{2,35})/.exec(head)?.[1] ?? null;
  const accept = /\r\naccept-language:[ \t]*([^\r\n]{1,256})/i.exec(head)?.[1] ?? null;
  return resolveMessageLocale(lang, accept);
}

/**
 * Fastify's `clientErrorHandler`: the request never reached routing (over-long headers, broken framing, too slow),
 * so its language is read from the bytes that did arrive; the answer is still the contract's body with its request id.
 */
export function clientErrorHandler(newRequestId: () => string) {
  return (error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket): void => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, rule] = STATUS_BY_PARSER_CODE.get(error.code ?? '') ?? [400, 'malformed HTTP request'];
    const id = newRequestId();
    const body = JSON.stringify({
      error: {
        code: 'VALIDATION_FAILED',
        message: errorMessage('VALIDATION_FAILED', partialRequestLocale(error.rawPacket), { field: 'request', rule }),
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
