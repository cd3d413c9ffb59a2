import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ContentOrigin, Provenance } from '../provenance/service.js';
import type { Prepared } from '../synthesis/service.js';
import { abandon, whenClientLeaves } from '../http/client-leaves.js';
import type { DialogueTurns, JoinedTurn } from './turns.js';

export interface DialogueFile {
  request: FastifyRequest;
  reply: FastifyReply;
  provenance: Provenance;
  dialogue: DialogueTurns;
  whole: Prepared;
  left: AbortSignal;
  /** The dialogue encoded as one file (its generator made with `settle` false: the hold is closed here). */
  chunks: AsyncGenerator<Buffer, boolean>;
  /** The turns joined, once the chunks are all read. */
  known: readonly JoinedTurn[];
  origin: () => ContentOrigin;
  /** Keeps the labelled file once it is paid for (the history). */
  record?: (audio: Buffer) => Promise<void>;
}

/**
 * The whole dialogue as one file: recorded, labelled and signed as every file, then sent; paid once it is out (a client
 * that leaves before pays nothing), released if it is not.
 */
export async function sendDialogueFile(
  { request, reply, provenance, dialogue, whole, left, chunks, known, origin, record }: DialogueFile,
  respond: (audio: Buffer) => { contentType: string; body: Buffer },
): Promise<FastifyReply> {
  const parts: Buffer[] = [];
  let complete: boolean;
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.done) {
        complete = next.value;
        break;
      }
      parts.push(next.value);
    }
  } catch (e) {
    await dialogue.held?.release(left.aborted ? 'client left before the audio' : 'dialogue failed');
    if (left.aborted) return abandon(request, reply);
    throw e;
  }
  const work = dialogue.held;
  if (!complete || !work || left.aborted) {
    await work?.release('client left before the audio');
    return abandon(request, reply);
  }
  let answer: { contentType: string; body: Buffer };
  let label: string | null;
  let labelled: Buffer;
  try {
    const { mark, audio } = await provenance.markFile(Buffer.concat(parts), whole.contentType, origin());
    label = provenance.header(whole.contentType, mark);
    labelled = audio;
    answer = respond(audio);
  } catch (e) {
    // Nothing leaves unlabelled, and nothing unlabelled is paid for.
    await work.release('labelling failed');
    throw e;
  }
  if (label !== null) void reply.header('x-aigc', label);
  const logFailure = (err: unknown) => request.log.error({ err }, 'closing a credit hold failed');
  const settled = async () => {
    await work.settle();
    await record?.(labelled);
  };
  reply.raw.once('finish', () => void settled().catch(logFailure));
  whenClientLeaves(request, reply, () => void work.release('client left during the audio').catch(logFailure));
  work.signal.addEventListener('abort', () => reply.raw.destroy(), { once: true });
  const duration = known.at(-1)?.segment.end_time_seconds ?? 0;
  return reply
    .header('content-type', answer.contentType)
    .header('x-credits-charged', String(whole.credits))
    .header('x-characters', String(whole.characters))
    .header('x-audio-duration', duration.toFixed(3))
    .header('cache-control', 'no-store')
    .send(answer.body);
}
