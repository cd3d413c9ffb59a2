import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { SynthesisRequest, VoiceInfo } from '@polyvox/speech';
import { AppError } from '../../platform/errors.js';
import { toWire } from '../wire.js';
import { previewRequest, type SynthesisCall, type Synthesizer } from '../../speech/synthesizer.js';
import type { RenderedAudio } from '../types.js';
import { cancelChannel, connection, heartbeatKey, heartbeatMs, outChannel, TTS_QUEUE, type QueueSettings } from './redis.js';
import { decodeFrame, Msg, QueueFrameError, readFrame } from './frames.js';
import type { TtsJobPayload } from '../jobs/tts.js';

export { JOBS_QUEUE, TTS_QUEUE, type QueueSettings } from './redis.js';

/** Runs of one interactive request whose worker died under it (a file, or a stream before its first chunk). */
const INTERACTIVE_RUNS = 2;

/** Messages in order, waited on one at a time; `end` wakes a waiting reader with nothing. */
class Inbox {
  private readonly items: Buffer[] = [];
  private waiter: ((b: Buffer | null) => void) | null = null;
  private ended = false;
  /** The worker process running this request (from its start message), whose heartbeat the API watches. */
  worker: string | null = null;
  /** Ended because that worker's heartbeat stopped. */
  lost = false;

  push(b: Buffer): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w(b);
    } else this.items.push(b);
  }

  end(lost = false): void {
    if (this.ended) return;
    this.lost = lost;
    this.ended = true;
    this.waiter?.(null);
    this.waiter = null;
  }

  next(): Promise<Buffer | null> {
    const b = this.items.shift();
    if (b) return Promise.resolve(b);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

export interface QueuedSynthesizerOptions {
  settings: QueueSettings;
  /** Where lost replies and unreadable messages are logged. */
  log?: FastifyBaseLogger;
}

/**
 * The queued synthesizer (ROLE=api): the request goes to the `tts` queue as a `tts` job and its audio comes back on a
 * Redis channel of its own that this process subscribed to first, so bytes reach the process that holds the client's
 * connection whichever worker made them. Leaving (the request's signal) tells the worker to stop.
 */
export class QueuedSynthesizer implements Synthesizer {
  private readonly settings: QueueSettings;
  private readonly queue: Queue<TtsJobPayload>;
  private readonly sub: Redis;
  private readonly pub: Redis;
  private readonly inboxes = new Map<string, Inbox>();

  private readonly log: FastifyBaseLogger | null;

  constructor(options: QueuedSynthesizerOptions) {
    const settings = options.settings;
    this.settings = settings;
    this.log = options.log ?? null;
    this.queue = new Queue<TtsJobPayload>(TTS_QUEUE, { connection: connection(settings.redisUrl), prefix: settings.prefix });
    this.sub = connection(settings.redisUrl);
    this.pub = connection(settings.redisUrl);
    this.sub.on('messageBuffer', (channel: Buffer, message: Buffer) => this.inboxes.get(channel.toString())?.push(message));
  }

  /** Waiting and running interactive syntheses (for the benchmark and operators). */
  async depth(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'active', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  /**
   * A request's messages, over as many runs as it takes: when the worker running it dies (its heartbeat key expires,
   * or it drained without finishing), a whole file, or a stream that has not sent a byte yet, is queued again under a
   * new id (so nothing the dead run might still send is mixed in), at most `INTERACTIVE_RUNS` times; a stream that
   * already sent audio ends with an error, since its bytes cannot be sent again.
   */
  private async *messages(
    kind: TtsJobPayload['kind'],
    request: SynthesisRequest,
    signal: AbortSignal | undefined,
    reqId: string | undefined,
  ): AsyncGenerator<{ type: Msg; body: Buffer }> {
    let sent = false;
    for (let run = 1; ; run++) {
      signal?.throwIfAborted();
      const id = randomUUID();
      const channel = outChannel(this.settings.prefix, id);
      const inbox = new Inbox();
      this.inboxes.set(channel, inbox);
      const onAbort = () => inbox.end();
      signal?.addEventListener('abort', onAbort, { once: true });
      let finished = false;
      let lost = false;
      try {
        await this.sub.subscribe(channel);
        await this.queue.add(
          kind,
          { kind, request: toWire(request), ...(reqId ? { reqId } : {}) },
          { jobId: id, removeOnComplete: true, removeOnFail: true, attempts: 1 },
        );
        let started = false;
        for (;;) {
          const message = started ? await inbox.next() : await this.firstMessage(id, inbox);
          if (!message) {
            if (!inbox.lost) throw signal?.reason ?? new Error('synthesis stopped');
            if ((kind === 'stream' && sent) || run >= INTERACTIVE_RUNS)
              throw new AppError('INTERNAL', {}, { cause: new Error(`worker ${inbox.worker} lost mid-${kind}`) });
            lost = true;
            break;
          }
          const { type, body } = readFrame(message);
          if (type === Msg.Started) {
            // A second start is a worker that died and whose job the queue's stalled check ran again: a stream
            // cannot be resent, a whole file starts over (its reader drops whatever the dead worker had sent).
            if (started && sent && kind === 'stream')
              throw new AppError('INTERNAL', {}, { cause: new Error('worker lost mid-stream') });
            started = true;
            if (body.length > 0) inbox.worker = body.toString();
            this.watch();
            yield { type, body };
            continue;
          }
          if (type === Msg.Failed) {
            finished = true;
            throw this.read(decodeFrame.failed, body, reqId);
          }
          if (type === Msg.Done) finished = true;
          if (type === Msg.Chunk) sent = true;
          yield { type, body };
          if (finished) return;
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
        this.inboxes.delete(channel);
        if (!finished) {
          // Stopped before its end: the worker stops too (it also notices that nobody listens any more).
          await this.pub.publish(cancelChannel(this.settings.prefix), id).catch(() => {});
          await this.queue.remove(id).catch(() => {});
        }
        await this.sub.unsubscribe(channel).catch(() => {});
      }
      if (lost) this.log?.warn({ reqId, kind, run }, 'synthesis worker lost; queued again');
    }
  }

  private watching: NodeJS.Timeout | null = null;

  /**
   * While any request runs in a worker, checks every third of the heartbeat's lifetime that each such worker's
   * heartbeat key still exists; the requests of a worker whose key is gone end as lost. A check that fails (Redis
   * unreachable) decides nothing.
   */
  private watch(): void {
    if (this.watching) return;
    const every = Math.max(100, heartbeatMs(this.settings) / 3);
    this.watching = setInterval(() => {
      const inboxes = [...this.inboxes.values()].filter((i) => i.worker !== null);
      if (inboxes.length === 0) {
        clearInterval(this.watching!);
        this.watching = null;
        return;
      }
      const workers = [...new Set(inboxes.map((i) => i.worker!))];
      const pipeline = this.pub.pipeline();
      for (const w of workers) pipeline.exists(heartbeatKey(this.settings.prefix, w));
      pipeline.exec().then(
        (results) => {
          const dead = new Set(workers.filter((_, i) => results?.[i]?.[0] === null && results[i]![1] === 0));
          for (const inbox of this.inboxes.values()) if (inbox.worker !== null && dead.has(inbox.worker)) inbox.end(true);
        },
        () => {},
      );
    }, every);
    this.watching.unref();
  }

  /**
   * The first message of a request, which a worker sends when it takes the job. When no worker takes it within
   * `waitSeconds` (none running, or all busy for that long), it is taken back from the queue and the caller is
   * told to come back later; a worker that took it at that very moment wins, and the wait goes on.
   */
  private async firstMessage(id: string, inbox: Inbox): Promise<Buffer | null> {
    const waitMs = (this.settings.waitSeconds ?? 60) * 1000;
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const first = await Promise.race([
        inbox.next(),
        new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), waitMs))),
      ]);
      clearTimeout(timer);
      if (first !== 'late') return first;
      const removed = await this.queue.remove(id).catch(() => 0);
      if (removed === 1) {
        const seconds = Math.max(1, Math.ceil(this.settings.waitSeconds ?? 60));
        throw new AppError('RATE_LIMITED', { seconds }, { headers: { 'retry-after': String(seconds) } });
      }
    }
  }

  async synthesize(request: SynthesisRequest, call: SynthesisCall = {}): Promise<RenderedAudio> {
    const parts: Buffer[] = [];
    for await (const { type, body } of this.messages('file', request, request.signal, call.reqId)) {
      // Each run (a worker that died, then another) starts the file over.
      if (type === Msg.Started) parts.length = 0;
      if (type === Msg.Chunk) parts.push(body);
      if (type === Msg.Progress && request.onProgress) request.onProgress(this.read(decodeFrame.progress, body, call.reqId));
      if (type === Msg.Done) {
        const done = this.read(decodeFrame.done, body, call.reqId);
        return { audio: Buffer.concat(parts), ...done };
      }
    }
    throw new Error('synthesis ended without its audio');
  }

  async *synthesizeStream(request: SynthesisRequest, call: SynthesisCall = {}): AsyncGenerator<Buffer> {
    for await (const { type, body } of this.messages('stream', request, request.signal, call.reqId)) {
      if (type === Msg.Chunk) yield body;
      if (type === Msg.Timings && request.onTimings) request.onTimings(this.read(decodeFrame.timings, body, call.reqId));
    }
  }

  /**
   * A frame's JSON body, checked: one that is not what its type says (a worker of another release, or damaged) fails
   * this request alone with `INTERNAL`, and the log says what was wrong with it.
   */
  private read<T>(decode: (body: Buffer) => T, body: Buffer, reqId: string | undefined): T {
    try {
      return decode(body);
    } catch (e) {
      if (!(e instanceof QueueFrameError)) throw e;
      this.log?.error({ reqId, frame: e.frame, problem: e.problem }, 'worker message unreadable; request failed');
      throw new AppError('INTERNAL', {}, { cause: e });
    }
  }

  /** Rendered by a worker as any request is (an API process starts no engine). */
  preview(info: VoiceInfo): Promise<{ audio: Buffer }> {
    return this.synthesize(previewRequest(info));
  }

  async close(): Promise<void> {
    if (this.watching) clearInterval(this.watching);
    this.watching = null;
    for (const inbox of this.inboxes.values()) inbox.end();
    await this.queue.close();
    this.sub.disconnect();
    this.pub.disconnect();
  }
}
