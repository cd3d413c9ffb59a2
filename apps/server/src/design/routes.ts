import fs from 'node:fs/promises';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CreateVoiceRequest,
  ErrorBody,
  PatchVoiceRequest,
  PreviewEstimateResponse,
  PreviewListQuery,
  PreviewListResponse,
  PreviewRequest,
  PreviewResponse,
  SampleListQuery,
  SampleListResponse,
  SampleUploadResponse,
  VoiceIdQuery,
  VoiceSchema,
} from '@polyvox/contracts';
import type { SamplesService } from './samples.js';
import type { PreviewsService } from './previews.js';
import type { OwnVoicesService } from './own-voices.js';
import type { PlanPrivileges } from '../orders/privileges.js';
import { sessionOf } from '../http/auth.js';
import { AppError } from '../platform/errors.js';
import { requestedRange, sendStored, sendSubtitles } from '../http/stored-reply.js';
import { SUBTITLE_FORMATS } from '@polyvox/speech';
import { abandon, clientLeaves, whenClientLeaves } from '../http/client-leaves.js';
import { receiveUpload } from './upload.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody };

export interface DesignRoutesDeps {
  design: { samples: SamplesService; previews: PreviewsService; ownVoices: OwnVoicesService };
  plans: Pick<PlanPrivileges, 'ownVoiceRoom'>;
  /** Real-name users (REAL_NAME=phone): cloning and designing need a verified phone number. */
  realName: { assert(accountId: string): Promise<void> };
}

export function designRoutes(deps: DesignRoutesDeps): FastifyPluginAsyncZod {
  const { samples, previews, ownVoices } = deps.design;
  return async (app) => {
    app.post(
      '/files_upload',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary:
            'Upload a voice sample to clone (multipart `file`: mp3, m4a or wav judged from its bytes, at most 20 MB, 10 s to 5 min; field `consent=true`: you have the right to clone this voice)',
          consumes: ['multipart/form-data'],
          querystring: z.object({ type: z.enum(['clone']) }).passthrough(),
          response: { 201: SampleUploadResponse, ...errors, 413: ErrorBody, 415: ErrorBody, 429: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        await deps.realName.assert(session.accountId);
        await samples.admit(session.accountId);
        const { file, fields } = await receiveUpload(request, () => samples.tempFile());
        let saved;
        try {
          if (!file) throw new AppError('PARAMETERS_NEEDED', { field: 'file' });
          if (fields.get('consent') !== 'true')
            throw new AppError('VALIDATION_FAILED', { field: 'consent', rule: 'must be true' });
          saved = await samples.save(session.accountId, file, { ip: request.ip });
        } finally {
          // Gone before the answer: the temp folder only ever holds uploads in progress.
          if (file) await fs.rm(file, { force: true });
        }
        return reply.status(201).send(saved);
      },
    );

    app.get(
      '/files',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary:
            "The account's uploaded voice samples (`type=clone`), newest first, with index, format, size, duration and audio address",
          querystring: SampleListQuery,
          response: { 200: SampleListResponse, 400: ErrorBody, 401: ErrorBody },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        return samples.list(session.accountId, request.query.page, request.query.page_size);
      },
    );

    app.get(
      '/files/:id/audio',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary:
            'A voice sample as it was uploaded (mp3, m4a or wav), for the account that uploaded it; byte ranges for seeking',
          params: z.object({ id: z.string().max(100) }),
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        const { file, contentType } = await samples.audio(session.accountId, request.params.id, requestedRange(request));
        return sendStored(reply, file, { contentType, cacheControl: 'private, max-age=3600' });
      },
    );

    app.post(
      '/voice/previews/estimate',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary:
            "The price of a preview request before it is made (the body of `POST /voice/previews`): per model, the total it will charge, the activation fee of a version, and the plan's room for own voices; nothing is charged",
          body: PreviewRequest,
          response: { 200: PreviewEstimateResponse, ...errors },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        const estimate = await previews.estimate(session.accountId, request.body);
        return { ...estimate, own_voices: await deps.plans.ownVoiceRoom(session.accountId) };
      },
    );

    app.post(
      '/voice/previews',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary:
            'Preview a mixed, designed (prompt) or cloned voice, charged as an audio preview; each is a numbered version, the newest 50 are kept. `models` previews on up to 3 models at once, each its own version and charge.',
          body: PreviewRequest,
          response: { 201: PreviewResponse, ...errors, 402: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        await deps.realName.assert(session.accountId);
        const left = clientLeaves(request, reply);
        let made;
        try {
          made = await previews.create(session.accountId, request.body, left);
        } catch (e) {
          if (left.aborted) return abandon(request, reply);
          throw e;
        }
        if (left.aborted) {
          await made.discard('client left before the preview');
          return abandon(request, reply);
        }
        // Paid once the answer is out; a client that leaves before has neither the versions nor the charge.
        const logFailure = (err: unknown) => request.log.error({ err }, 'closing a preview hold failed');
        reply.raw.once('finish', () => void made.settle().catch(logFailure));
        whenClientLeaves(request, reply, () => void made.discard('client left during the answer').catch(logFailure));
        const [first] = made.items;
        return reply.status(201).send({ ...first!, items: made.items });
      },
    );

    app.get(
      '/voice/previews',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary: "The account's preview versions, newest first, with what made each",
          querystring: PreviewListQuery,
          response: { 200: PreviewListResponse, 400: ErrorBody, 401: ErrorBody },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        return previews.list(session.accountId, request.query.page, request.query.page_size);
      },
    );

    app.get(
      '/voice/previews/:id/audio',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary: "A preview's audio (mp3), for the account that made it",
          params: z.object({ id: z.string().max(100) }),
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        const audio = await previews.audio(session.accountId, request.params.id, requestedRange(request));
        return sendStored(reply, audio, { contentType: 'audio/mpeg', cacheControl: 'private, max-age=3600' });
      },
    );

    app.get(
      '/voice/previews/:id/subtitles',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary: "A preview's subtitles, for the account that made it",
          description:
            'The preview text as SubRip (`srt`) or WebVTT (`vtt`, a timestamp tag before each word after a cue’s first), ' +
            'timed to the preview’s audio; the console lights each word as the preview plays. A preview whose voice has ' +
            'no timings (a language eSpeak NG does not speak, on an engine without word times) has none: 404.',
          params: z.object({ id: z.string().max(100) }),
          querystring: z.object({ format: z.enum(SUBTITLE_FORMATS).default('vtt') }),
          response: { 200: z.string(), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        const { format } = request.query;
        const text = await previews.subtitles(session.accountId, request.params.id, format);
        return sendSubtitles(reply, text, format, request.params.id);
      },
    );

    app.put(
      '/voice',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary:
            'Save a mix (`type: mix`, 1 to 3 voices of one mixable model) or activate a prompt or clone voice from one of your previews (its activation fee is charged with it); 403 beyond the number of own voices of the plan',
          body: CreateVoiceRequest,
          response: { 201: VoiceSchema, ...errors, 402: ErrorBody, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        await deps.realName.assert(session.accountId);
        const body = request.body;
        const voice =
          body.type === 'mix'
            ? await ownVoices.createMix(session.accountId, body)
            : await ownVoices.activate(session.accountId, { type: body.type, name: body.name, preview_id: body.preview_id });
        return reply.status(201).send(voice);
      },
    );

    app.patch(
      '/voice',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary: "Rename one of your voices or change a mix's voices; an activated voice's prompt or sample cannot change",
          body: PatchVoiceRequest,
          response: { 200: VoiceSchema, ...errors, 403: ErrorBody },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        return ownVoices.patch(session.accountId, request.body);
      },
    );

    app.delete(
      '/voice',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['voice design'],
          summary:
            'Delete one of your voices with its audio, previews and sample (a clone’s sample and consent are kept for the operator for VOICE_RETENTION_DAYS); official voices cannot be deleted',
          querystring: VoiceIdQuery.passthrough(),
          response: { 204: z.null(), ...errors, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        if (!request.query.id) throw new AppError('PARAMETERS_NEEDED', { field: 'id' });
        await ownVoices.delete(session.accountId, request.query.id);
        return reply.status(204).send(null);
      },
    );
  };
}
