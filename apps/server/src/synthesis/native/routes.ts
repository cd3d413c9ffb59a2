import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  EstimateRequest,
  EstimateResponse,
  NormalizeRequest,
  NormalizeResponse,
  PAUSE_BUDGET_TEXT,
  TtsRequest,
} from '@polyvox/contracts';
import { subtitles, type Timings } from '@polyvox/speech';
import { assertVoiceAllowed, callerOf } from '../../http/auth.js';
import { AppError } from '../../platform/errors.js';
import { timedJson, timestampedLines } from '../output/timestamped-stream.js';
import { pricedCharacters, ttsInput } from '../input.js';
import {
  AUDIO_BODY,
  chargeOf,
  KEY_OR_SESSION,
  SPEECH_ERRORS as errors,
  speaker,
  type SpeechRoutesDeps,
} from '../route-helpers.js';

/** Polyvox's own speech routes: `POST /tts` (a file, a stream, timestamps, subtitles), its price and its plan. */
export function nativeRoutes(deps: SpeechRoutesDeps): FastifyPluginAsyncZod {
  const speak = speaker(deps);
  return async (app) => {
    app.post(
      '/tts',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['synthesis'],
          summary: 'Synthesize speech; with `stream: true` the audio arrives in chunks as it is made',
          description:
            'With `timestamps: true` (a whole file) the answer is JSON: `{audio_base64, duration_seconds, alignment, ' +
            "normalized_alignment, words: [{word, start, end}], subtitles?}` — the alignments in ElevenLabs' shape " +
            '(`characters`, `character_start_times_seconds`, `character_end_times_seconds`), times in seconds from the start ' +
            'of the audio; `subtitles: "srt"|"vtt"` adds them as text. With `stream: true` too, the answer is lines of JSON ' +
            '(`application/x-ndjson`) as the audio is made: `{audio_base64, alignment, normalized_alignment}`, each piece ' +
            'of the audio with the characters whose times are final by then. The price is the same. ' +
            'SSML (`text_type: "ssml"`, or text that begins with `<speak>`): `speak`, `p`, `s`, `break`, `phoneme`, `sub`, ' +
            '`say-as`, `prosody`, `emphasis`, `lang`, `mark` (docs/pronunciation.md, "SSML"); any other tag is 400 ' +
            'VALIDATION_FAILED naming it, a malformed document names its line and column; only the spoken characters are ' +
            'priced; with timestamps, `marks: [{name, time_seconds}]`. ElevenLabs\' `<break time="1.5s" />` is a pause in plain text too. ' +
            PAUSE_BUDGET_TEXT,
          security: KEY_OR_SESSION,
          body: TtsRequest,
          response: { 200: AUDIO_BODY, ...errors },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        assertVoiceAllowed(caller, request.body.voice_id);
        const body = request.body;
        await deps.plans.assertTextLength(caller.accountId, body.text, pricedCharacters(body.text, body.text_type));
        if (body.subtitles && (!body.timestamps || body.stream))
          throw new AppError('VALIDATION_FAILED', { field: 'subtitles', rule: 'with timestamps: true, a whole file' });
        const prepared = await deps.synthesis.prepare({
          ...ttsInput(body, caller.accountId),
          route: 'tts',
          ...(body.timestamps ? { timings: true } : {}),
        });
        if (!body.timestamps) return speak(request, reply, prepared, chargeOf(caller, 'tts'), { stream: body.stream });
        if (body.stream) {
          // Lines of JSON as the audio is made, each with the characters whose times are final by then.
          let latest: Timings | null = null;
          prepared.request.onTimings = (t) => void (latest = t);
          return speak(request, reply, prepared, chargeOf(caller, 'tts'), {
            stream: true,
            events: { contentType: 'application/x-ndjson', wrap: (chunks) => timestampedLines(chunks, () => latest) },
          });
        }
        return speak(request, reply, prepared, chargeOf(caller, 'tts'), {
          stream: false,
          file: {
            // ElevenLabs' object, with the length, the words and, asked for, the subtitles.
            respond: (audio, result) =>
              timedJson(audio, result, (t) => ({
                duration_seconds: result.durationSec,
                words: t.words.map((w) => ({ word: w.word, start: w.start, end: w.end })),
                ...(body.subtitles ? { subtitles: subtitles(t, body.subtitles) } : {}),
              })),
          },
        });
      },
    );

    app.post(
      '/tts/estimate',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['synthesis'],
          summary: 'The price of a text before generating',
          security: KEY_OR_SESSION,
          body: EstimateRequest,
          response: { 200: EstimateResponse, ...errors },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const body = request.body;
        // A dialogue's turns (POST /v1/text-to-dialogue's `inputs`): each priced by its voice, summed; the texts
        // together are held to the plan's limit, as the dialogue is.
        const turns = body.inputs ?? [{ text: body.text!, voice_id: body.voice_id! }];
        for (const turn of turns) assertVoiceAllowed(caller, turn.voice_id);
        const maxLength = await deps.plans.maxTextLength(caller.accountId);
        const priced = turns.reduce((n, t) => n + pricedCharacters(t.text, body.text_type), 0);
        await deps.plans.assertTextLength(caller.accountId, turns.map((t) => t.text).join('\n'), priced);
        const prices = [];
        for (const turn of turns)
          prices.push(
            await deps.synthesis.estimate(
              turn.text,
              turn.voice_id,
              caller.accountId,
              body.pronunciation_dictionary_locators,
              body.text_type,
            ),
          );
        const [first] = prices as [(typeof prices)[number]];
        if (prices.length === 1) return { ...first, max_text_length: maxLength };
        return {
          credits: prices.reduce((n, p) => n + p.credits, 0),
          characters: prices.reduce((n, p) => n + p.characters, 0),
          language: first.language,
          language_supported: prices.every((p) => p.language_supported),
          max_text_length: maxLength,
        };
      },
    );

    app.post(
      '/tts/normalize',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['synthesis'],
          summary: 'The text exactly as it will be spoken, without making audio; nothing is charged',
          description: [
            'Runs the request through the same plan a synthesis makes, and answers what the engine will receive:',
            "the pronunciation dictionaries applied (the request's `pronunciation_dictionary_locators`, else the account's",
            'default; an alias shows as its words; a phoneme rule shows as the `[[…]]` phonemes in the engine’s own alphabet',
            'on an eSpeak NG, Flite or GnuSpeech voice, elsewhere as its alias or as written), then the text normalised as `apply_text_normalization`',
            'asks (numbers, dates, times, money, units, abbreviations, URLs and e-mail addresses written out in English and',
            'Chinese; `off`: as written), then split into the sentences synthesized one at a time (`sentences`; `text` joins',
            "them). An explicit AI label's spoken notice is not part of it. The same errors as `POST /tts` (an empty text,",
            'an unknown voice or dictionary, a language the voice does not speak, a text over the limit); no credits are held,',
            'no usage is recorded. SSML (`text_type: "ssml"`, or text that begins with `<speak>`) shows as its spoken text;',
            'a document that is not well-formed is 400 VALIDATION_FAILED with its line and column, an unsupported tag 400',
            'VALIDATION_FAILED naming it.',
          ].join(' '),
          security: KEY_OR_SESSION,
          body: NormalizeRequest,
          response: { 200: NormalizeResponse, ...errors },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const body = request.body;
        assertVoiceAllowed(caller, body.voice_id);
        await deps.plans.assertTextLength(caller.accountId, body.text, pricedCharacters(body.text, body.text_type));
        return deps.synthesis.normalize({
          ...ttsInput({ ...body, format: 'mp3', speed: 1, pitch: 0 }, caller.accountId),
          route: 'normalize',
        });
      },
    );
  };
}
