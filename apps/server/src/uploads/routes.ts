import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody, LIMITS, sizeLimitText, UploadResponse } from '@polyvox/contracts';
import type { UploadsService } from './service.js';
import { sessionOf } from '../http/auth.js';
import { requestedRange, sendStored } from '../http/stored-reply.js';
import { AppError, isAppError } from '../platform/errors.js';

export interface UploadRoutesDeps {
  uploads: UploadsService;
}

export function uploadRoutes(deps: UploadRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/uploads',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['accounts'],
          summary: 'Upload an avatar (multipart fields `type=avatar` and `file`; png, jpeg or webp, at most 2 MB)',
          description:
            'Limited per account and per IP per hour (`429 RATE_LIMITED` with `retry-after`). An avatar no account shows is removed after a grace (`AVATAR_KEEP_HOURS`).',
          consumes: ['multipart/form-data'],
          response: { 201: UploadResponse, 400: ErrorBody, 401: ErrorBody, 413: ErrorBody, 415: ErrorBody, 429: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        await deps.uploads.admitAvatar(session.accountId, request.ip);
        if (!request.isMultipart()) throw new AppError('UNSUPPORTED_FILE_TYPE');
        if (!/;\s*boundary=/i.test(request.headers['content-type'] ?? '')) {
          throw new AppError('VALIDATION_FAILED', { field: 'content-type', rule: 'multipart needs a boundary' });
        }
        let type: string | undefined;
        let data: Buffer | undefined;
        try {
          // One byte over the limit is enough to know the file is too large.
          for await (const part of request.parts({ limits: { fileSize: LIMITS.avatarMaxBytes + 1, files: 1, fields: 10 } })) {
            if (part.type === 'field' && part.fieldname === 'type') type = String(part.value);
            if (part.type === 'file' && part.fieldname === 'file') {
              data = await part.toBuffer();
              if (part.file.truncated) throw new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(LIMITS.avatarMaxBytes) });
            } else if (part.type === 'file') part.file.resume();
          }
        } catch (e) {
          // busboy reports broken framing as a plain Error; the multipart plugin's own errors carry a code.
          if (isAppError(e) || (e as { code?: string }).code?.startsWith('FST_')) throw e;
          throw new AppError('VALIDATION_FAILED', { field: 'body', rule: 'malformed multipart body' }, { cause: e });
        }
        if (!data) throw new AppError('PARAMETERS_NEEDED', { field: 'file' });
        if (type !== 'avatar') throw new AppError('VALIDATION_FAILED', { field: 'type', rule: 'must be avatar' });
        return reply.status(201).send(await deps.uploads.saveAvatar(session.accountId, data));
      },
    );

    app.get(
      '/files/:id',
      {
        config: { auth: 'public' },
        schema: { tags: ['accounts'], summary: 'An uploaded avatar', params: z.object({ id: z.string() }) },
      },
      async (request, reply) => {
        const found = await deps.uploads.read(request.params.id, requestedRange(request));
        if (!found) throw new AppError('NOT_FOUND');
        return sendStored(reply, found.file, { contentType: found.mime, cacheControl: 'public, max-age=86400' });
      },
    );
  };
}
