import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody, LIMITS } from '@polyvox/contracts';
import { assertVoiceAllowed, callerOf } from '../http/auth.js';
import { AUDIO_RESPONSE } from '../http/openapi.js';
import { requestLocale } from '../http/locale.js';
import { localizeVoice } from '../voices/display-texts.js';
import type { PlanPrivileges } from '../orders/privileges.js';
import type { VoicesService } from '../voices/service.js';
import type { SynthesisService } from './service.js';
import { AppError } from '../platform/errors.js';
import { chargeOf, speaker } from './routes.js';
import type { Provenance } from '../provenance/service.js';
import { elevenLabsFormat, ELEVENLABS_FORMATS, PCM_RATE } from './elevenlabs-formats.js';
import { G711Encoder, PcmResampler, wavHeader } from './pcm-stream.js';

/**
 * A stream's PCM as an ElevenLabs format asks: resampled to its rate, then as it is, companded to G.711
 * (`ulaw`, `alaw`), or in a WAV header (`wav`: streamed with the header's sizes unknown, as streamed WAV
 * is; whole, with them exact). Returning it returns the synthesis under it (which releases its hold).
 */
async function* reshaped(
  chunks: AsyncGenerator<Buffer, boolean>,
  rate: number,
  resampler: PcmResampler | null,
  encoding: 'pcm' | 'wav' | 'ulaw' | 'alaw',
  stream: boolean,
): AsyncGenerator<Buffer, boolean> {
  const g711 = encoding === 'ulaw' || encoding === 'alaw' ? new G711Encoder(encoding) : null;
  const whole: Buffer[] | null = encoding === 'wav' && !stream ? [] : null;
  let headed = encoding !== 'wav' || !stream;
  const out = (pcm: Buffer): Buffer => {
    const body = g711 ? g711.write(pcm) : pcm;
    if (headed) return body;
    headed = true;
    return Buffer.concat([wavHeader(rate, 0xffffffff - 36), body]);
  };
  try {
    let next = await chunks.next();
    while (!next.done) {
      const pcm = resampler ? resampler.write(next.value) : next.value;
      if (whole) whole.push(pcm);
      else if (pcm.length > 0) {
        const bytes = out(pcm);
        if (bytes.length > 0) yield bytes;
      }
      next = await chunks.next();
    }
    if (next.value === true) {
      const tail = resampler ? resampler.end() : Buffer.alloc(0);
      if (whole) {
        const data = Buffer.concat([...whole, tail]);
        yield Buffer.concat([wavHeader(rate, data.length), data]);
      } else if (tail.length > 0 || !headed) {
        const bytes = out(tail);
        if (bytes.length > 0) yield bytes;
      }
    }
    return next.value;
  } finally {
    await chunks.return(false);
  }
}

const audio = z.string().meta({ description: AUDIO_RESPONSE });
const errors = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody, 429: ErrorBody };

const OutputFormat = z
  .string()
  .max(32)
  .refine((f) => elevenLabsFormat(f) !== null, `must be one of ${ELEVENLABS_FORMATS.join(', ')}`);

/** ElevenLabs' request body; fields this platform has no use for (seed, previous_text …) are accepted and ignored. */
const ElevenLabsSpeechRequest = z.object({
  text: z
    .string()
    .max(LIMITS.maxTextLength * 2)
    .refine((s) => s.trim() !== '', 'must not be empty'),
  model_id: z.string().max(128).optional(),
  language_code: z.string().max(35).nullish(),
  voice_settings: z
    .object({
      stability: z.number().nullish(),
      similarity_boost: z.number().nullish(),
      style: z.number().nullish(),
      use_speaker_boost: z.boolean().nullish(),
      speed: z.number().min(0.5).max(2).nullish(),
    })
    .nullish(),
  output_format: OutputFormat.optional(),
});
const SpeechParams = z.object({ voice_id: z.string().min(1).max(128) });
const SpeechQuery = z
  .object({
    output_format: OutputFormat.optional(),
    enable_logging: z.string().max(8).optional(),
    optimize_streaming_latency: z.string().max(8).optional(),
  })
  .passthrough();

const ElevenLabsVoice = z.object({
  voice_id: z.string(),
  name: z.string(),
  category: z.enum(['premade', 'cloned', 'generated']),
  labels: z.record(z.string(), z.string()),
  description: z.string().nullable(),
  preview_url: z.string().nullable(),
  available_for_tiers: z.array(z.string()),
  high_quality_base_model_ids: z.array(z.string()),
});
const ElevenLabsVoices = z.object({ voices: z.array(ElevenLabsVoice) });

/**
 * ElevenLabs' text-to-speech and voice list, so its official SDK works unchanged against Polyvox with a
 * Polyvox key in `xi-api-key`. Errors carry ElevenLabs' `detail` beside the contract's `error`.
 */
export interface ElevenLabsRoutesDeps {
  synthesis: SynthesisService;
  provenance: Provenance;
  plans: Pick<PlanPrivileges, 'assertTextLength'>;
  voices: Pick<VoicesService, 'load' | 'ownVoices'>;
}

export function elevenLabsRoutes(deps: ElevenLabsRoutesDeps): FastifyPluginAsyncZod {
  const speak = speaker(deps);

  const synthesize = async (
    request: FastifyRequest,
    reply: FastifyReply,
    stream: boolean,
    voiceId: string,
    body: z.infer<typeof ElevenLabsSpeechRequest>,
    query: z.infer<typeof SpeechQuery>,
  ) => {
    const caller = callerOf(request);
    if (!voiceId.startsWith('voice_')) throw new AppError('NOT_FOUND');
    assertVoiceAllowed(caller, voiceId);
    await deps.plans.assertTextLength(caller.accountId, body.text);
    const format = elevenLabsFormat(query.output_format ?? body.output_format ?? 'mp3_44100_128')!;
    const prepared = await deps.synthesis.prepare({
      text: body.text,
      voiceId,
      accountId: caller.accountId,
      format: format.format,
      speed: body.voice_settings?.speed ?? 1,
      pitch: 0,
      ...(body.language_code ? { language: body.language_code } : {}),
    });
    void reply.header('character-cost', String(prepared.characters));
    const { encoding, resampleTo } = format;
    // PCM at another rate, WAV at another rate and G.711 are made from the platform's PCM as it streams
    // (a whole answer is sent in chunks too, as ElevenLabs does).
    if (encoding !== null && (resampleTo !== null || encoding !== 'pcm')) {
      const rate = resampleTo ?? PCM_RATE;
      const shaped = format.contentType ? { ...prepared, contentType: format.contentType } : prepared;
      return speak(
        request,
        reply,
        shaped,
        chargeOf(caller, 'api'),
        true,
        (chunks) => reshaped(chunks, rate, resampleTo === null ? null : new PcmResampler(PCM_RATE, resampleTo), encoding, stream),
        // A WAV answered whole is built whole: signed like any whole WAV.
        encoding === 'wav' && !stream,
      );
    }
    return speak(request, reply, prepared, chargeOf(caller, 'api'), stream);
  };

  return async (app) => {
    // ElevenLabs' SDK reads `detail` from an error body; the contract's `error` stays beside it.
    app.addHook('onSend', async (request, reply, payload) => {
      if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
      try {
        const body = JSON.parse(payload) as { error?: { code: string; message: string } };
        if (!body.error) return payload;
        return JSON.stringify({ ...body, detail: { status: body.error.code.toLowerCase(), message: body.error.message } });
      } catch {
        return payload;
      }
    });

    for (const stream of [false, true]) {
      app.post(
        stream ? '/v1/text-to-speech/:voice_id/stream' : '/v1/text-to-speech/:voice_id',
        {
          config: { auth: 'caller' },
          schema: {
            tags: ['elevenlabs'],
            summary: stream
              ? 'ElevenLabs-compatible streaming speech: the audio arrives in chunks as it is made'
              : "ElevenLabs-compatible speech: ElevenLabs' body and `output_format` (query or body), a Polyvox voice id and key (`xi-api-key`)",
            security: [{ xiApiKey: [] }, { bearer: [] }],
            params: SpeechParams,
            querystring: SpeechQuery,
            body: ElevenLabsSpeechRequest,
            response: { 200: audio, ...errors },
          },
        },
        async (request, reply) => synthesize(request, reply, stream, request.params.voice_id, request.body, request.query),
      );
    }

    app.get(
      '/v1/voices',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['elevenlabs'],
          summary: "ElevenLabs-compatible voice list: the official library (and the account's own voices)",
          security: [{ xiApiKey: [] }, { bearer: [] }],
          response: { 200: ElevenLabsVoices, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const { voices, byId } = await deps.voices.load();
        const locale = requestLocale(request);
        const allowed = caller.key?.voices ? new Set(caller.key.voices) : null;
        // The account's own voices first, as ElevenLabs lists a user's cloned voices, then the library.
        const own = await deps.voices.ownVoices(caller.accountId);
        const entries = [
          ...own.map(({ voice, info }) => ({ v: voice, info })),
          ...voices.map((official) => {
            const info = byId.get(official.id)!.info;
            return { v: localizeVoice(official, info, locale), info };
          }),
        ];
        return {
          voices: entries
            .filter(({ v }) => !allowed || allowed.has(v.id))
            .map(({ v, info }) => {
              return {
                voice_id: v.id,
                name: v.name,
                category: v.source === 'mine' ? ('cloned' as const) : ('premade' as const),
                labels: {
                  gender: v.gender,
                  language: v.languages[0] ?? '',
                  model: v.model,
                  engine: info.engine,
                },
                description: v.description ?? null,
                preview_url: v.preview_url,
                available_for_tiers: [],
                high_quality_base_model_ids: [v.model],
              };
            }),
        };
      },
    );
  };
}
