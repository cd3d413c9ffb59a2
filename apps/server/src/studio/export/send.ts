/**
 * How an export leaves: its first chunk is made before any header is sent (a snapshot whose audio is missing, or an
 * encoder that fails at once, is still a clean error in the request's language), then the rest as it is made. A
 * client that leaves stops the making; nothing more is written and nothing is logged as an error.
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { abandon } from '../../http/client-leaves.js';

/** `attachment` with an ASCII name and the UTF-8 one (RFC 6266), for titles in any script. */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export interface ExportAnswer {
  contentType: string;
  fileName: string;
}

/** Sends the chunks as a download once the first exists; a chunk generator that returns false ends the response broken. */
export async function sendExport(
  request: FastifyRequest,
  reply: FastifyReply,
  left: AbortSignal,
  chunks: AsyncGenerator<Buffer, boolean>,
  answer: ExportAnswer,
): Promise<FastifyReply> {
  let first: IteratorResult<Buffer, boolean>;
  try {
    first = await chunks.next();
  } catch (e) {
    await chunks.return(false).catch(() => false);
    if (left.aborted) return abandon(request, reply);
    throw e;
  }
  if (left.aborted) {
    await chunks.return(false).catch(() => false);
    return abandon(request, reply);
  }
  async function* rest(): AsyncGenerator<Buffer> {
    let next = first;
    try {
      while (!next.done) {
        yield next.value;
        next = await chunks.next();
      }
      if (next.value !== true) throw new Error('export stopped before its end');
    } finally {
      await chunks.return(false);
    }
  }
  return reply
    .header('content-type', answer.contentType)
    .header('content-disposition', attachment(answer.fileName))
    .header('x-credits-charged', '0')
    .header('cache-control', 'private, no-store')
    .send(Readable.from(rest(), { objectMode: false }));
}

/** A stream of bytes as chunks that end `true` when it ended whole. */
export async function* chunksOf(stream: Readable): AsyncGenerator<Buffer, boolean> {
  try {
    for await (const chunk of stream) yield chunk as Buffer;
    return true;
  } finally {
    stream.destroy();
  }
}
