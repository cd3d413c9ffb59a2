import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { ErrorCode } from '@polyvox/contracts';
import { AppError, isAppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { ByteRange, Storage, StoredStream } from '../platform/storage.js';
import type { Database, SynthesisJobsTable } from '../platform/db/schema.js';
import type { CreditsService } from '../credits/service.js';
import type { HeldWork } from './held-work.js';
import type { SynthesisService } from './service.js';
import type { Charge, Prepared } from './types.js';
import { toWire } from './wire.js';
import { JobPayloadError, writePayload } from './jobs/definition.js';
import type { JobLayer } from './jobs/layer.js';
import { JOB_FOLDER, jobOfKey, preparedOf, synthesisJob, timingsKey, type SynthesisJobPayload } from './jobs/synthesis.js';
import { subtitles, type SubtitleFormat, type Timings } from '@polyvox/speech';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface Job {
  id: string;
  accountId: string;
  status: JobStatus;
  progress: { done: number; total: number };
  credits: number;
  characters: number;
  contentType: string;
  storageKey: string | null;
  error: AppError | null;
  createdAt: string;
  finishedAt: string | null;
}

/** How long a finished job (and its audio) stays reachable. */
export const JOB_KEEP_MS = 60 * 60 * 1000;
const FOLDER = JOB_FOLDER;

function toJob(row: SynthesisJobsTable, live?: { done: number; total: number }): Job {
  const params = row.error_params ? (JSON.parse(row.error_params) as Record<string, string | number>) : {};
  return {
    id: row.id,
    accountId: row.account_id,
    status: row.status as JobStatus,
    progress: live ?? { done: Number(row.progress_done), total: Number(row.progress_total) },
    credits: Number(row.credits),
    characters: Number(row.characters),
    contentType: row.content_type,
    storageKey: row.storage_key,
    error: row.error_code ? new AppError(row.error_code as ErrorCode, params) : null,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

interface Live {
  work: HeldWork;
  progress: { done: number; total: number };
  done?: Promise<void>;
}

export interface JobsOptions {
  db: Kysely<Database>;
  synthesis: SynthesisService;
  credits: CreditsService;
  storage: Storage;
  /**
   * The kinds of job with their handlers, and the provider new jobs go through: the database (they run here) or,
   * scale-out, BullMQ (they run in worker processes).
   */
  layer: JobLayer;
  /** This process, as the rows name the one running a job. */
  owner?: string;
  /** A running job whose process has not said it is alive for this long is taken over (embedded). */
  staleSeconds?: number;
  /** Runs of one job before it is failed and its hold released. */
  maxAttempts?: number;
  /** How long a finished job and its audio stay. */
  keepMs?: number;
}

const ACTIVE: JobStatus[] = ['queued', 'running'];
const PROGRESS_WRITE_MS = 500;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Stops work for a shutdown: the job is handed back (to the next start, or another worker), not failed. */
const handBack = () => new Error('handed back');

/**
 * Long texts run as jobs: the price is held when the job is created (so 402 comes at once), the
 * sentences report progress as they finish, and the audio waits in storage for `keepMs`. Jobs are
 * rows that carry their request, so work a dead process left unfinished runs again: at the next
 * start or once its heartbeat is `staleSeconds` old (embedded), or in another worker (the queue's
 * stalled check). The hold stays the job's across runs and is settled once.
 */
export class SynthesisJobs {
  private readonly live = new Map<string, Live>();
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  private readonly options: { owner: string; staleSeconds: number; maxAttempts: number; keepMs: number };
  private readonly db: Kysely<Database>;
  private readonly synthesis: SynthesisService;
  private readonly credits: CreditsService;
  private readonly storage: Storage;
  /** The kinds of job, their handlers and the provider: a worker process runs queued work through it. */
  readonly layer: JobLayer;

  constructor(options: JobsOptions) {
    this.db = options.db;
    this.synthesis = options.synthesis;
    this.credits = options.credits;
    this.storage = options.storage;
    this.layer = options.layer;
    this.options = {
      owner: options.owner ?? newId('request'),
      staleSeconds: options.staleSeconds ?? 30,
      maxAttempts: options.maxAttempts ?? 3,
      keepMs: options.keepMs ?? JOB_KEEP_MS,
    };
  }

  async create(prepared: Prepared, charge: Charge, reqId?: string): Promise<Job> {
    const work = await this.synthesis.hold(prepared, charge);
    const provider = this.layer.provider;
    // Through a queue, the job waits for a worker process; in the database alone, it runs here now.
    const queue = !provider.runsHere;
    const payload: SynthesisJobPayload = {
      request: toWire(prepared.request),
      voiceId: prepared.voiceId ?? prepared.voice.id,
      charge,
      origin: prepared.origin,
    };
    const now = new Date().toISOString();
    const row: SynthesisJobsTable = {
      id: newId('job'),
      account_id: charge.accountId,
      status: queue ? 'queued' : 'running',
      progress_done: 0,
      progress_total: 0,
      credits: prepared.credits,
      characters: prepared.characters,
      content_type: prepared.contentType,
      hold_id: work.hold.id,
      storage_key: null,
      error_code: null,
      error_params: null,
      created_at: now,
      finished_at: null,
      expires_at: null,
      request: writePayload(synthesisJob, payload),
      attempts: queue ? 0 : 1,
      owner: queue ? null : this.options.owner,
      heartbeat_at: queue ? null : now,
      request_id: reqId ?? null,
    };
    try {
      await this.db.insertInto('synthesis_jobs').values(row).execute();
      await provider.submit(synthesisJob.name, row.id, reqId);
    } catch (e) {
      await work.release('job not recorded');
      await this.db
        .deleteFrom('synthesis_jobs')
        .where('id', '=', row.id)
        .execute()
        .catch(() => {});
      throw e;
    }
    if (queue) {
      // The worker that takes the job keeps the hold alive from now on.
      work.handOver();
      return toJob(row);
    }
    return toJob(row, this.start(row.id, payload, preparedOf(payload, row), work, reqId).progress);
  }

  /** A job row's payload, checked against its kind's schema (`JobPayloadError` when it is not what the kind expects). */
  private payload(row: SynthesisJobsTable): SynthesisJobPayload {
    return this.layer.read(synthesisJob, row.id, row.request);
  }

  private start(
    id: string,
    payload: SynthesisJobPayload,
    what: { prepared: Prepared; charge: Charge },
    work: HeldWork,
    reqId?: string,
  ): Live {
    const live: Live = { work, progress: { done: 0, total: 0 } };
    this.live.set(id, live);
    const run = this.run(id, payload, what.prepared, what.charge, live, reqId).finally(() => {
      this.live.delete(id);
      this.running.delete(run);
    });
    live.done = run;
    this.running.add(run);
    return live;
  }

  private async run(
    id: string,
    payload: SynthesisJobPayload,
    prepared: Prepared,
    charge: Charge,
    live: Live,
    reqId?: string,
  ): Promise<void> {
    let written = 0;
    try {
      const handler = this.layer.handler(synthesisJob);
      const { storageKey: key } = await handler(payload, {
        id,
        prepared,
        charge,
        work: live.work,
        ...(reqId ? { reqId } : {}),
        onProgress: (p) => {
          live.progress = { done: p.done, total: p.total };
          if (Date.now() - written < PROGRESS_WRITE_MS) return;
          written = Date.now();
          void this.mine(id)
            .set({ progress_done: p.done, progress_total: p.total, heartbeat_at: new Date().toISOString() })
            .execute()
            .catch(() => {});
        },
      });
      const total = live.progress.total;
      // The row says succeeded before the hold is settled: a crash in between is settled at start.
      if (await this.finish(id, 'succeeded', { storage_key: key, progress_done: total, progress_total: total })) {
        await live.work.settle();
      } else {
        // Cancelled (or taken over) meanwhile: whoever changed the row closed the hold.
        await this.deleteFiles(key);
        await live.work.release('job cancelled');
      }
    } catch (e) {
      const reason: unknown = live.work.signal.reason;
      if (this.stopping || (reason instanceof Error && reason.message === handBack().message)) {
        // Handed back: queued again for the next start or another worker; the hold is taken again then.
        await this.mine(id).set({ status: 'queued', owner: null, heartbeat_at: null }).execute();
        return;
      }
      await live.work.release('job failed');
      const error = isAppError(e) ? e : new AppError('INTERNAL', {}, { cause: e });
      await this.finish(id, 'failed', { error_code: error.code, error_params: JSON.stringify(error.params) }).catch(() => false);
    }
  }

  /** This process's running row of a job (an update that finds nothing when it was cancelled). */
  private mine(id: string) {
    return this.db
      .updateTable('synthesis_jobs')
      .where('id', '=', id)
      .where('status', '=', 'running')
      .where('owner', '=', this.options.owner);
  }

  private async finish(id: string, status: JobStatus, fields: Partial<SynthesisJobsTable>): Promise<boolean> {
    const now = new Date();
    const live = this.live.get(id);
    const row = await this.mine(id)
      .set({
        ...(live ? { progress_done: live.progress.done, progress_total: live.progress.total } : {}),
        ...fields,
        status,
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.options.keepMs).toISOString(),
      })
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Closes a job that will not run (again): failed, its hold released. */
  private async fail(id: string, holdId: string, code: ErrorCode, note: string): Promise<void> {
    const now = new Date();
    await this.db
      .updateTable('synthesis_jobs')
      .set({
        status: 'failed',
        error_code: code,
        error_params: '{}',
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.options.keepMs).toISOString(),
      })
      .where('id', '=', id)
      .where('status', 'in', ACTIVE)
      .execute();
    await this.credits.release(holdId, note);
  }

  /**
   * Takes over a job no live process runs and runs it here. `force`: the queue already decided this
   * process runs it (its previous worker died); otherwise only a job whose heartbeat is stale is taken.
   * Returns the running job, or null when the job was not taken or cannot run again.
   */
  private async resume(row: SynthesisJobsTable, force: boolean, log?: FastifyBaseLogger): Promise<Live | null> {
    if (this.live.has(row.id) || this.stopping) return null;
    const now = new Date();
    const cutoff = new Date(now.getTime() - this.options.staleSeconds * 1000).toISOString();
    const claimed = await this.db
      .updateTable('synthesis_jobs')
      .set((eb) => ({
        status: 'running',
        owner: this.options.owner,
        heartbeat_at: now.toISOString(),
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', '=', row.id)
      .where('status', 'in', ACTIVE)
      .$if(!force, (q) => q.where((eb) => eb.or([eb('heartbeat_at', 'is', null), eb('heartbeat_at', '<', cutoff)])))
      .returning(['attempts'])
      .executeTakeFirst();
    if (!claimed) return null;
    if (!row.request || Number(claimed.attempts) > this.options.maxAttempts) {
      await this.fail(row.id, row.hold_id, 'INTERNAL', 'job interrupted too often');
      return null;
    }
    let payload: SynthesisJobPayload;
    try {
      payload = this.payload(row);
    } catch (e) {
      if (!(e instanceof JobPayloadError)) throw e;
      // Written by another release, or damaged: this job fails (its hold released, the reason in the ledger's note
      // and the log), the others run on.
      log?.error({ job: row.id, problem: e.problem }, 'synthesis job payload invalid; job failed');
      await this.fail(row.id, row.hold_id, 'INTERNAL', `job payload invalid: ${e.problem}`.slice(0, 500));
      return null;
    }
    const hold = await this.credits.holdStatus(row.hold_id);
    if (hold === 'released') {
      try {
        await this.credits.reclaim(row.hold_id);
      } catch (e) {
        if (!isAppError(e) || e.code !== 'INSUFFICIENT_BALANCE') throw e;
        await this.fail(row.id, row.hold_id, 'INSUFFICIENT_BALANCE', 'job could not be held again');
        return null;
      }
    } else if (hold !== 'held') {
      await this.fail(row.id, row.hold_id, 'INTERNAL', 'job hold missing');
      return null;
    }
    const what = preparedOf(payload, row);
    const work = this.synthesis.adopt(
      { id: row.hold_id, accountId: row.account_id, amount: Number(row.credits), apiKeyId: what.charge.apiKeyId ?? null },
      what.prepared,
      what.charge,
    );
    // The run itself, not a promise of it (an async function would wait for a returned promise).
    return this.start(row.id, payload, what, work, row.request_id ?? undefined);
  }

  /** Embedded: runs again every job whose process stopped saying it is alive; returns how many. */
  async resumeStale(log?: FastifyBaseLogger): Promise<number> {
    const cutoff = new Date(Date.now() - this.options.staleSeconds * 1000).toISOString();
    const rows = await this.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('status', 'in', ACTIVE)
      .where((eb) => eb.or([eb('heartbeat_at', 'is', null), eb('heartbeat_at', '<', cutoff)]))
      .orderBy('created_at')
      .limit(100)
      .execute();
    let taken = 0;
    for (const row of rows) if (await this.resume(row, false, log)) taken += 1;
    return taken;
  }

  /** Scale-out: a worker runs the job the queue gave it; `signal` stops it (a cancel, or the worker's shutdown). */
  async runQueued(id: string, signal: AbortSignal, log: FastifyBaseLogger): Promise<void> {
    const row = await this.db.selectFrom('synthesis_jobs').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || !ACTIVE.includes(row.status as JobStatus)) return;
    log.info({ attempt: Number(row.attempts ?? 0) + 1 }, 'synthesis job started');
    const live = await this.resume(row, true, log);
    if (!live) {
      // Taken while this worker shuts down: back to the queue for another worker.
      if (this.stopping) throw new Error('synthesis job handed back');
      return;
    }
    const stop = () => {
      log.info({ reason: String(signal.reason) }, 'synthesis job stopped');
      live.work.abort(/shutting down/.test(String(signal.reason)) ? handBack() : new Error('job cancelled'));
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    await live.done;
    const after = await this.db.selectFrom('synthesis_jobs').select(['status']).where('id', '=', id).executeTakeFirst();
    log.info({ status: after?.status }, 'synthesis job ended');
    // Handed back: the queue runs it again (another worker, or this one after a restart).
    if (after?.status === 'queued') throw new Error('synthesis job handed back');
  }

  /** The queue gave up on a job: failed, its hold released. */
  async abandon(id: string): Promise<void> {
    const row = await this.db.selectFrom('synthesis_jobs').select(['hold_id']).where('id', '=', id).executeTakeFirst();
    if (row) await this.fail(id, row.hold_id, 'INTERNAL', 'job given up');
  }

  /** Says this process is alive for every job it runs, so no other process takes them over. */
  async heartbeat(): Promise<void> {
    const ids = [...this.live.keys()];
    if (ids.length === 0) return;
    await this.db
      .updateTable('synthesis_jobs')
      .set({ heartbeat_at: new Date().toISOString() })
      .where('id', 'in', ids)
      .where('owner', '=', this.options.owner)
      .execute();
  }

  /**
   * Background rounds: the heartbeat of this process's jobs, settling jobs a dead process finished but
   * did not settle, and (embedded) taking over stale ones.
   * Returns the stop function.
   */
  startRounds(resumeStale: boolean, log: FastifyBaseLogger): () => void {
    const every = Math.max(250, (this.options.staleSeconds * 1000) / 3);
    const beat = setInterval(
      () => void this.heartbeat().catch((err: unknown) => log.error({ err }, 'job heartbeat failed')),
      every,
    );
    beat.unref();
    let busy = false;
    const take = setInterval(() => {
      if (busy) return;
      busy = true;
      this.settleFinished(every)
        .then(async (settled) => {
          if (settled > 0) log.info({ settled }, 'settled finished synthesis jobs');
          const resumed = resumeStale ? await this.resumeStale(log) : 0;
          if (resumed > 0) log.info({ resumed }, 'resumed synthesis jobs');
        })
        .catch((err: unknown) => log.error({ err }, 'resuming jobs failed'))
        .finally(() => (busy = false));
    }, every);
    take.unref();
    return () => {
      clearInterval(beat);
      clearInterval(take);
    };
  }

  /** Another account's job answers exactly as a missing one. */
  async get(id: string, accountId: string): Promise<Job> {
    const row = await this.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return toJob(row, row.status === 'running' ? this.live.get(id)?.progress : undefined);
  }

  async list(accountId: string, page: number, pageSize: number): Promise<{ items: Job[]; total: number }> {
    const rows = await this.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute();
    const { total } = await this.db
      .selectFrom('synthesis_jobs')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return {
      items: rows.map((r) => toJob(r, r.status === 'running' ? this.live.get(r.id)?.progress : undefined)),
      total: Number(total),
    };
  }

  /** Stops a queued or running job and releases its hold; a finished job is answered as it is. */
  async cancel(id: string, accountId: string): Promise<Job> {
    const job = await this.get(id, accountId);
    if (!ACTIVE.includes(job.status)) return job;
    const now = new Date();
    const row = await this.db
      .updateTable('synthesis_jobs')
      .set({
        status: 'cancelled',
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.options.keepMs).toISOString(),
      })
      .where('id', '=', id)
      .where('status', 'in', ACTIVE)
      .returning(['hold_id'])
      .executeTakeFirst();
    if (row) {
      await this.credits.release(row.hold_id, 'job cancelled');
      const live = this.live.get(id);
      if (live) {
        live.work.abort(new AppError('INTERNAL', {}, { cause: new Error('job cancelled') }));
        await live.done;
      }
      await this.layer.provider.cancel(synthesisJob.name, id);
    }
    return this.get(id, accountId);
  }

  /** A finished job's audio as a stream from storage (the asked range of it, if any). */
  async audio(id: string, accountId: string, range?: ByteRange): Promise<{ contentType: string; file: StoredStream }> {
    const job = await this.get(id, accountId);
    const file = job.status === 'succeeded' && job.storageKey ? await this.storage.getStream(job.storageKey, range) : null;
    if (!file) throw new AppError('NOT_FOUND');
    return { contentType: job.contentType, file };
  }

  /** A finished job's subtitles, from the timings stored with its audio (none for a voice without timings). */
  async subtitles(id: string, accountId: string, format: SubtitleFormat): Promise<string> {
    const job = await this.get(id, accountId);
    const stored = job.status === 'succeeded' && job.storageKey ? await this.storage.get(timingsKey(job.storageKey)) : null;
    if (!stored) throw new AppError('NOT_FOUND');
    return subtitles(JSON.parse(stored.toString('utf8')) as Timings, format);
  }

  /** Deletes a job's stored files: its audio and its timings. */
  private async deleteFiles(storageKey: string): Promise<void> {
    await this.storage.delete(timingsKey(storageKey));
    await this.storage.delete(storageKey);
  }

  /**
   * At start, before the hold sweeper: a job recorded as succeeded whose hold is still open is settled
   * (its audio exists); a job a dead process left unfinished runs again (or, without its request or
   * after `maxAttempts` runs, is failed and its hold released); half-written files are removed.
   */
  async recover(resumeStale = true): Promise<void> {
    await this.settleFinished(0);
    if (!resumeStale) return this.sweep().then(() => undefined);
    // Embedded: unfinished jobs whose process is gone run again here (a queue's workers take their own),
    // and files half written by a dead process go.
    await this.resumeStale();
    for (const key of await this.storage.list(FOLDER)) if (key.includes('.tmp-')) await this.storage.delete(key);
    await this.sweep();
  }

  /**
   * A job recorded as succeeded whose hold is still open (its process died between the two) is settled;
   * one whose hold was swept meanwhile is paid again or withdrawn. `graceMs` leaves a live process the
   * moment between its two writes. Returns how many were closed.
   */
  async settleFinished(graceMs: number): Promise<number> {
    const rows = await this.db
      .selectFrom('synthesis_jobs as j')
      .innerJoin('credit_holds as h', 'h.id', 'j.hold_id')
      .selectAll('j')
      .where('j.status', '=', 'succeeded')
      .where('h.status', 'in', ['held', 'released'])
      .where('j.finished_at', '<', new Date(Date.now() - graceMs).toISOString())
      .limit(100)
      .execute();
    let closed = 0;
    for (const row of rows) {
      if (this.live.has(row.id)) continue;
      const hold = await this.credits.holdStatus(row.hold_id);
      if (hold === 'released' && !(await this.reclaimOrWithdraw(row))) continue;
      // Its payload only names the charge's details: a payload that is not valid settles with the row's alone.
      const checked = row.request ? synthesisJob.payload.safeParse(safeJson(row.request)) : null;
      const charge = checked?.success ? checked.data : null;
      const details = {
        characters: Number(row.characters),
        record_type: charge?.charge.recordType ?? 'tts',
        ...(charge ? { voice_id: charge.voiceId, api_key_id: charge.charge.apiKeyId ?? null } : {}),
      };
      if (await this.credits.settle(row.hold_id, Number(row.credits), details)) closed += 1;
    }
    return closed;
  }

  /** Audio whose hold was swept is paid for again, or withdrawn: never reachable for free. */
  private async reclaimOrWithdraw(row: SynthesisJobsTable): Promise<boolean> {
    try {
      return await this.credits.reclaim(row.hold_id);
    } catch (e) {
      if (!isAppError(e) || e.code !== 'INSUFFICIENT_BALANCE') throw e;
      if (row.storage_key) await this.deleteFiles(row.storage_key);
      await this.db
        .updateTable('synthesis_jobs')
        .set({ status: 'failed', storage_key: null, error_code: 'INSUFFICIENT_BALANCE', error_params: '{}' })
        .where('id', '=', row.id)
        .execute();
      return false;
    }
  }

  /** Deletes finished jobs past their time with their audio, and any job file no row refers to. */
  async sweep(now = new Date()): Promise<number> {
    const expired = await this.db
      .selectFrom('synthesis_jobs')
      .select(['id', 'storage_key'])
      .where('status', 'in', ['succeeded', 'failed', 'cancelled'])
      .where('expires_at', '<', now.toISOString())
      .execute();
    for (const row of expired) {
      if (row.storage_key) await this.deleteFiles(row.storage_key);
      await this.db.deleteFrom('synthesis_jobs').where('id', '=', row.id).execute();
    }
    let removed = expired.length;
    const files = (await this.storage.list(FOLDER)).filter((key) => !key.includes('.tmp-'));
    if (files.length > 0) {
      const ids = files.map(jobOfKey);
      const known = new Set(
        (await this.db.selectFrom('synthesis_jobs').select('id').where('id', 'in', ids).execute()).map((r) => r.id),
      );
      for (const [i, key] of files.entries()) {
        if (known.has(ids[i]!)) continue;
        await this.storage.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  /** Waits for running jobs (the shutdown stops them first), so every hold is settled or released. */
  /** Shutdown: jobs stopped from now on are handed back (queued again), not failed. */
  beginShutdown(): void {
    this.stopping = true;
  }

  async drain(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }
}
