import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorBody, LIMITS, ProvenanceVerifyResponse, ProvenanceVerifyUrlRequest, sizeLimitText } from '@polyvox/contracts';
import { AppError, isAppError } from '../platform/errors.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { Provenance } from './service.js';
import { verifyAudio, type WatermarkDetector } from './verify.js';

export interface ProvenanceRoutesDeps {
  provenance: Provenance;
  limiter: RateLimiter;
  /** The watermark detector keyed by this server, or null where the engines run elsewhere. */
  detect: WatermarkDetector | null;
  perMinute: number;
  publicUrl: string;
}

/** The file of a multipart body (≤ 20 MB), read into memory: the check needs all of it at once. */
async function multipartFile(request: FastifyRequest): Promise<Buffer> {
  if (!/;\s*boundary=/i.test(request.headers['content-type'] ?? ''))
    throw new AppError('VALIDATION_FAILED', { field: 'content-type', rule: 'multipart needs a boundary' });
  const tooLarge = () =>
    new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(LIMITS.provenanceMaxBytes) }, { headers: { connection: 'close' } });
  let data: Buffer | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: LIMITS.provenanceMaxBytes + 1, files: 1, fields: 5 } })) {
      if (part.type === 'file' && part.fieldname === 'file') {
        data = await part.toBuffer();
        if (part.file.truncated || data.length > LIMITS.provenanceMaxBytes) throw tooLarge();
      } else if (part.type === 'file') part.file.resume();
    }
  } catch (e) {
    if ((e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    // busboy reports broken framing as a plain Error; the multipart plugin's own errors carry a code.
    if (isAppError(e) || (e as { code?: string }).code?.startsWith('FST_')) throw e;
    throw new AppError('VALIDATION_FAILED', { field: 'body', rule: 'malformed multipart body' }, { cause: e });
  }
  if (!data || data.length === 0) throw new AppError('PARAMETERS_NEEDED', { field: 'file' });
  return data;
}

/**
 * One of this server's own files, fetched as the caller would (their session or key goes along, so a file they may
 * not read stays unread): a URL on this server's public address, or a path.
 */
export async function ownFile(app: FastifyInstance, request: FastifyRequest, url: string, publicUrl: string): Promise<Buffer> {
  let target: URL;
  try {
    target = new URL(url, publicUrl);
  } catch {
    throw new AppError('VALIDATION_FAILED', { field: 'url', rule: "must be an address of this server's audio" });
  }
  if (target.origin !== new URL(publicUrl).origin || target.pathname.startsWith('/provenance/'))
    throw new AppError('VALIDATION_FAILED', { field: 'url', rule: "must be an address of this server's audio" });
  const headers: Record<string, string> = {};
  for (const name of ['x-sid', 'cookie', 'authorization', 'xi-api-key', 'accept-language'])
    if (typeof request.headers[name] === 'string') headers[name] = request.headers[name];
  const res = await app.inject({ method: 'GET', url: `${target.pathname}${target.search}`, headers });
  if (res.statusCode === 404 || res.statusCode === 401 || res.statusCode === 403) throw new AppError('NOT_FOUND');
  if (res.statusCode !== 200 || !String(res.headers['content-type'] ?? '').startsWith('audio/'))
    throw new AppError('UNSUPPORTED_FILE_TYPE');
  if (res.rawPayload.length > LIMITS.provenanceMaxBytes)
    throw new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(LIMITS.provenanceMaxBytes) });
  return res.rawPayload;
}

export function provenanceRoutes(deps: ProvenanceRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/provenance/verify',
      {
        config: { auth: 'optional-caller' },
        schema: {
          tags: ['provenance'],
          summary:
            "Check whether audio was made by this server (multipart `file` ≤ 20 MB, or JSON `{url}` of this server's audio)",
          description:
            'No sign-in needed; limited per client address (`429 RATE_LIMITED`). Looks for the watermark in the sound, the GB 45438-2025 `AIGC` field and its integrity code, and the C2PA manifest. `record` only for the account that made the audio.',
          consumes: ['multipart/form-data', 'application/json'],
          response: {
            200: ProvenanceVerifyResponse,
            400: ErrorBody,
            404: ErrorBody,
            413: ErrorBody,
            415: ErrorBody,
            422: ErrorBody,
            429: ErrorBody,
          },
        },
      },
      async (request) => {
        const wait = await deps.limiter.hit(`verify:${request.ip}`, deps.perMinute, 60);
        if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
        let bytes: Buffer;
        if (request.isMultipart()) bytes = await multipartFile(request);
        else {
          // The JSON form (a body schema would keep the multipart parser from the request).
          const body = ProvenanceVerifyUrlRequest.safeParse(request.body);
          if (!body.success) throw new AppError('PARAMETERS_NEEDED', { field: 'file' });
          bytes = await ownFile(app, request, body.data.url, deps.publicUrl);
        }
        let result;
        try {
          result = await verifyAudio(bytes, deps);
        } catch (e) {
          // What ffmpeg cannot read is no audio.
          if (isAppError(e)) throw e;
          throw new AppError('UNSUPPORTED_FILE_TYPE', {}, { cause: e });
        }
        const accountId = request.auth.caller?.accountId ?? request.auth.session?.accountId ?? null;
        const own = accountId ? result.candidates.find((r) => r.account_id === accountId) : undefined;
        const { candidates: _candidates, ...answer } = result;
        return {
          ...answer,
          ...(own
            ? {
                record: {
                  produce_id: own.produce_id,
                  created_at: own.created_at,
                  voice_id: own.voice_id,
                  type: own.record_type,
                  api_key_id: own.api_key_id,
                },
              }
            : {}),
        };
      },
    );
  };
}
