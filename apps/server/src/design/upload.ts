import fs from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import { LIMITS, sizeLimitText } from '@polyvox/contracts';
import { AppError, isAppError } from '../platform/errors.js';
import { PRIVATE_FILE_MODE } from '../platform/storage.js';

/** Room for the multipart framing and the consent field around a file at the limit. */
const FRAMING_ALLOWANCE = 64 * 1024;

/** FILE_TOO_LARGE that also closes the connection, so the rest of the body is never read. */
function tooLarge(): AppError {
  return new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(LIMITS.cloneMaxBytes) }, { headers: { connection: 'close' } });
}

/**
 * Reads a multipart upload of one `file` and its fields, writing the file to `target` as it arrives.
 * Past the limit it stops reading at once (FILE_TOO_LARGE before the body is in) and removes what it
 * wrote; a body whose declared length is already over it is refused before a byte is read.
 */
export async function receiveUpload(
  request: FastifyRequest,
  target: () => Promise<string>,
): Promise<{ file: string | null; size: number; fields: Map<string, string> }> {
  if (!request.isMultipart()) throw new AppError('UNSUPPORTED_FILE_TYPE');
  if (!/;\s*boundary=/i.test(request.headers['content-type'] ?? '')) {
    throw new AppError('VALIDATION_FAILED', { field: 'content-type', rule: 'multipart needs a boundary' });
  }
  const declared = Number(request.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > LIMITS.cloneMaxBytes + FRAMING_ALLOWANCE) {
    request.raw.pause();
    throw tooLarge();
  }
  const fields = new Map<string, string>();
  let file: string | null = null;
  let size = 0;
  try {
    const parts = request.parts({ limits: { fileSize: LIMITS.cloneMaxBytes + 1, files: 1, fields: 10 } });
    for await (const part of parts) {
      if (part.type === 'field') {
        fields.set(part.fieldname, String(part.value));
        continue;
      }
      if (part.fieldname !== 'file') {
        // Another file part is refused at once rather than read through: it could be of any size.
        request.raw.unpipe();
        request.raw.pause();
        throw new AppError(
          'VALIDATION_FAILED',
          { field: part.fieldname, rule: 'field name not allowed' },
          { headers: { connection: 'close' } },
        );
      }
      file = await target();
      const out = await fs.open(file, 'wx', PRIVATE_FILE_MODE);
      try {
        for await (const chunk of part.file as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > LIMITS.cloneMaxBytes) {
            // Stop here: nothing more is read, the connection closes after the answer.
            request.raw.unpipe();
            request.raw.pause();
            throw tooLarge();
          }
          await out.write(chunk);
        }
      } finally {
        await out.close();
      }
    }
  } catch (e) {
    if (file) await fs.rm(file, { force: true });
    if ((e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      request.raw.unpipe();
      request.raw.pause();
      throw tooLarge();
    }
    // busboy reports broken framing as a plain Error; the multipart plugin's own errors carry a code.
    if (isAppError(e) || (e as { code?: string }).code?.startsWith('FST_')) throw e;
    throw new AppError('VALIDATION_FAILED', { field: 'body', rule: 'malformed multipart body' }, { cause: e });
  }
  return { file, size, fields };
}
