import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Queue, Worker, type Job as QueueJob } from 'bullmq';
import type { Redis } from 'ioredis';
import type { SynthesisRequest, Timings, VoiceInfo } from '@polyvox/speech';
import type { ErrorCode } from '@polyvox/contracts';
import { AppError, isAppError } from '../platform/errors.js';
import { toWire } from './wire.js';
import { toAppError } from '../speech/errors.js';
import { previewRequest, type SynthesisCall, type Synthesizer } from '../speech/synthesizer.js';
import type { RenderedAudio } from './types.js';
import {
  cancelChannel,
  connection,
  heartbeatKey,
  heartbeatMs,
  JOBS_QUEUE,
  outChannel,
  TTS_QUEUE,
  type QueueSettings,
} from './redis-queues.js';
import type { JobLayer } from './jobs/layer.js';
import { longJobMessage, type LongJobMessage } from './jobs/bullmq.js';
import { ttsJob, type TtsJobPayload } from './jobs/tts.js';

export { JOBS_QUEUE, TTS_QUEUE, type QueueSettings } from './redis-queues.js';

/** One message on a request's output channel: its first byte says what the rest is. */
const enum Msg {
  Started = 1,
  Chunk = 2,
  Progress = 3,
  Done = 4,
  Failed = 5,
  /** A stream's alignment so far (JSON), before the audio it times. */
  Timings = 6,
}

/** Runs of one interactive request whose worker died under it (a file, or a stream before its first chunk). */
const INTERACTIVE_RUNS = 2;

function frame(type: Msg, payload: Buffer | string = Buffer.alloc(0)): Buffer {
  return Buffer.concat([Buffer.from([type]), typeof payload === 'string' ? Buffer.from(payload) : payload]);
}

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
          const type = message[0] as Msg;
          const body = message.subarray(1);
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
            const { code, params } = JSON.parse(body.toString()) as { code: ErrorCode; params: Record<string, string | number> };
            throw new AppError(code, params);
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
      if (type === Msg.Progress) request.onProgress?.(JSON.parse(body.toString()) as { done: number; total: number });
      if (type === Msg.Done) {
        const done = JSON.parse(body.toString()) as Omit<RenderedAudio, 'audio'>;
        return { audio: Buffer.concat(parts), ...done };
      }
    }
    throw new Error('synthesis ended without its audio');
  }

  async *synthesizeStream(request: SynthesisRequest, call: SynthesisCall = {}): AsyncGenerator<Buffer> {
    for await (const { type, body } of this.messages('stream', request, request.signal, call.reqId)) {
      if (type === Msg.Chunk) yield body;
      if (type === Msg.Timings) request.onTimings?.(JSON.parse(body.toString()) as Timings);
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

/** What the worker process runs a long job with (the jobs module), given a signal that a cancel aborts. */
export interface LongJobRunner {
  runQueued(id: string, signal: AbortSignal, log: FastifyBaseLogger): Promise<void>;
  /** The queue gave up on the job (its workers kept dying): failed, its hold released. */
  abandon(id: string): Promise<void>;
}

export interface SynthesisWorkerOptions {
  settings: QueueSettings;
  /** The job layer: the `tts` kind's handler runs interactive requests (on this process's engines). */
  layer: JobLayer;
  /** Runs long jobs (their rows are the truth; the queue message only names them). */
  runner: LongJobRunner;
  /** Requests and jobs run at once, per queue. */
  concurrency: number;
  log: FastifyBaseLogger;
}

/** A long job's id from its queue message (checked), or else from the queue's own id for it (the same). */
function longJobId(job: QueueJob<unknown>): string | undefined {
  const message = longJobMessage.safeParse(job.data);
  return message.success ? message.data.id : job.id;
}

/**
 * A worker process: takes interactive synthesis and long jobs from the queues and runs them on this
 * process's engines. SIGTERM drains it (`close`): running work finishes within the grace, the rest is
 * handed back (its lock lapses and another worker takes it).
 */
export class SynthesisWorker {
  private readonly tts: Worker<unknown>;
  private readonly jobs: Worker<unknown>;
  private readonly settings: QueueSettings;
  private readonly layer: JobLayer;
  private readonly log: FastifyBaseLogger;
  private readonly sub: Redis;
  private readonly pub: Redis;
  private readonly running = new Map<string, AbortController>();
  /** This process among the workers: its heartbeat key, and what its start messages name. */
  readonly id = randomUUID();
  private beating: NodeJS.Timeout | null = null;

  constructor(options: SynthesisWorkerOptions) {
    const { settings, runner, concurrency, log } = options;
    this.settings = settings;
    this.layer = options.layer;
    this.log = log;
    this.pub = connection(settings.redisUrl);
    this.sub = connection(settings.redisUrl);
    void this.sub.subscribe(cancelChannel(settings.prefix));
    this.sub.on('message', (_channel: string, id: string) => this.running.get(id)?.abort(new Error('cancelled')));
    const common = {
      // Jobs are taken only once the engines are up (`start`): a starting worker does not hold work it cannot run yet.
      autorun: false,
      prefix: settings.prefix,
      concurrency,
      lockDuration: settings.stalledSeconds * 1000,
      stalledInterval: settings.stalledSeconds * 1000,
      maxStalledCount: settings.maxAttempts,
    };
    this.tts = new Worker<unknown>(TTS_QUEUE, (job) => this.interactive(job), {
      ...common,
      connection: connection(settings.redisUrl),
      // A lost interactive request is not worth running twice: its caller has an answer by then.
      maxStalledCount: 1,
    });
    this.jobs = new Worker<unknown>(
      JOBS_QUEUE,
      async (job) => {
        const message: LongJobMessage | null = (() => {
          const checked = longJobMessage.safeParse(job.data);
          return checked.success ? checked.data : null;
        })();
        // Its row is the job: a message that does not name it (another release's) is given up, its row failed.
        if (!message) throw new Error(`queue message of long job ${job.id} is invalid`);
        return this.tracked(message.id, (signal) =>
          runner.runQueued(message.id, signal, log.child({ reqId: message.reqId, job: message.id })),
        );
      },
      { ...common, connection: connection(settings.redisUrl) },
    );
    this.jobs.on('failed', (job, err) => {
      // Emitted for every failed attempt: only the last one (no retry left) gives the job up.
      if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
      const id = longJobId(job);
      log.error({ err, job: id }, 'synthesis job given up by the queue');
      if (id) void runner.abandon(id).catch(() => {});
    });
    for (const w of [this.tts, this.jobs]) w.on('error', (err) => log.error({ err }, 'queue worker error'));
  }

  private taking = false;

  /** Starts taking work from both queues, once its heartbeat is written (an API process sees it alive before any start). */
  async start(): Promise<void> {
    if (this.taking) return;
    this.taking = true;
    await this.beat();
    const every = heartbeatMs(this.settings) / 3;
    this.beating = setInterval(() => void this.beat(), every);
    for (const w of [this.tts, this.jobs]) void w.run().catch((err: unknown) => this.log.error({ err }, 'queue worker stopped'));
  }

  /** The heartbeat: its key lives one heartbeat lifetime, written again every third of it. */
  private async beat(): Promise<void> {
    await this.pub
      .set(heartbeatKey(this.settings.prefix, this.id), String(process.pid), 'PX', Math.ceil(heartbeatMs(this.settings)))
      .catch((err: unknown) => this.log.warn({ err }, 'queue worker heartbeat not written'));
  }

  get started(): boolean {
    return this.taking;
  }

  private async tracked<T>(id: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    this.running.set(id, controller);
    try {
      return await work(controller.signal);
    } finally {
      this.running.delete(id);
    }
  }

  private async interactive(job: QueueJob<unknown>): Promise<void> {
    const id = job.id!;
    // Checked against the `tts` kind's schema: a message another release wrote (or a damaged one) fails that
    // request alone, with the reason in the log.
    let payload: TtsJobPayload | null = null;
    let invalid: unknown = null;
    try {
      payload = this.layer.read(ttsJob, id, job.data);
    } catch (e) {
      invalid = e;
    }
    const kind = payload?.kind;
    const log = this.log.child({ reqId: payload?.reqId, job: id });
    const channel = outChannel(this.settings.prefix, id);
    await this.tracked(id, async (signal) => {
      const controller = new AbortController();
      const stop = AbortSignal.any([signal, controller.signal]);
      const send = async (type: Msg, body?: Buffer | string) => {
        // Nobody subscribed any more: the API process died or its client left.
        if ((await this.pub.publish(channel, frame(type, body))) === 0) controller.abort(new Error('nobody listens'));
      };
      const t0 = performance.now();
      try {
        // The API process learns first which worker took the request (it watches that worker's heartbeat from
        // then on); the log line, under its request id, says which one took it (after a crash, which took it again).
        await send(Msg.Started, this.id);
        log.info({ kind, attempt: job.attemptsStarted ?? 1 }, 'synthesis taken');
        stop.throwIfAborted();
        if (!payload) throw invalid;
        await this.layer.handler(ttsJob)(payload, {
          signal: stop,
          chunk: (audio) => send(Msg.Chunk, audio),
          timings: (t) => send(Msg.Timings, JSON.stringify(t)),
          done: (end) => send(Msg.Done, JSON.stringify(end)),
        });
        log.info({ kind, ms: Math.round(performance.now() - t0) }, 'synthesis done');
      } catch (e) {
        if (stop.aborted) {
          log.info({ kind, reason: String(stop.reason) }, 'synthesis stopped');
          return;
        }
        const error = toAppError(e);
        const app = isAppError(error) ? error : new AppError('INTERNAL', {}, { cause: error });
        if (app.code === 'INTERNAL') log.error({ err: error }, 'synthesis failed');
        await send(Msg.Failed, JSON.stringify({ code: app.code, params: app.params })).catch(() => {});
      }
    });
  }

  /** Running work gets `graceMs` to finish; then the rest is stopped and handed back to the queue. */
  async close(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const graceful = Promise.all([this.tts.close(), this.jobs.close()]);
    const timedOut = await Promise.race([
      graceful.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      // Stopped work hands its job back (the jobs module queues it again) and its processor ends at once.
      this.log.info({ running: this.running.size }, 'handing back running synthesis');
      for (const c of this.running.values()) c.abort(new Error('worker shutting down'));
      await graceful;
    }
    // Gone: an API process still waiting on a request this worker stopped queues it again at its next check.
    if (this.beating) clearInterval(this.beating);
    this.beating = null;
    await this.pub.del(heartbeatKey(this.settings.prefix, this.id)).catch(() => {});
    this.sub.disconnect();
    this.pub.disconnect();
  }
}

/** Counts the work waiting in both queues: `polyvox_queue_depth` on /metrics, and a worker's readiness. */
export interface QueueProbeOptions {
  settings: QueueSettings;
}

export class QueueProbe {
  private readonly queues: Array<[string, Queue]>;

  constructor(options: QueueProbeOptions) {
    const settings = options.settings;
    this.queues = [TTS_QUEUE, JOBS_QUEUE].map((name) => [
      name,
      new Queue(name, { connection: connection(settings.redisUrl), prefix: settings.prefix }),
    ]);
  }

  async depth(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [name, queue] of this.queues) {
      const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed');
      out[name] = Object.values(counts).reduce((a, b) => a + b, 0);
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map(([, queue]) => queue.close()));
  }
}
