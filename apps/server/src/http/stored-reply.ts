import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ByteRange, StoredStream } from '../platform/storage.js';

/**
 * The one byte range of a `Range: bytes=…` header, or undefined: several ranges, other units or a
 * malformed header are ignored (HTTP lets a server answer the whole file instead).
 */
export function requestedRange(request: FastifyRequest): ByteRange | undefined {
  const header = request.headers.range;
  if (typeof header !== 'string') return undefined;
  const m = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim());
  if (!m) return undefined;
  const [, from = '', to = ''] = m;
  if (from === '' && to === '') return undefined;
  if (from === '') return { suffix: Number(to) };
  const start = Number(from);
  if (to === '') return { start };
  const end = Number(to);
  return end >= start ? { start, end } : undefined;
}

/**
 * Sends a stored file as it is read (never whole in memory): 200 with its length, or 206 with
 * `content-range` when a range was served. The storage stream is destroyed if the client leaves.
 */
export function sendStored(
  reply: FastifyReply,
  file: StoredStream,
  headers: { contentType: string; cacheControl: string },
): FastifyReply {
  void reply
    .header('content-type', headers.contentType)
    .header('cache-control', headers.cacheControl)
    .header('accept-ranges', 'bytes');
  if (file.range) {
    const { start, end } = file.range;
    void reply
      .status(206)
      .header('content-range', `bytes ${start}-${end}/${file.size}`)
      .header('content-length', end - start + 1);
  } else {
    void reply.header('content-length', file.size);
  }
  if (reply.request.method === 'HEAD') {
    // Fastify reads a HEAD's stream through to the end (a whole download from a bucket): close it, and
    // hand over an empty one so the content-length above stands.
    file.body.destroy();
    return reply.send(Readable.from([]));
  }
  return reply.send(file.body);
}

/** Sends subtitles made from stored timings as a file to save, named after what they caption (its id). */
export function sendSubtitles(reply: FastifyReply, text: string, format: 'srt' | 'vtt', id: string): FastifyReply {
  return reply
    .header('content-type', format === 'vtt' ? 'text/vtt; charset=utf-8' : 'application/x-subrip; charset=utf-8')
    .header('content-disposition', `attachment; filename="${id.replace(/[^\w-]/g, '')}.${format}"`)
    .header('cache-control', 'private, no-store')
    .send(text);
}
