import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ErrorBody,
  EstimateRequest,
  EstimateResponse,
  NormalizeRequest,
  NormalizeResponse,
  OpenAISpeechRequest,
  PAUSE_BUDGET_TEXT,
  TtsRequest,
} from '@polyvox/contracts';
import { assertVoiceAllowed, callerOf, type Caller } from '../http/auth.js';
import { AUDIO_RESPONSE } from '../http/openapi.js';
import type { PlanPrivileges } from '../orders/privileges.js';
import { AppError } from '../platform/errors.js';
import { subtitles, type Timings } from '@polyvox/speech';
import { timedJson, timestampedLines } from './timestamped-stream.js';
import { pricedCharacters, ttsInput, type Charge, type Prepared, type Synthesized, type SynthesisService } from './service.js';
import { originOf } from './origin.js';
import type { Provenance } from '../provenance/service.js';

/** A session, or an API key as a Bearer token or in `xi-api-key`. */
export const KEY_OR_SESSION: { [scheme: string]: string[] }[] = [
  { session: [] },
  { cookie: [] },
  { bearer: [] },
  { xiApiKey: [] },
];

const errors = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody, 429: ErrorBody };
/** Documented as audio by the OpenAPI transform (see http/openapi.ts): the body is bytes, not JSON. */
const audio = z.string().meta({ description: AUDIO_RESPONSE });

/**
 * Calls `onLeft` once if the client goes away before the whole response is written: the response
 * closes unfinished, or the connection closes (a pipelined reply waiting its turn sees only that).
 */
export function whenClientLeaves(request: FastifyRequest, reply: FastifyReply, onLeft: () => void): void {
  const res = reply.raw;
  const socket = request.raw.socket;
  const stop = () => {
    res.off('finish', stop);
    res.off('close', check);
    socket?.off('close', check);
  };
  function check(): void {
    stop();
    if (!res.writableFinished) onLeft();
  }
  if (res.destroyed || socket?.destroyed) return onLeft();
  res.once('finish', stop);
  res.once('close', check);
  socket?.once('close', check);
}

export function clientLeaves(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  whenClientLeaves(request, reply, () => controller.abort(new Error('client left')));
  return controller.signal;
}

/** Nothing more is sent to a client that left: no error of ours, nothing in the log above info. */
export function abandon(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.log.info('client left before the response');
  reply.hijack();
  reply.raw.destroy();
  return reply;
}

/** Sends the stream's first chunk only once it exists, so a failure before any audio is still a clean error. */
export async function sendStream(
  request: FastifyRequest,
  reply: FastifyReply,
  prepared: Prepared,
  left: AbortSignal,
  chunks: AsyncGenerator<Buffer, boolean>,
  /** The `x-aigc` header of raw samples, known once the first chunk is there. */
  label: () => string | null,
): Promise<FastifyReply> {
  let first: IteratorResult<Buffer, boolean>;
  try {
    first = await chunks.next();
  } catch (e) {
    if (left.aborted) return abandon(request, reply);
    throw e;
  }
  if (left.aborted) {
    await chunks.return(false);
    return abandon(request, reply);
  }
  async function* rest() {
    let next = first;
    try {
      while (!next.done) {
        yield next.value;
        next = await chunks.next();
      }
      // Stopped without its last chunk (shutdown): the response must end broken, not look complete.
      if (next.value !== true) throw new Error('stream stopped before its end');
    } finally {
      await chunks.return(false);
    }
  }
  const header = label();
  if (header !== null) reply.header('x-aigc', header);
  fallbackHeader(reply, prepared);
  return reply
    .header('content-type', prepared.contentType)
    .header('x-credits-charged', String(prepared.credits))
    .header('x-characters', String(prepared.characters))
    .header('cache-control', 'no-store')
    .send(Readable.from(rest(), { objectMode: false }));
}

const sseEvent = (event: object): Buffer => Buffer.from(`data: ${JSON.stringify(event)}\n\n`);

/**
 * OpenAI's speech events: each chunk of the (labelled) audio as a `speech.audio.delta` with its bytes in base64, then,
 * once the whole audio is out, `speech.audio.done` with the usage. Polyvox bills characters: they are its input
 * tokens (audio is not counted in tokens), and the credits charged come beside them.
 */
export async function* speechEvents(
  chunks: AsyncGenerator<Buffer, boolean>,
  usage: { characters: number; credits: number },
): AsyncGenerator<Buffer, boolean> {
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.done) {
        if (next.value !== true) return false;
        yield sseEvent({
          type: 'speech.audio.done',
          usage: { input_tokens: usage.characters, output_tokens: 0, total_tokens: usage.characters, ...usage },
        });
        return true;
      }
      yield sseEvent({ type: 'speech.audio.delta', audio: next.value.toString('base64') });
    }
  } finally {
    await chunks.return(false);
  }
}

/** A whole file that leaves as something else than its bytes (the timestamp routes' JSON). */
export interface FileAnswer {
  /** Changes the rendered audio before it is labelled (PCM resampled, companded or wrapped in a WAV header). */
  reshape?: (audio: Buffer) => Promise<Buffer>;
  /** The response's content type and body, made from the labelled audio. */
  respond(audio: Buffer, result: Synthesized): { contentType: string; body: Buffer | Readable };
}

/**
 * Sends prepared speech to the client, paying for it as it is delivered (shared with the ElevenLabs routes). Every
 * file and stream passes the provenance stage on its way: recorded, and labelled in its container (or, raw samples,
 * in the `x-aigc` header); a whole wav or mp3 also signed.
 */
export interface SpeakOptions {
  /** The audio as it is made, in chunks; else a whole file. */
  stream: boolean;
  /** Changes a stream's chunks on their way out (the ElevenLabs routes resample PCM). */
  reshape?: (chunks: AsyncGenerator<Buffer, boolean>) => AsyncGenerator<Buffer, boolean>;
  /** The reshaped stream is one whole file (a WAV built whole): it is labelled and signed as a file. */
  whole?: boolean;
  /** A whole file answered in another shape (`stream` false): labelled as any file, then reshaped on its way out. */
  file?: FileAnswer;
  /** A stream sent as events (OpenAI's server-sent events): the labelled chunks wrapped, under its own content type. */
  events?: { contentType: string; wrap: (chunks: AsyncGenerator<Buffer, boolean>) => AsyncGenerator<Buffer, boolean> };
}

/**
 * `x-pronunciation-fallback`: the words of phoneme rules this voice's engine spoke by their alias or as written, each
 * percent-encoded (a header is ASCII), joined by `, `.
 */
export function fallbackHeader(reply: FastifyReply, prepared: Pick<Prepared, 'pronunciationFallbacks'>): void {
  const words = prepared.pronunciationFallbacks;
  if (words?.length) reply.header('x-pronunciation-fallback', words.map((w) => encodeURIComponent(w)).join(', '));
}

export function speaker(deps: { synthesis: Pick<SynthesisService, 'render' | 'stream'>; provenance: Provenance }) {
  return async (request: FastifyRequest, reply: FastifyReply, prepared: Prepared, charge: Charge, opts: SpeakOptions) => {
    const { stream, reshape = (chunks) => chunks, whole = false, file, events } = opts;
    fallbackHeader(reply, prepared);
    const left = clientLeaves(request, reply);
    if (stream) {
      // A stream's watermark payload is its plan's (derived from its content).
      const origin = originOf(prepared, charge, { mark: prepared.mark ?? null }, { requestId: request.id });
      const chunks = reshape(deps.synthesis.stream(prepared, charge, left, request.id));
      const labelled = deps.provenance.labelStream(chunks, prepared.contentType, origin, { whole });
      if (events)
        return sendStream(
          request,
          reply,
          { ...prepared, contentType: events.contentType },
          left,
          events.wrap(labelled.chunks),
          labelled.header,
        );
      return sendStream(request, reply, prepared, left, labelled.chunks, labelled.header);
    }
    let rendered;
    try {
      rendered = await deps.synthesis.render(prepared, charge, { signal: left, reqId: request.id });
    } catch (e) {
      if (left.aborted) return abandon(request, reply);
      throw e;
    }
    const { result, work } = rendered;
    if (left.aborted) {
      await work.release('client left before the audio');
      return abandon(request, reply);
    }
    let answer: ReturnType<FileAnswer['respond']>;
    let label: string | null;
    try {
      const raw = file?.reshape ? await file.reshape(result.audio) : result.audio;
      const { mark, audio } = await deps.provenance.markFile(
        raw,
        prepared.contentType,
        originOf(prepared, charge, result, { holdId: work.hold.id, requestId: request.id }),
      );
      label = deps.provenance.header(prepared.contentType, mark);
      answer = file ? file.respond(audio, result) : { contentType: prepared.contentType, body: audio };
    } catch (e) {
      // Nothing leaves unlabelled, and nothing unlabelled is paid for.
      await work.release('labelling failed');
      throw e;
    }
    if (label !== null) reply.header('x-aigc', label);
    // Paid only once the audio is out: a client that leaves while it is being written pays nothing.
    const logFailure = (err: unknown) => request.log.error({ err }, 'closing a credit hold failed');
    reply.raw.once('finish', () => void work.settle().catch(logFailure));
    whenClientLeaves(request, reply, () => void work.release('client left during the audio').catch(logFailure));
    // A shutdown does not wait for a client that reads slowly: the reply is cut and the hold released.
    work.signal.addEventListener('abort', () => reply.raw.destroy(), { once: true });
    return reply
      .header('content-type', answer.contentType)
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
      .send(inPieces(reply, answer.body));
  };
}

/** A whole file larger than this leaves in pieces of this size. */
const PIECE_BYTES = 64 * 1024;

/**
 * A large whole answer written to the socket a piece at a time: one write of megabytes (a long WAV) holds the event loop
 * for as long as the kernel takes to copy it (on loopback, to deliver it), while other requests wait. Its length is
 * still announced, and `finish` still comes once the last piece is out.
 */
function inPieces(reply: FastifyReply, body: Buffer | Readable): Buffer | Readable {
  if (!Buffer.isBuffer(body) || body.length <= 4 * PIECE_BYTES) return body;
  reply.header('content-length', String(body.length));
  return Readable.from(
    (function* pieces() {
      for (let at = 0; at < body.length; at += PIECE_BYTES) yield body.subarray(at, at + PIECE_BYTES);
    })(),
    { objectMode: false },
  );
}

/** What a caller's calls are charged as: an API key's every call is an `api` record carrying the key. */
export function chargeOf(caller: Caller, recordType: string): Charge {
  return caller.key
    ? { accountId: caller.accountId, apiKeyId: caller.key.id, recordType: 'api' }
    : { accountId: caller.accountId, recordType };
}

export interface SynthesisRoutesDeps {
  synthesis: SynthesisService;
  provenance: Provenance;
  plans: Pick<PlanPrivileges, 'assertTextLength' | 'maxTextLength'>;
}

export function synthesisRoutes(deps: SynthesisRoutesDeps): FastifyPluginAsyncZod {
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
          response: { 200: audio, ...errors },
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

    app.post(
      '/v1/audio/speech',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['synthesis'],
          summary: "OpenAI-compatible speech: OpenAI's voice names map to default voices; our voice ids work too",
          description: [
            'The audio streams as it is made. With `stream_format: "sse"` the answer is `text/event-stream`: each piece of the',
            'audio (in `response_format`, joined they make one labelled file) as `data: {"type":"speech.audio.delta","audio":"<base64>"}`,',
            'then `data: {"type":"speech.audio.done","usage":{"input_tokens","output_tokens","total_tokens","characters","credits"}}`',
            '(Polyvox bills characters: they are the input tokens; audio is not counted in tokens).',
            '`instructions` is read for delivery: pace (slow, fast), pitch (high, low, deep), range (calm, monotone, sad; energetic,',
            'excited, cheerful, expressive), breath (breathy, whispering, raspy) and tone (warm, soft; bright, clear), in English or',
            'Chinese; words about who speaks (gender, age, accent) do not change the voice the request names. `speed` is',
            "OpenAI's 0.25–4 and spoken so (4: a quarter of the time; word timings follow): each engine goes as far as it sounds",
            'natural natively and the rest is time-stretched without changing the pitch. The price does not depend on it.',
          ].join(' '),
          security: KEY_OR_SESSION,
          body: OpenAISpeechRequest,
          response: { 200: audio, ...errors },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const body = request.body;
        const requested = typeof body.voice === 'string' ? body.voice : body.voice.id;
        const voiceId = (await deps.synthesis.openAiVoice(requested)) ?? requested;
        if (!voiceId.startsWith('voice_')) throw new AppError('NOT_FOUND');
        assertVoiceAllowed(caller, voiceId);
        await deps.plans.assertTextLength(caller.accountId, body.input, pricedCharacters(body.input));
        const prepared = await deps.synthesis.prepare({
          text: body.input,
          voiceId,
          accountId: caller.accountId,
          route: 'openai',
          format: body.response_format,
          speed: body.speed,
          pitch: 0,
          ...(body.ai_label ? { aiLabel: body.ai_label } : {}),
          ...(body.instructions ? { instructions: body.instructions } : {}),
          ...(body.pronunciation_dictionary_locators ? { pronunciationLocators: body.pronunciation_dictionary_locators } : {}),
        });
        const charge = { ...chargeOf(caller, 'api'), recordType: 'api' };
        if (body.stream_format !== 'sse') return speak(request, reply, prepared, charge, { stream: true });
        const usage = { characters: prepared.characters, credits: prepared.credits };
        return speak(request, reply, prepared, charge, {
          stream: true,
          events: { contentType: 'text/event-stream', wrap: (chunks) => speechEvents(chunks, usage) },
        });
      },
    );
  };
}
