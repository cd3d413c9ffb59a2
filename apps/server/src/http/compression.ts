import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Below this a compressed answer saves less than its headers and the CPU cost. */
export const COMPRESS_MIN_BYTES = 1024;

const LARGE_BYTES = 256 * 1024;

/** Text the server writes whole: JSON, HTML, scripts, styles, SVG, plain and event text. Never audio or images. */
const COMPRESSIBLE = /^(application\/(json|javascript|xml|problem\+json)|text\/[a-z-]+|image\/svg\+xml)\b/i;

/**
 * The encoding to answer in: `br` when the client takes it, else `gzip`, else none. Reads `Accept-Encoding` as a
 * list of tokens with optional weights; `q=0` refuses one, and `*` stands for the ones not named.
 */
export function pickEncoding(header: string | undefined): 'br' | 'gzip' | null {
  if (!header) return null;
  const weights = new Map<string, number>();
  for (const item of header.split(',')) {
    const [token = '', ...params] = item.trim().toLowerCase().split(';');
    if (!token) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    weights.set(token, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gz = weightOf('gzip');
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return null;
}

/**
 * Compresses answers the server holds whole (a string or a Buffer: JSON, the API reference page, the OpenAPI
 * document) for a client that accepts br or gzip, off the event loop (zlib's thread pool). A stream is never touched,
 * so audio being streamed is never buffered, and audio and images are never compressed again. Files of the console
 * are sent precompressed by the static plugin, which marks them with their own content-encoding.
 */
export function registerCompression(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (request.method === 'HEAD' || reply.statusCode === 204 || reply.statusCode === 206 || reply.statusCode === 304)
      return payload;
    if (reply.hasHeader('content-encoding')) return payload;
    const type = String(reply.getHeader('content-type') ?? '');
    if (!COMPRESSIBLE.test(type)) return payload;
    const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    if (size < COMPRESS_MIN_BYTES) return payload;
    void reply.header('vary', varyWith(reply.getHeader('vary')));
    const encoding = pickEncoding(request.headers['accept-encoding']);
    if (!encoding) return payload;
    const compressed =
      encoding === 'br'
        ? await brotli(payload, {
            params: {
              // A large text (the reference's 4 MB script) at a cheap level: it is sent whole on every request.
              [zlib.constants.BROTLI_PARAM_QUALITY]: size > LARGE_BYTES ? 1 : 5,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
            },
          })
        : await gzip(payload, { level: size > LARGE_BYTES ? 1 : 6 });
    void reply.header('content-encoding', encoding);
    void reply.removeHeader('content-length');
    return compressed;
  });
}

function varyWith(current: unknown): string {
  const list = String(current ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (list.some((v) => v === '*' || v.toLowerCase() === 'accept-encoding')) return list.join(', ');
  return [...list, 'Accept-Encoding'].join(', ');
}

/** Build files under `assets/` carry their content's hash in their name: a changed file is a new name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Cache headers of the console's files: hashed assets for a year, untouched; everything else (index.html, which
 * names the current assets) revalidated on every use, so a new build is seen at once.
 */
export function staticCacheHeaders(distRoot: string, hashedFolder = 'assets/') {
  const assets = `${distRoot.replace(/[\\/]+$/, '')}/${hashedFolder}`;
  return (res: { setHeader(name: string, value: string): unknown }, filePath: string) => {
    const normalised = filePath.replaceAll('\\', '/');
    res.setHeader('cache-control', normalised.startsWith(assets.replaceAll('\\', '/')) ? IMMUTABLE : 'no-cache');
    res.setHeader('vary', 'Accept-Encoding');
  };
}
