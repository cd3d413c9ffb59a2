import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorMessage, ErrorBody, TtsJobRequest, TtsJobSchema } from '@polyvox/contracts';
import { sessionOf } from '../../http/auth.js';
import type { PlanPrivileges } from '../../orders/privileges.js';
import { requestLocale } from '../../http/locale.js';
import { requestedRange, sendStored, sendSubtitles } from '../../http/stored-reply.js';
import type { Job, SynthesisJobs } from './service.js';
import { pricedCharacters, ttsInput } from '../input.js';
import type { SynthesisService } from '../service.js';
import { fallbackHeader } from '../route-helpers.js';
import { SUBTITLE_FORMATS } from '@polyvox/speech';

const errors = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 404: ErrorBody, 422: ErrorBody, 429: ErrorBody };

function view(job: Job, locale: Parameters<typeof errorMessage>[1]) {
  return {
    id: job.id,
    status: job.status,
    progress: job.progress,
    credits: job.credits,
    characters: job.characters,
    audio_url: job.status === 'succeeded' ? `/tts/jobs/${job.id}/audio` : null,
    error: job.error ? { code: job.error.code, message: errorMessage(job.error.code, locale, job.error.params) } : null,
    created_at: job.createdAt,
    finished_at: job.finishedAt,
  };
}

export interface JobRoutesDeps {
  jobs: SynthesisJobs;
  synthesis: Pick<SynthesisService, 'prepare'>;
  plans: Pick<PlanPrivileges, 'assertTextLength'>;
}

export function jobRoutes(deps: JobRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/tts/jobs',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['synthesis'],
          summary: 'Synthesize a long text as a job with progress; its price is held at once',
          body: TtsJobRequest,
          response: { 202: TtsJobSchema, ...errors },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        // A job is how a long text runs with progress, not a way around the plan's limit: the same limit applies.
        const body = request.body;
        await deps.plans.assertTextLength(session.accountId, body.text, pricedCharacters(body.text, body.text_type));
        // Timed when the voice can be (subtitles are asked for later): the price is the same.
        const prepared = await deps.synthesis.prepare({
          ...ttsInput(request.body, session.accountId),
          route: 'jobs',
          timings: request.body.timestamps ? true : 'auto',
        });
        const job = await deps.jobs.create(prepared, { accountId: session.accountId, recordType: 'tts' }, request.id);
        fallbackHeader(reply, prepared);
        return reply.status(202).send(view(job, requestLocale(request)));
      },
    );

    app.get(
      '/tts/jobs',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['synthesis'],
          summary: "The caller's synthesis jobs, newest first",
          querystring: z.object({
            page: z.coerce.number().int().min(1).default(1),
            page_size: z.coerce.number().int().min(1).max(100).default(20),
          }),
          response: { 200: z.object({ items: z.array(TtsJobSchema), total: z.number().int() }), 400: ErrorBody, 401: ErrorBody },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        const { items, total } = await deps.jobs.list(session.accountId, request.query.page, request.query.page_size);
        const locale = requestLocale(request);
        return { items: items.map((job) => view(job, locale)), total };
      },
    );

    app.delete(
      '/tts/jobs/:id',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['synthesis'],
          summary: 'Cancels a job that has not finished; its hold is released',
          params: z.object({ id: z.string() }),
          response: { 200: TtsJobSchema, 401: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        return view(await deps.jobs.cancel(request.params.id, session.accountId), requestLocale(request));
      },
    );

    app.get(
      '/tts/jobs/:id',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['synthesis'],
          summary: 'A synthesis job and its progress',
          params: z.object({ id: z.string() }),
          response: { 200: TtsJobSchema, 401: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        return view(await deps.jobs.get(request.params.id, session.accountId), requestLocale(request));
      },
    );

    app.get(
      '/tts/jobs/:id/audio',
      {
        config: { auth: 'session' },
        schema: { tags: ['synthesis'], summary: "A finished job's audio", params: z.object({ id: z.string() }) },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        const audio = await deps.jobs.audio(request.params.id, session.accountId, requestedRange(request));
        return sendStored(reply, audio.file, { contentType: audio.contentType, cacheControl: 'private, no-store' });
      },
    );

    app.get(
      '/tts/jobs/:id/subtitles',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['synthesis'],
          summary: "A finished job's subtitles",
          description:
            "SubRip (`srt`) or WebVTT (`vtt`, with a timestamp tag before each word after a cue's first). Cues end at " +
            'sentence ends, hold at most two lines of about 42 characters and stay at most 7 s on screen. A job whose ' +
            'voice has no timings (a language eSpeak NG does not speak, on an engine without word times) has none: 404.',
          params: z.object({ id: z.string() }),
          querystring: z.object({ format: z.enum(SUBTITLE_FORMATS).default('srt') }),
          response: { 200: z.string(), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        const { format } = request.query;
        const text = await deps.jobs.subtitles(request.params.id, session.accountId, format);
        return sendSubtitles(reply, text, format, request.params.id);
      },
    );
  };
}
