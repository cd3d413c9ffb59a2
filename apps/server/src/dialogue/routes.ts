import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApplyTextNormalization, DialogueInputs, ErrorBody, PronunciationLocators } from '@polyvox/contracts';
import { assertVoiceAllowed, callerOf } from '../http/auth.js';
import { AUDIO_RESPONSE, NDJSON_MARK } from '../http/openapi.js';
import { addElevenLabsErrorDetail } from '../http/error-detail.js';
import { AppError } from '../platform/errors.js';
import type { PlanPrivileges } from '../orders/privileges.js';
import type { Provenance } from '../provenance/service.js';
import type { Prepared, SynthesisService } from '../synthesis/service.js';
import { pricedCharacters } from '../synthesis/input.js';
import type { SpeechHost } from '../speech/speech-host.js';
import { chargeOf, sendStream } from '../synthesis/route-helpers.js';
import { clientLeaves } from '../http/client-leaves.js';
import { originOf } from '../synthesis/origin.js';
import { ELEVENLABS_FORMATS, elevenLabsFormat } from '../synthesis/output/formats.js';
import { DialogueTurns, PAUSE_NEW_SPEAKER, PAUSE_SAME_SPEAKER, type DialogueTurn, type JoinedTurn } from './turns.js';
import { dialogueFormat, dialogueLines, encodeTurns, joinedAlignment } from './audio.js';
import { sendDialogueFile } from './file.js';
import type { HistoryRecorder } from '../history/types.js';
import { capturedChunks, historyEntryOf } from '../synthesis/history-entry.js';

const OutputFormat = z
  .string()
  .max(32)
  .refine((f) => elevenLabsFormat(f) !== null, `must be one of ${ELEVENLABS_FORMATS.join(', ')}`);

/** ElevenLabs' dialogue body; its fields for models Polyvox does not run (previous_text …) are accepted and ignored. */
const DialogueRequest = z.object({
  inputs: DialogueInputs,
  model_id: z.string().max(128).optional(),
  language_code: z.string().max(35).nullish(),
  output_format: OutputFormat.optional(),
  settings: z
    .object({ stability: z.number().nullish(), similarity: z.number().nullish() })
    .passthrough()
    .nullish()
    .describe('`stability` sets every voice’s pitch range as `voice_settings.stability` does; `similarity` is accepted'),
  seed: z
    .number()
    .int()
    .min(0)
    .max(4294967295)
    .nullish()
    .describe("Accepted: Polyvox's engines are deterministic, the same request makes the same audio with or without it"),
  pronunciation_dictionary_locators: PronunciationLocators,
  apply_text_normalization: ApplyTextNormalization,
});
type DialogueRequest = z.infer<typeof DialogueRequest>;
const DialogueQuery = z
  .object({ output_format: OutputFormat.optional(), enable_logging: z.string().max(8).optional() })
  .passthrough();

const Alignment = z.object({
  characters: z.array(z.string()),
  character_start_times_seconds: z.array(z.number()),
  character_end_times_seconds: z.array(z.number()),
});
const VoiceSegment = z.object({
  voice_id: z.string(),
  start_time_seconds: z.number(),
  end_time_seconds: z.number(),
  character_start_index: z.number().int(),
  character_end_index: z.number().int(),
  dialogue_input_index: z.number().int(),
});
const WithTimestamps = z.object({
  audio_base64: z.string().meta({ description: 'The whole dialogue (as `output_format` asks), base64' }),
  alignment: Alignment.nullable().meta({ description: "The inputs' texts as sent, one after another, character by character" }),
  normalized_alignment: Alignment.nullable().meta({ description: 'The same as read (numbers, dates … written out)' }),
  voice_segments: z.array(VoiceSegment).meta({
    description:
      "Each input's voice, its start and end in seconds, its characters in `alignment` (start, and one past its end) and its index in `inputs`",
  }),
});
const JOINING =
  `Each input is spoken by its own voice (any voice: official, designed, cloned, mixed, on any engine), brought to the loudness of every Polyvox file ` +
  `(BS.1770 integrated, -16 LUFS) and joined with a pause: ${PAUSE_SAME_SPEAKER * 1000} ms of silence between two inputs of one voice, ` +
  `${PAUSE_NEW_SPEAKER * 1000} ms at a change of voice. At most 10 distinct voices (11: 400 VALIDATION_FAILED naming \`inputs\`); ` +
  "all texts together are held to the plan's text limit (422 TEXT_TOO_LONG). Every input passes moderation before anything is held " +
  '(422 CONTENT_REFUSED). The price is every input’s, as `POST /tts` prices it (`POST /tts/estimate` with `inputs` gives it), held at once ' +
  'and charged once; a stream the client leaves is charged for the inputs it received. The file is labelled, signed and watermarked ' +
  'as every file; each input’s sound carries its own watermark payload, each recorded. ElevenLabs’ `xi-api-key` works, as does a Bearer key.';
const STREAM_LINES =
  'Newline-delimited JSON (`application/x-ndjson`): one object per line, `{audio_base64, alignment, normalized_alignment, voice_segments}`, ' +
  'each with its piece of the audio as it is made and the inputs that came with it (their characters and segments; times from the start of the dialogue).';
const ROUTES = [
  {
    path: '/v1/text-to-dialogue',
    stream: false,
    timestamps: false,
    summary: 'ElevenLabs-compatible dialogue: many voices, one file',
  },
  {
    path: '/v1/text-to-dialogue/stream',
    stream: true,
    timestamps: false,
    summary: 'ElevenLabs-compatible dialogue, streamed: the audio leaves input by input as it is made',
  },
  {
    path: '/v1/text-to-dialogue/with-timestamps',
    stream: false,
    timestamps: true,
    summary: "ElevenLabs-compatible dialogue with character timings and each input's voice segment",
  },
  {
    path: '/v1/text-to-dialogue/stream/with-timestamps',
    stream: true,
    timestamps: true,
    summary: 'ElevenLabs-compatible dialogue with timings, as lines of JSON as the audio is made',
  },
];
const errors = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody, 429: ErrorBody };

export interface DialogueRoutesDeps {
  synthesis: SynthesisService;
  /** The engines' host: its encoder thread encodes the joined turns. */
  speech: SpeechHost;
  provenance: Provenance;
  /** Where each delivered dialogue is kept (absent: nowhere). */
  history?: HistoryRecorder;
  plans: Pick<PlanPrivileges, 'assertTextLength'>;
}

/** ElevenLabs' text-to-dialogue routes, so its SDK's `textToDialogue` calls work unchanged against Polyvox. */
export function dialogueRoutes(deps: DialogueRoutesDeps): FastifyPluginAsyncZod {
  const answer = async (
    request: FastifyRequest,
    reply: FastifyReply,
    body: DialogueRequest,
    outputFormat: string,
    stream: boolean,
    timestamps: boolean,
  ) => {
    const caller = callerOf(request);
    for (const input of body.inputs) {
      if (!input.voice_id.startsWith('voice_')) throw new AppError('NOT_FOUND');
      assertVoiceAllowed(caller, input.voice_id);
    }
    const priced = body.inputs.reduce((n, i) => n + pricedCharacters(i.text), 0);
    await deps.plans.assertTextLength(caller.accountId, body.inputs.map((i) => i.text).join('\n'), priced);
    const format = dialogueFormat(outputFormat);
    const turns: DialogueTurn[] = [];
    // Every turn is read, priced and moderated before anything is held: one refused turn refuses the dialogue.
    for (const input of body.inputs) {
      const prepared = await deps.synthesis.prepare({
        text: input.text,
        voiceId: input.voice_id,
        accountId: caller.accountId,
        route: 'dialogue',
        format: 'pcm',
        speed: 1,
        pitch: 0,
        ...(body.settings?.stability != null ? { voiceSettings: { stability: body.settings.stability } } : {}),
        ...(body.language_code ? { language: body.language_code } : {}),
        ...(timestamps ? { timings: true } : {}),
        ...(body.pronunciation_dictionary_locators ? { pronunciationLocators: body.pronunciation_dictionary_locators } : {}),
        ...(body.apply_text_normalization ? { normalization: body.apply_text_normalization } : {}),
      });
      turns.push({ voiceId: input.voice_id, text: input.text, prepared });
    }
    // A spoken AI notice is heard once: before the first turn, or after the last.
    turns.forEach((t, i) => {
      const label = t.prepared.request.aiLabel;
      if (label && i !== (label.position === 'start' ? 0 : turns.length - 1)) delete t.prepared.request.aiLabel;
    });
    const charge = chargeOf(caller, 'api');
    const dialogue = new DialogueTurns(deps.synthesis, turns, charge, request.id);
    const whole: Prepared = {
      ...dialogue.whole,
      contentType: format.contentType,
      request: { ...dialogue.whole.request, format: format.format },
    };
    void reply.header('character-cost', String(whole.characters));
    const ids = () => ({ holdId: dialogue.held?.hold.id ?? null, requestId: request.id });
    const origin = () => originOf(whole, charge, { mark: turns[0]!.prepared.mark ?? null }, ids());
    // Each other turn's watermark payload is recorded (with its voice and engine) before its audio leaves.
    const recordedMarks = new Set([turns[0]!.prepared.mark ?? null]);
    async function* recorded(joined: AsyncGenerator<JoinedTurn, boolean>): AsyncGenerator<JoinedTurn, boolean> {
      try {
        for (;;) {
          const next = await joined.next();
          if (next.done) return next.value;
          const { mark } = next.value;
          if (mark !== null && !recordedMarks.has(mark)) {
            recordedMarks.add(mark);
            const { prepared } = turns[next.value.index]!;
            await deps.provenance.mark(originOf(prepared, charge, { mark }, { ...ids(), recordType: charge.recordType }));
          }
          yield next.value;
        }
      } finally {
        await joined.return(false);
      }
    }
    // The history's item: the turns with their voices, the price the dialogue's hold settles.
    const entry = (holdId: string | null) =>
      historyEntryOf(request, whole, charge, {
        holdId,
        text: body.inputs.map((i) => i.text).join('\n'),
        dialogue: turns.map((t) => ({ text: t.text, voice_id: t.voiceId, voice_name: t.prepared.voice.name })),
      });
    const left = clientLeaves(request, reply);
    const known: JoinedTurn[] = [];
    const encoders = await deps.speech.get();
    const chunks = encodeTurns(recorded(dialogue.run(left, stream)), format, stream, encoders, (t) => known.push(t));
    if (!stream)
      return sendDialogueFile(
        {
          request,
          reply,
          provenance: deps.provenance,
          dialogue,
          whole,
          left,
          chunks,
          known,
          origin,
          record: async (audio) => deps.history?.recordFile(entry(dialogue.held?.hold.id ?? null), audio),
        },
        (audio) =>
          timestamps
            ? {
                contentType: 'application/json',
                body: Buffer.from(
                  JSON.stringify({
                    audio_base64: audio.toString('base64'),
                    alignment: joinedAlignment(known.map((t) => t.alignment)),
                    normalized_alignment: joinedAlignment(known.map((t) => t.normalized)),
                    voice_segments: known.map((t) => t.segment),
                  }),
                ),
              }
            : { contentType: format.contentType, body: audio },
      );
    const labelled = deps.provenance.labelStream(chunks, format.contentType, origin());
    const capture = deps.history?.capture(entry(null));
    const sent = capturedChunks(labelled.chunks, capture, () => dialogue.held?.hold.id);
    if (!timestamps) return sendStream(request, reply, whole, left, sent, labelled.header);
    const lines = dialogueLines(sent, known);
    return sendStream(request, reply, { ...whole, contentType: 'application/x-ndjson' }, left, lines, labelled.header);
  };

  return async (app) => {
    addElevenLabsErrorDetail(app);
    for (const { path, stream, timestamps, summary } of ROUTES)
      app.post(
        path,
        {
          config: { auth: 'caller' },
          schema: {
            tags: ['elevenlabs'],
            summary,
            description: stream && timestamps ? `${JOINING} ${STREAM_LINES}` : JOINING,
            security: [{ xiApiKey: [] }, { bearer: [] }],
            querystring: DialogueQuery,
            body: DialogueRequest,
            response: {
              200: !timestamps
                ? z.string().meta({ description: AUDIO_RESPONSE })
                : stream
                  ? WithTimestamps.meta({ description: STREAM_LINES, [NDJSON_MARK]: true })
                  : WithTimestamps,
              ...errors,
            },
          },
        },
        async (request, reply) => {
          const format = request.query.output_format ?? request.body.output_format ?? 'mp3_44100_128';
          return answer(request, reply, request.body, format, stream, timestamps);
        },
      );
  };
}
