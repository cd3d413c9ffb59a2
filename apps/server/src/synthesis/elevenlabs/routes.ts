import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApplyTextNormalization, ErrorBody, LIMITS, PronunciationLocators } from '@polyvox/contracts';
import { assertVoiceAllowed, callerOf } from '../../http/auth.js';
import { AUDIO_RESPONSE, NDJSON_MARK } from '../../http/openapi.js';
import { requestLocale } from '../../http/locale.js';
import { addElevenLabsErrorDetail } from '../../http/error-detail.js';
import { localizeVoice } from '../../voices/display-texts.js';
import type { PlanPrivileges } from '../../orders/privileges.js';
import type { VoicesService } from '../../voices/service.js';
import type { SynthesisService } from '../service.js';
import { pricedCharacters } from '../input.js';
import { AppError } from '../../platform/errors.js';
import { chargeOf, speaker, type FileAnswer } from '../route-helpers.js';
import type { Timings } from '@polyvox/speech';
import { timedJson, timestampedLines } from '../output/timestamped-stream.js';
import type { Provenance } from '../../provenance/service.js';
import { elevenLabsFormat, ELEVENLABS_FORMATS, PCM_RATE, VoiceSettings, voiceSettingsInput } from '../output/formats.js';
import { PcmResampler, reshaped } from '../output/pcm-stream.js';

/** One buffer as a finished stream of PCM (what `reshaped` takes). */
async function* whole(pcm: Buffer): AsyncGenerator<Buffer, boolean> {
  yield pcm;
  return true;
}

const audio = z.string().meta({ description: AUDIO_RESPONSE });

/** ElevenLabs' character alignment: one entry per character, times in seconds from the start of the audio. */
const CharacterAlignment = z.object({
  characters: z.array(z.string()),
  character_start_times_seconds: z.array(z.number()),
  character_end_times_seconds: z.array(z.number()),
});
const AudioWithTimestamps = z.object({
  audio_base64: z.string().meta({ description: 'The whole file (as `output_format` asks), base64' }),
  alignment: CharacterAlignment.meta({ description: "The request's text as sent, character by character" }),
  normalized_alignment: CharacterAlignment.meta({ description: 'The text as it was read (numbers, dates … written out)' }),
});
const VOICE_SETTINGS_TEXT =
  '`voice_settings`: `speed` 0.5–2; `stability` (default 0.5) sets the pitch range (1.8 × at 0, 0.4 × at 1), `style` ' +
  '(default 0) widens it (1 + 0.6 × style), `use_speaker_boost: false` tilts the tone 1.5 dB per octave darker, ' +
  '`similarity_boost` is accepted without effect; at their defaults the voice is exactly as without them. The range is ' +
  'rendered by engines that take it (eSpeak NG, Flite).';
const TIMESTAMPED_STREAM =
  'Newline-delimited JSON (`application/x-ndjson`): one object per line, `{audio_base64, alignment, normalized_alignment}`, ' +
  "each with its piece of the audio as it is made and the characters whose times are known by then (a sentence's come " +
  'with its first audio; times from the start of the whole audio); a last line without audio may carry the rest.';

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
  voice_settings: VoiceSettings.nullish(),
  output_format: OutputFormat.optional(),
  pronunciation_dictionary_locators: PronunciationLocators,
  apply_text_normalization: ApplyTextNormalization,
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
    /** The timestamp routes: the whole file with its alignment, as one JSON object or as lines of JSON. */
    timestamps = false,
  ) => {
    const caller = callerOf(request);
    if (!voiceId.startsWith('voice_')) throw new AppError('NOT_FOUND');
    assertVoiceAllowed(caller, voiceId);
    await deps.plans.assertTextLength(caller.accountId, body.text, pricedCharacters(body.text));
    const format = elevenLabsFormat(query.output_format ?? body.output_format ?? 'mp3_44100_128')!;
    const prepared = await deps.synthesis.prepare({
      text: body.text,
      voiceId,
      accountId: caller.accountId,
      route: 'elevenlabs',
      format: format.format,
      speed: body.voice_settings?.speed ?? 1,
      pitch: 0,
      ...voiceSettingsInput(body.voice_settings),
      ...(body.language_code ? { language: body.language_code } : {}),
      ...(timestamps ? { timings: true } : {}),
      ...(body.pronunciation_dictionary_locators ? { pronunciationLocators: body.pronunciation_dictionary_locators } : {}),
      ...(body.apply_text_normalization ? { normalization: body.apply_text_normalization } : {}),
    });
    void reply.header('character-cost', String(prepared.characters));
    const { encoding, resampleTo } = format;
    const reshapes = encoding !== null && (resampleTo !== null || encoding !== 'pcm');
    const charge = chargeOf(caller, 'api');
    if (timestamps && stream) {
      // Progressive: each sentence's alignment comes from the synthesis with its audio (from a worker too).
      let latest: Timings | null = null;
      prepared.request.onTimings = (t) => void (latest = t);
      const rate = resampleTo ?? PCM_RATE;
      const shaped = format.contentType ? { ...prepared, contentType: format.contentType } : prepared;
      return speak(request, reply, shaped, charge, {
        stream: true,
        ...(reshapes
          ? {
              reshape: (chunks: AsyncGenerator<Buffer, boolean>) =>
                reshaped(chunks, rate, resampleTo === null ? null : new PcmResampler(PCM_RATE, resampleTo), encoding, true),
            }
          : {}),
        events: { contentType: 'application/x-ndjson', wrap: (chunks) => timestampedLines(chunks, () => latest) },
      });
    }
    if (timestamps) {
      const file: FileAnswer = { respond: (audio, result) => timedJson(audio, result) };
      if (!reshapes) return speak(request, reply, prepared, charge, { stream: false, file });
      // The platform's PCM made whole, then reshaped as a stream of it would be, then labelled as a file.
      const rate = resampleTo ?? PCM_RATE;
      file.reshape = async (pcm) => {
        const parts: Buffer[] = [];
        const resampler = resampleTo === null ? null : new PcmResampler(PCM_RATE, resampleTo);
        for await (const b of reshaped(whole(pcm), rate, resampler, encoding, false)) parts.push(b);
        return Buffer.concat(parts);
      };
      const shaped = format.contentType ? { ...prepared, contentType: format.contentType } : prepared;
      return speak(request, reply, shaped, charge, { stream: false, file });
    }
    // PCM at another rate, WAV at another rate and G.711 are made from the platform's PCM as it streams
    // (a whole answer is sent in chunks too, as ElevenLabs does).
    if (reshapes) {
      const rate = resampleTo ?? PCM_RATE;
      const shaped = format.contentType ? { ...prepared, contentType: format.contentType } : prepared;
      return speak(request, reply, shaped, charge, {
        stream: true,
        reshape: (chunks) =>
          reshaped(chunks, rate, resampleTo === null ? null : new PcmResampler(PCM_RATE, resampleTo), encoding, stream),
        // A WAV answered whole is built whole: signed like any whole WAV.
        whole: encoding === 'wav' && !stream,
      });
    }
    return speak(request, reply, prepared, charge, { stream });
  };

  return async (app) => {
    // ElevenLabs' SDK reads `detail` from an error body; the contract's `error` stays beside it.
    addElevenLabsErrorDetail(app);

    const ROUTES = [
      {
        path: '/v1/text-to-speech/:voice_id',
        stream: false,
        timestamps: false,
        summary:
          "ElevenLabs-compatible speech: ElevenLabs' body and `output_format` (query or body), a Polyvox voice id and key (`xi-api-key`)",
      },
      {
        path: '/v1/text-to-speech/:voice_id/stream',
        stream: true,
        timestamps: false,
        summary: 'ElevenLabs-compatible streaming speech: the audio arrives in chunks as it is made',
      },
      {
        path: '/v1/text-to-speech/:voice_id/with-timestamps',
        stream: false,
        timestamps: true,
        summary:
          'ElevenLabs-compatible speech with character timings: the audio in base64 with the alignment of the text as sent and as read',
      },
      {
        path: '/v1/text-to-speech/:voice_id/stream/with-timestamps',
        stream: true,
        timestamps: true,
        summary:
          'ElevenLabs-compatible speech with character timings, as lines of JSON: pieces of the audio, each with the characters that start in it',
      },
    ];
    for (const { path, stream, timestamps, summary } of ROUTES) {
      app.post(
        path,
        {
          config: { auth: 'caller' },
          schema: {
            tags: ['elevenlabs'],
            summary,
            description: timestamps
              ? "Charged, authorised and limited as the plain route. Timings come from the engine's own word events (eSpeak NG); for other engines, from an eSpeak NG " +
                'rendering of the same text aligned to the audio by dynamic time warping. A voice whose engine reports none, in a language eSpeak NG does not speak, is refused with 400 `VALIDATION_FAILED` naming `voice_id`, before anything is held. ' +
                VOICE_SETTINGS_TEXT +
                (stream ? ` ${TIMESTAMPED_STREAM}` : '')
              : VOICE_SETTINGS_TEXT,
            security: [{ xiApiKey: [] }, { bearer: [] }],
            params: SpeechParams,
            querystring: SpeechQuery,
            body: ElevenLabsSpeechRequest,
            response: {
              200: !timestamps
                ? audio
                : stream
                  ? AudioWithTimestamps.meta({ description: TIMESTAMPED_STREAM, [NDJSON_MARK]: true })
                  : AudioWithTimestamps,
              ...errors,
            },
          },
        },
        async (request, reply) =>
          synthesize(request, reply, stream, request.params.voice_id, request.body, request.query, timestamps),
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
