import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Queue, Worker, type Job as QueueJob } from 'bullmq';
import { Redis } from 'ioredis';
import type { SynthesisRequest } from '@polyvox/speech';
import type { ErrorCode } from '@polyvox/contracts';
import { AppError, isAppError } from '../platform/errors.js';
import { metrics } from '../platform/metrics.js';
import { fromWire, toWire, type WireRequest } from './job-data.js';
import { toAppError } from './errors.js';
import type { SpeechHost } from './speech-host.js';

/** The queue of interactive synthesis (a file or a stream someone waits on) and the queue of long jobs. */
export const TTS_QUEUE = 'tts';
export const JOBS_QUEUE = 'jobs';

/** One message on a request's output channel: its first byte says what the rest is. */
const enum Msg {
  Started = 1,
  Chunk = 2,
  Progress = 3,
  Done = 4,
  Failed = 5,
}

export interface TtsJobData {
  kind: 'file' | 'stream';
  request: WireRequest;
  reqId?: string;
}

export interface LongJobData {
  id: string;
  reqId?: string;
}

export interface QueueSettings {
  redisUrl: string;
  prefix: string;
  stalledSeconds: number;
  /** How long an interactive request waits for a worker to take it before it is refused (RATE_LIMITED). */
  waitSeconds?: number;
  maxAttempts: number;
}

function connection(url: string): Redis {
  // BullMQ's blocking commands want no retry limit on the connection.
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

const outChannel = (prefix: string, id: string) => `${prefix}:out:${id}`;
const cancelChannel = (prefix: string) => `${prefix}:cancel`;

function frame(type: Msg, payload: Buffer | string = Buffer.alloc(0)): Buffer {
  return Buffer.concat([Buffer.from([type]), typeof payload === 'string' ? Buffer.from(payload) : payload]);
}

/** Messages in order, waited on one at a time; `end` wakes a waiting reader with nothing. */
class Inbox {
  private readonly items: Buffer[] = [];
  private waiter: ((b: Buffer | null) => void) | null = null;
  private ended = false;

  push(b: Buffer): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w(b);
    } else this.items.push(b);
  }

  end(): void {
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

/**
 * The API side of queued synthesis: the request goes to the `tts` queue and its audio comes back on a
 * Redis channel of its own that this process subscribed to first, so bytes reach the process that holds
 * the client's connection whichever worker made them. Leaving (the signal) tells the worker to stop.
 */
export class RemoteSynthesis {
  private readonly queue: Queue<TtsJobData>;
  private readonly sub: Redis;
  private readonly pub: Redis;
  private readonly inboxes = new Map<string, Inbox>();

  constructor(private readonly settings: QueueSettings) {
    this.queue = new Queue<TtsJobData>(TTS_QUEUE, { connection: connection(settings.redisUrl), prefix: settings.prefix });
    this.sub = connection(settings.redisUrl);
    this.pub = connection(settings.redisUrl);
    this.sub.on('messageBuffer', (channel: Buffer, message: Buffer) => this.inboxes.get(channel.toString())?.push(message));
  }

  /** Waiting and running interactive syntheses (for the benchmark and operators). */
  async depth(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'active', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  private async *messages(
    kind: TtsJobData['kind'],
    request: SynthesisRequest,
    signal: AbortSignal | undefined,
    reqId: string | undefined,
  ): AsyncGenerator<{ type: Msg; body: Buffer }> {
    signal?.throwIfAborted();
    const id = randomUUID();
    const channel = outChannel(this.settings.prefix, id);
    const inbox = new Inbox();
    this.inboxes.set(channel, inbox);
    const onAbort = () => inbox.end();
    signal?.addEventListener('abort', onAbort, { once: true });
    let finished = false;
    try {
      await this.sub.subscribe(channel);
      await this.queue.add(
        kind,
        { kind, request: toWire(request), ...(reqId ? { reqId } : {}) },
        { jobId: id, removeOnComplete: true, removeOnFail: true, attempts: 1 },
      );
      let started = false;
      let sent = false;
      for (;;) {
        const message = started ? await inbox.next() : await this.firstMessage(id, inbox);
        if (!message) throw signal?.reason ?? new Error('synthesis stopped');
        const type = message[0] as Msg;
        const body = message.subarray(1);
        if (type === Msg.Started) {
          // A second start is a worker that died and whose job ran again: a stream cannot be resent, a whole
          // file starts over (its reader drops whatever the dead worker had sent).
          if (started && sent && kind === 'stream')
            throw new AppError('INTERNAL', {}, { cause: new Error('worker lost mid-stream') });
          const again = started;
          started = true;
          if (again) yield { type, body };
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

  async synthesize(
    request: SynthesisRequest,
    opts: { signal?: AbortSignal; reqId?: string },
  ): Promise<{ audio: Buffer; durationSec: number; cached: boolean }> {
    const parts: Buffer[] = [];
    for await (const { type, body } of this.messages('file', request, opts.signal, opts.reqId)) {
      if (type === Msg.Started) parts.length = 0;
      if (type === Msg.Chunk) parts.push(body);
      if (type === Msg.Progress) request.onProgress?.(JSON.parse(body.toString()) as { done: number; total: number });
      if (type === Msg.Done) {
        const done = JSON.parse(body.toString()) as { durationSec: number; cached: boolean };
        return { audio: Buffer.concat(parts), ...done };
      }
    }
    throw new Error('synthesis ended without its audio');
  }

  async *synthesizeStream(request: SynthesisRequest, opts: { signal?: AbortSignal; reqId?: string }): AsyncGenerator<Buffer> {
    for await (const { type, body } of this.messages('stream', request, opts.signal, opts.reqId)) {
      if (type === Msg.Chunk) yield body;
    }
  }

  async close(): Promise<void> {
    for (const inbox of this.inboxes.values()) inbox.end();
    await this.queue.close();
    this.sub.disconnect();
    this.pub.disconnect();
  }
}

/** The API side of long jobs: the job's row is the truth; the queue message only names it. */
export class JobQueue {
  private readonly queue: Queue<LongJobData>;
  private readonly pub: Redis;

  constructor(private readonly settings: QueueSettings) {
    this.queue = new Queue<LongJobData>(JOBS_QUEUE, { connection: connection(settings.redisUrl), prefix: settings.prefix });
    this.pub = connection(settings.redisUrl);
  }

  async add(id: string, reqId?: string): Promise<void> {
    // A job a worker hands back on shutdown (or whose worker died) runs again, up to the attempts.
    await this.queue.add(
      'job',
      { id, ...(reqId ? { reqId } : {}) },
      { jobId: id, removeOnComplete: true, removeOnFail: true, attempts: this.settings.maxAttempts },
    );
  }

  /** A cancelled job: out of the queue if it still waits, stopped in whichever worker runs it. */
  async cancel(id: string): Promise<void> {
    await this.queue.remove(id).catch(() => {});
    await this.pub.publish(cancelChannel(this.settings.prefix), id);
  }

  async depth(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'active', 'prioritized', 'delayed');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.pub.disconnect();
  }
}

/** What the worker process runs a long job with (the jobs module), given a signal that a cancel aborts. */
export interface LongJobRunner {
  runQueued(id: string, signal: AbortSignal, log: FastifyBaseLogger): Promise<void>;
  /** The queue gave up on the job (its workers kept dying): failed, its hold released. */
  abandon(id: string): Promise<void>;
}

/**
 * A worker process: takes interactive synthesis and long jobs from the queues and runs them on this
 * process's engines. SIGTERM drains it (`close`): running work finishes within the grace, the rest is
 * handed back (its lock lapses and another worker takes it).
 */
export class SynthesisWorker {
  private readonly tts: Worker<TtsJobData>;
  private readonly jobs: Worker<LongJobData>;
  private readonly sub: Redis;
  private readonly pub: Redis;
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly settings: QueueSettings,
    private readonly speech: SpeechHost,
    runner: LongJobRunner,
    concurrency: number,
    private readonly log: FastifyBaseLogger,
  ) {
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
    this.tts = new Worker<TtsJobData>(TTS_QUEUE, (job) => this.interactive(job), {
      ...common,
      connection: connection(settings.redisUrl),
      // A lost interactive request is not worth running twice: its caller has an answer by then.
      maxStalledCount: 1,
    });
    this.jobs = new Worker<LongJobData>(
      JOBS_QUEUE,
      (job) =>
        this.tracked(job.data.id, (signal) =>
          runner.runQueued(job.data.id, signal, log.child({ reqId: job.data.reqId, job: job.data.id })),
        ),
      { ...common, connection: connection(settings.redisUrl) },
    );
    this.jobs.on('failed', (job, err) => {
      // Emitted for every failed attempt: only the last one (no retry left) gives the job up.
      if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
      log.error({ err, job: job.data.id, reqId: job.data.reqId }, 'synthesis job given up by the queue');
      void runner.abandon(job.data.id).catch(() => {});
    });
    for (const w of [this.tts, this.jobs]) w.on('error', (err) => log.error({ err }, 'queue worker error'));
  }

  private taking = false;

  /** Starts taking work from both queues. */
  start(): void {
    if (this.taking) return;
    this.taking = true;
    for (const w of [this.tts, this.jobs]) void w.run().catch((err: unknown) => this.log.error({ err }, 'queue worker stopped'));
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

  private async interactive(job: QueueJob<TtsJobData>): Promise<void> {
    const id = job.id!;
    const log = this.log.child({ reqId: job.data.reqId, job: id });
    const channel = outChannel(this.settings.prefix, id);
    await this.tracked(id, async (signal) => {
      const controller = new AbortController();
      const stop = AbortSignal.any([signal, controller.signal]);
      const send = async (type: Msg, payload?: Buffer | string) => {
        // Nobody subscribed any more: the API process died or its client left.
        if ((await this.pub.publish(channel, frame(type, payload))) === 0) controller.abort(new Error('nobody listens'));
      };
      const t0 = performance.now();
      try {
        // Which worker took which request (and, after a crash, which one took it again), under its request id.
        log.info({ kind: job.data.kind, attempt: job.attemptsStarted ?? 1 }, 'synthesis taken');
        await send(Msg.Started);
        stop.throwIfAborted();
        const speech = await this.speech.get();
        const request = { ...fromWire(job.data.request), signal: stop };
        if (job.data.kind === 'stream') {
          for await (const chunk of speech.synthesizeStream(request)) {
            stop.throwIfAborted();
            await send(Msg.Chunk, chunk);
          }
          await send(Msg.Done, JSON.stringify({ durationSec: 0, cached: false }));
          metrics.synthesis(request.voice?.engine ?? 'unknown', 'stream', (performance.now() - t0) / 1000, 0);
        } else {
          const result = await speech.synthesize(request);
          stop.throwIfAborted();
          await send(Msg.Chunk, result.audio);
          await send(Msg.Done, JSON.stringify({ durationSec: result.durationSec, cached: result.cached }));
          if (!result.cached)
            metrics.synthesis(request.voice?.engine ?? 'unknown', 'file', (performance.now() - t0) / 1000, result.durationSec);
        }
        log.info({ kind: job.data.kind, ms: Math.round(performance.now() - t0) }, 'synthesis done');
      } catch (e) {
        if (stop.aborted) {
          log.info({ kind: job.data.kind, reason: String(stop.reason) }, 'synthesis stopped');
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
    this.sub.disconnect();
    this.pub.disconnect();
  }
}

/** Counts the work waiting in both queues: `polyvox_queue_depth` on /metrics, and a worker's readiness. */
export class QueueProbe {
  private readonly queues: Array<[string, Queue]>;

  constructor(settings: QueueSettings) {
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
