import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ErrorBody } from '@polyvox/contracts';
import type { Caller } from '../http/auth.js';
import { abandon, clientLeaves, whenClientLeaves } from '../http/client-leaves.js';
import { AUDIO_RESPONSE } from '../http/openapi.js';
import type { PlanPrivileges } from '../orders/privileges.js';
import type { Charge, Prepared, Synthesized, SynthesisService } from './service.js';
import { originOf } from './origin.js';
import type { Provenance } from '../provenance/service.js';
import type { HistoryRecorder } from '../history/types.js';
import { capturedChunks, historyEntryOf } from './history-entry.js';

/**
 * What the speech routes of every dialect share (native/, openai/, elevenlabs/, realtime/, jobs/): who may call, the
 * errors they document, how prepared speech is sent and paid for, what a call is charged as.
 */

/** A session, or an API key as a Bearer token or in `xi-api-key`. */
export const KEY_OR_SESSION: { [scheme: string]: string[] }[] = [
  { session: [] },
  { cookie: [] },
  { bearer: [] },
  { xiApiKey: [] },
];

/** The errors a speech route documents. */
export const SPEECH_ERRORS = {
  400: ErrorBody,
  401: ErrorBody,
  402: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  422: ErrorBody,
  429: ErrorBody,
};
/** Documented as audio by the OpenAPI transform (see http/openapi.ts): the body is bytes, not JSON. */
export const AUDIO_BODY = z.string().meta({ description: AUDIO_RESPONSE });

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

/** A whole file that leaves as something else than its bytes (the timestamp routes' JSON). */
export interface FileAnswer {
  /** Changes the rendered audio before it is labelled (PCM resampled, companded or wrapped in a WAV header). */
  reshape?: (audio: Buffer) => Promise<Buffer>;
  /** The response's content type and body, made from the labelled audio. */
  respond(audio: Buffer, result: Synthesized): { contentType: string; body: Buffer | Readable };
}

/** How `speaker` sends prepared speech. */
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

/**
 * Sends prepared speech to the client, paying for it as it is delivered (shared with the ElevenLabs routes). Every
 * file and stream passes the provenance stage on its way: recorded, and labelled in its container (or, raw samples,
 * in the `x-aigc` header); a whole wav or mp3 also signed.
 */
export function speaker(deps: {
  synthesis: Pick<SynthesisService, 'render' | 'stream'>;
  provenance: Provenance;
  /** Where each delivered generation is recorded (absent: nowhere). */
  history?: HistoryRecorder;
}) {
  return async (request: FastifyRequest, reply: FastifyReply, prepared: Prepared, charge: Charge, opts: SpeakOptions) => {
    const { stream, reshape = (chunks) => chunks, whole = false, file, events } = opts;
    fallbackHeader(reply, prepared);
    const left = clientLeaves(request, reply);
    if (stream) {
      // A stream's watermark payload is its plan's (derived from its content).
      const origin = originOf(prepared, charge, { mark: prepared.mark ?? null }, { requestId: request.id });
      // The history keeps the labelled audio as it leaves (an event stream's audio, not its events).
      const capture = deps.history?.capture(historyEntryOf(request, prepared, charge));
      const chunks = reshape(deps.synthesis.stream(prepared, charge, left, request.id, (id) => capture?.held(id)));
      const labelled = deps.provenance.labelStream(chunks, prepared.contentType, origin, { whole });
      const sent = capturedChunks(labelled.chunks, capture);
      if (events)
        return sendStream(
          request,
          reply,
          { ...prepared, contentType: events.contentType },
          left,
          events.wrap(sent),
          labelled.header,
        );
      return sendStream(request, reply, prepared, left, sent, labelled.header);
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
    let labelledAudio: Buffer;
    try {
      const raw = file?.reshape ? await file.reshape(result.audio) : result.audio;
      const { mark, audio } = await deps.provenance.markFile(
        raw,
        prepared.contentType,
        originOf(prepared, charge, result, { holdId: work.hold.id, requestId: request.id }),
      );
      label = deps.provenance.header(prepared.contentType, mark);
      labelledAudio = audio;
      answer = file ? file.respond(audio, result) : { contentType: prepared.contentType, body: audio };
    } catch (e) {
      // Nothing leaves unlabelled, and nothing unlabelled is paid for.
      await work.release('labelling failed');
      throw e;
    }
    if (label !== null) reply.header('x-aigc', label);
    // Paid only once the audio is out: a client that leaves while it is being written pays nothing.
    const logFailure = (err: unknown) => request.log.error({ err }, 'closing a credit hold failed');
    // Once paid for, the audio that left is kept in the history (the labelled file, whatever shape carried it).
    const recorded = async () => {
      await work.settle();
      await deps.history?.recordFile(historyEntryOf(request, prepared, charge, { holdId: work.hold.id }), labelledAudio);
    };
    reply.raw.once('finish', () => void recorded().catch(logFailure));
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

/** What a speech route module is given. */
export interface SpeechRoutesDeps {
  synthesis: SynthesisService;
  provenance: Provenance;
  history?: HistoryRecorder;
  plans: Pick<PlanPrivileges, 'assertTextLength' | 'maxTextLength'>;
}
