import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';

/** Below this a compressed answer saves less than its headers and the CPU cost. */
export const COMPRESS_MIN_BYTES = 1024;

/** Text the server writes whole: JSON, HTML, scripts, styles, SVG, plain and event text. Never audio or images. */
const COMPRESSIBLE = /^(application\/(json|javascript|xml|problem\+json)|text\/[a-z-]+|image\/svg\+xml)\b/i;

/** An answer held whole (a string or a Buffer), of a type worth compressing and as large as that pays. */
function compressible(payload: unknown, type: unknown): payload is string | Buffer {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return false;
  if (!COMPRESSIBLE.test(String(type ?? ''))) return false;
  return (typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length) >= COMPRESS_MIN_BYTES;
}

/**
 * Compresses answers the server holds whole (JSON, the API reference page, the OpenAPI document) for a client that
 * accepts br or gzip (br when it takes both; `q=0` refuses one, `*` stands for the ones not named), by
 * `@fastify/compress`. A stream is never touched, so audio, server-sent events and lines of JSON leave as they are
 * made, and audio and images are never compressed again. Files of the console are sent precompressed by the static
 * plugin, which marks them with their own content-encoding.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  // Runs before the plugin's own onSend (a route's hooks come after the app's): a stream is marked with the request
  // header the plugin reads as "do not compress" (x-no-compression), and an answer whose encoding depends on
  // Accept-Encoding says so (Vary) even when it leaves uncompressed, as a cache must know.
  app.addHook('onSend', async (request, reply, payload) => {
    if (payload !== null && typeof payload === 'object' && !Buffer.isBuffer(payload))
      request.headers['x-no-compression'] = 'stream';
    else if (!reply.hasHeader('content-encoding') && compressible(payload, reply.getHeader('content-type')))
      void reply.header('vary', varyWith(reply.getHeader('vary')));
    return payload;
  });
  await app.register(compress, {
    global: true,
    // Request bodies are read as sent, as before: only answers are compressed.
    globalDecompression: false,
    encodings: ['br', 'gzip'],
    threshold: COMPRESS_MIN_BYTES,
    customTypes: COMPRESSIBLE,
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
  });
}

function varyWith(current: unknown): string {
  const list = String(current ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (list.some((v) => v === '*' || v.toLowerCase() === 'accept-encoding')) return list.join(', ');
  // Lower case, as the plugin writes it (it adds its own unless it finds this spelling).
  return [...list, 'accept-encoding'].join(', ');
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
