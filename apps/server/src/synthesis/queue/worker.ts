import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Worker, type Job as QueueJob } from 'bullmq';
import type { Redis } from 'ioredis';
import { AppError, isAppError } from '../../platform/errors.js';
import { toAppError } from '../../speech/errors.js';
import {
  cancelChannel,
  connection,
  heartbeatKey,
  heartbeatMs,
  JOBS_QUEUE,
  outChannel,
  TTS_QUEUE,
  type QueueSettings,
} from './redis.js';
import { frame, Msg } from './frames.js';
import type { JobLayer } from '../jobs/layer.js';
import { longJobMessage, type LongJobMessage } from './bullmq-jobs.js';
import { ttsJob, type TtsJobPayload } from '../jobs/tts.js';

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
