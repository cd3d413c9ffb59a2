import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody, EstimateRequest, EstimateResponse, OpenAISpeechRequest, TtsRequest } from '@polyvox/contracts';
import { requireSession } from '../http/auth.js';
import { AUDIO_RESPONSE } from '../http/openapi.js';
import type { AppContext } from '../context.js';
import { AppError } from '../platform/errors.js';
import { ttsInput, type Charge, type Prepared } from './service.js';
import { openAiVoiceId } from './openai-voices.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 404: ErrorBody, 422: ErrorBody, 429: ErrorBody };
/** Documented as audio by the OpenAPI transform (see http/openapi.ts): the body is bytes, not JSON. */
const audio = z.string().meta({ description: AUDIO_RESPONSE });

/** Sends the stream's first chunk only once it exists, so a failure before any audio is still a clean error. */
async function sendStream(reply: FastifyReply, prepared: Prepared, chunks: AsyncIterable<Buffer>): Promise<FastifyReply> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* rest() {
    try {
      if (!first.done) yield first.value;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  }
  return reply
    .header('content-type', prepared.contentType)
    .header('x-credits-charged', String(prepared.credits))
    .header('x-characters', String(prepared.characters))
    .header('cache-control', 'no-store')
    .send(Readable.from(rest(), { objectMode: false }));
}

export function synthesisRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const speak = async (reply: FastifyReply, prepared: Prepared, charge: Charge, stream: boolean) => {
    if (stream) return sendStream(reply, prepared, await ctx.synthesis.stream(prepared, charge));
    const result = await ctx.synthesis.synthesize(prepared, charge);
    return reply
      .header('content-type', prepared.contentType)
      .header('x-credits-charged', String(prepared.credits))
      .header('x-characters', String(prepared.characters))
      .header('x-audio-duration', result.durationSec.toFixed(3))
      .header('x-cache', result.cached ? 'hit' : 'miss')
      .header(
        'server-timing',
        Object.entries(result.timings)
          .map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`)
          .join(', '),
      )
      .header('cache-control', 'no-store')
      .send(result.audio);
  };

  return async (app) => {
    app.post(
      '/tts',
      {
        schema: {
          tags: ['synthesis'],
          summary: 'Synthesize speech; with `stream: true` the audio arrives in chunks as it is made',
          body: TtsRequest,
          response: { 200: audio, ...errors },
        },
      },
      async (request, reply) => {
        const session = await requireSession(request, ctx.sessions);
        const prepared = await ctx.synthesis.prepare(ttsInput(request.body));
        return speak(reply, prepared, { accountId: session.accountId, recordType: 'tts' }, request.body.stream);
      },
    );

    app.post(
      '/tts/estimate',
      {
        schema: {
          tags: ['synthesis'],
          summary: 'The price of a text before generating',
          body: EstimateRequest,
          response: { 200: EstimateResponse, ...errors },
        },
      },
      async (request) => {
        await requireSession(request, ctx.sessions);
        return {
          ...(await ctx.synthesis.estimate(request.body.text, request.body.voice_id)),
          max_text_length: ctx.limits.maxTextLength,
        };
      },
    );

    app.post(
      '/v1/audio/speech',
      {
        schema: {
          tags: ['synthesis'],
          summary: "OpenAI-compatible speech: OpenAI's voice names map to default voices; our voice ids work too",
          body: OpenAISpeechRequest,
          response: { 200: audio, ...errors },
        },
      },
      async (request, reply) => {
        const session = await requireSession(request, ctx.sessions);
        const body = request.body;
        const requested = typeof body.voice === 'string' ? body.voice : body.voice.id;
        const voiceId = openAiVoiceId(requested) ?? requested;
        if (!voiceId.startsWith('voice_')) throw new AppError('NOT_FOUND');
        const prepared = await ctx.synthesis.prepare({
          text: body.input,
          voiceId,
          format: body.response_format,
          speed: Math.min(2, Math.max(0.5, body.speed)),
          pitch: 0,
        });
        return speak(reply, prepared, { accountId: session.accountId, recordType: 'api' }, true);
      },
    );
  };
}
