import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { ErrorCode } from '@polyvox/contracts';
import { AppError, isAppError } from '../../platform/errors.js';
import type { Storage } from '../../platform/storage.js';
import type { Database, SynthesisJobsTable } from '../../platform/db/schema.js';
import type { CreditsService } from '../../credits/service.js';
import type { HeldWork } from '../held-work.js';
import type { SynthesisService } from '../service.js';
import type { Charge, Prepared } from '../types.js';
import { JobPayloadError } from './definition.js';
import type { JobLayer, JobProvider } from './layer.js';
import { deleteJobFiles, preparedOf, synthesisJob, type SynthesisJobPayload } from './synthesis.js';
import { runOwnHolds } from './own-holds.js';
import { parentOf, partsNeedle } from './studio.js';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
/** A job that is not over: waiting for a process, or running in one. */
export const ACTIVE: JobStatus[] = ['queued', 'running'];

export interface JobProgress {
  done: number;
  total: number;
}

/**
 * Jobs in the database alone (ROLE=all): a new job runs in the process that recorded it (`DatabaseJobRunner.start`),
 * and one whose process went quiet is taken over by another process's rounds (`DatabaseJobRunner.startRounds`).
 * Nothing is sent anywhere: the row is the whole of it, and a cancel reaches the running job through its row and its
 * process.
 */
export class DatabaseJobProvider implements JobProvider {
  readonly name = 'database' as const;
  readonly runsHere = true;

  async submit(): Promise<void> {}

  async cancel(): Promise<void> {}

  async depth(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}

interface Live {
  /** Stops the run (a cancel, a shutdown); whoever runs it closes what it holds. */
  stop(reason: Error): void;
  signal: AbortSignal;
  progress: JobProgress;
  done?: Promise<void>;
  /** A job of a kind whose row holds nothing: stopped when its row stops being this process's (see `heartbeat`). */
  own?: boolean;
}

export interface DatabaseJobRunnerOptions {
  db: Kysely<Database>;
  synthesis: SynthesisService;
  credits: CreditsService;
  storage: Storage;
  /** The kinds of job with their handlers. */
  layer: JobLayer;
  /** This process, as the rows name the one running a job. */
  owner: string;
  /** A running job whose process has not said it is alive for this long is taken over (embedded). */
  staleSeconds: number;
  /** Runs of one job before it is failed and its hold released. */
  maxAttempts: number;
  /** How long a finished job and its audio stay. */
  keepMs: number;
}

const PROGRESS_WRITE_MS = 500;

/** Stops work for a shutdown: the job is handed back (to the next start, or another worker), not failed. */
const handBack = () => new Error('handed back');

/**
 * The rows' side of running jobs, whichever provider delivered them: a job runs in this process under its row
 * (`owner`, a heartbeat, progress, a final update conditional on the row still being this process's), a job no live
 * process runs is claimed by a conditional update that counts its attempts, and a payload is checked against its
 * kind's schema before it runs. The database provider runs a new job here at once (`start`) and its rounds take over
 * stale ones (`resumeStale`); a BullMQ worker runs the job the queue gave it (`runQueued`).
 */
export class DatabaseJobRunner {
  private readonly live = new Map<string, Live>();
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  private readonly options: DatabaseJobRunnerOptions;

  constructor(options: DatabaseJobRunnerOptions) {
    this.options = options;
  }

  /** The progress of a job running in this process (undefined when it runs elsewhere or not at all). */
  progress(id: string): JobProgress | undefined {
    return this.live.get(id)?.progress;
  }

  isRunning(id: string): boolean {
    return this.live.has(id);
  }

  /** Stops a job running in this process (its row already says why) and waits for its run to end. */
  async stop(id: string, reason: Error): Promise<void> {
    const live = this.live.get(id);
    if (!live) return;
    live.stop(reason);
    await live.done;
  }

  /** Runs a job recorded as running under this process, on its hold; returns its live progress. */
  start(
    id: string,
    payload: SynthesisJobPayload,
    what: { prepared: Prepared; charge: Charge },
    work: HeldWork,
    reqId?: string,
  ): JobProgress {
    return this.begin(id, payload, what, work, reqId).progress;
  }

  /** Runs a job of a kind whose row holds nothing, recorded as running under this process; returns its live progress. */
  startOwn(row: SynthesisJobsTable): JobProgress {
    // Its first run: the row was just written, so the tracked run is there (never null).
    return this.beginOwn(row, 1).progress;
  }

  private begin(
    id: string,
    payload: SynthesisJobPayload,
    what: { prepared: Prepared; charge: Charge },
    work: HeldWork,
    reqId?: string,
  ): Live {
    const live: Live = { stop: (r) => work.abort(r), signal: work.signal, progress: { done: 0, total: 0 } };
    return this.track(id, live, () => this.run(id, payload, what.prepared, what.charge, work, live, reqId));
  }

  /** Runs `body` as the job `id` of this process: live (its progress, a stop) until it ends. */
  private track(id: string, live: Live, body: () => Promise<void>): Live {
    this.live.set(id, live);
    const run = body().finally(() => {
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
    work: HeldWork,
    live: Live,
    reqId?: string,
  ): Promise<void> {
    try {
      const handler = this.options.layer.handler(synthesisJob);
      const { storageKey: key } = await handler(payload, {
        id,
        prepared,
        charge,
        work,
        ...(reqId ? { reqId } : {}),
        onProgress: this.progressOf(id, live),
      });
      const total = live.progress.total;
      // The row says succeeded before the hold is settled: a crash in between is settled at start.
      if (await this.finish(id, 'succeeded', { storage_key: key, progress_done: total, progress_total: total })) {
        await work.settle();
      } else {
        // Cancelled (or taken over) meanwhile: whoever changed the row closed the hold.
        await deleteJobFiles(this.options.storage, key);
        await work.release('job cancelled');
      }
    } catch (e) {
      if (await this.handedBack(id, live)) return;
      await work.release('job failed');
      await this.failed(id, e);
    }
  }

  /** The run's progress, kept live here and written to its row at most every PROGRESS_WRITE_MS. */
  private progressOf(id: string, live: Live): (p: JobProgress) => void {
    let written = 0;
    return (p) => {
      live.progress = { done: p.done, total: p.total };
      if (Date.now() - written < PROGRESS_WRITE_MS) return;
      written = Date.now();
      void this.mine(id)
        .set({ progress_done: p.done, progress_total: p.total, heartbeat_at: new Date().toISOString() })
        .execute()
        .catch(() => {});
    };
  }

  /** A run stopped by a shutdown: queued again for the next start or another worker (a hold is taken again then). */
  private async handedBack(id: string, live: Live): Promise<boolean> {
    const reason: unknown = live.signal.reason;
    if (!this.stopping && !(reason instanceof Error && reason.message === handBack().message)) return false;
    await this.mine(id).set({ status: 'queued', owner: null, heartbeat_at: null }).execute();
    return true;
  }

  private async failed(id: string, e: unknown): Promise<void> {
    const error = isAppError(e) ? e : new AppError('INTERNAL', {}, { cause: e });
    await this.finish(id, 'failed', { error_code: error.code, error_params: JSON.stringify(error.params) }).catch(() => false);
  }

  /**
   * A job of a kind whose row holds nothing (a Studio conversion, a hold per paragraph): run here under its row,
   * its handler given the stop signal, its run number and its progress.
   */
  private beginOwn(row: SynthesisJobsTable, attempt: number, log?: FastifyBaseLogger): Live {
    const controller = new AbortController();
    const live: Live = {
      stop: (r) => controller.abort(r),
      signal: controller.signal,
      progress: { done: 0, total: 0 },
      own: true,
    };
    const body = async () => {
      try {
        await runOwnHolds(this.options.layer, row, {
          id: row.id,
          accountId: row.account_id,
          attempt,
          signal: controller.signal,
          onProgress: this.progressOf(row.id, live),
          ...(row.request_id ? { reqId: row.request_id } : {}),
        });
        const { done, total } = live.progress;
        await this.finish(row.id, 'succeeded', { progress_done: done, progress_total: total });
      } catch (e) {
        if (await this.handedBack(row.id, live)) return;
        if (e instanceof JobPayloadError) log?.error({ job: row.id, problem: e.problem }, 'job payload invalid; job failed');
        await this.failed(row.id, e);
        // A group that failed or was cancelled ends its parts (each process running one stops at its next round).
        await this.cancelParts(row.id).catch(() => {});
      }
    };
    return this.track(row.id, live, body);
  }

  /** This process's running row of a job (an update that finds nothing when it was cancelled). */
  private mine(id: string) {
    return this.options.db
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
    await this.options.db
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
    // A kind whose row holds nothing ('') has nothing to give back.
    if (holdId) await this.options.credits.release(holdId, note);
  }

  /**
   * Takes over a job no live process runs and runs it here. `force`: the queue already decided this
   * process runs it (its previous worker died); otherwise only a job whose heartbeat is stale is taken.
   * Returns the running job, or null when the job was not taken or cannot run again.
   */
  private async resume(row: SynthesisJobsTable, force: boolean, log?: FastifyBaseLogger): Promise<Live | null> {
    if (this.live.has(row.id) || this.stopping) return null;
    // A group's part is taken only when no live process runs it (its group's row may run it right now), even when a
    // queue hands it over: a part whose process died is its group's to run again.
    if (parentOf(row.request)) force = false;
    const { db, credits, owner, staleSeconds, maxAttempts } = this.options;
    const now = new Date();
    const cutoff = new Date(now.getTime() - staleSeconds * 1000).toISOString();
    const claimed = await db
      .updateTable('synthesis_jobs')
      .set((eb) => ({
        status: 'running',
        owner,
        heartbeat_at: now.toISOString(),
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', '=', row.id)
      .where('status', 'in', ACTIVE)
      .$if(!force, (q) => q.where((eb) => eb.or([eb('heartbeat_at', 'is', null), eb('heartbeat_at', '<', cutoff)])))
      .returning(['attempts'])
      .executeTakeFirst();
    if (!claimed) return null;
    if (!row.request || Number(claimed.attempts) > maxAttempts) {
      await this.fail(row.id, row.hold_id, 'INTERNAL', 'job interrupted too often');
      return null;
    }
    if (row.kind && row.kind !== synthesisJob.name) return this.beginOwn(row, Number(claimed.attempts), log);
    let payload: SynthesisJobPayload;
    try {
      // Checked against its kind's schema (`JobPayloadError` when it is not what the kind expects).
      payload = this.options.layer.read(synthesisJob, row.id, row.request);
    } catch (e) {
      if (!(e instanceof JobPayloadError)) throw e;
      // Written by another release, or damaged: this job fails (its hold released, the reason in the ledger's note
      // and the log), the others run on.
      log?.error({ job: row.id, problem: e.problem }, 'synthesis job payload invalid; job failed');
      await this.fail(row.id, row.hold_id, 'INTERNAL', `job payload invalid: ${e.problem}`.slice(0, 500));
      return null;
    }
    const hold = await credits.holdStatus(row.hold_id);
    if (hold === 'released') {
      try {
        await credits.reclaim(row.hold_id);
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
    const work = this.options.synthesis.adopt(
      { id: row.hold_id, accountId: row.account_id, amount: Number(row.credits), apiKeyId: what.charge.apiKeyId ?? null },
      what.prepared,
      what.charge,
    );
    // The run itself, not a promise of it (an async function would wait for a returned promise).
    return this.begin(row.id, payload, what, work, row.request_id ?? undefined);
  }

  /** Embedded: runs again every job whose process stopped saying it is alive; returns how many. */
  async resumeStale(log?: FastifyBaseLogger): Promise<number> {
    const cutoff = new Date(Date.now() - this.options.staleSeconds * 1000).toISOString();
    const rows = await this.options.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('status', 'in', ACTIVE)
      .where((eb) => eb.or([eb('heartbeat_at', 'is', null), eb('heartbeat_at', '<', cutoff)]))
      // A group's parts are its row's to run (`runPart`): taken here, they would all run at once.
      .where((eb) => eb.or([eb('request', 'is', null), eb('request', 'not like', '%"parentId":%')]))
      .orderBy('created_at')
      .limit(100)
      .execute();
    let taken = 0;
    for (const row of rows) if (await this.resume(row, false, log)) taken += 1;
    return taken;
  }

  /** Scale-out: a worker runs the job the queue gave it; `signal` stops it (a cancel, or the worker's shutdown). */
  async runQueued(id: string, signal: AbortSignal, log: FastifyBaseLogger): Promise<void> {
    const { db } = this.options;
    const row = await db.selectFrom('synthesis_jobs').selectAll().where('id', '=', id).executeTakeFirst();
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
      live.stop(/shutting down/.test(String(signal.reason)) ? handBack() : new Error('job cancelled'));
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    await live.done;
    const after = await db.selectFrom('synthesis_jobs').select(['status']).where('id', '=', id).executeTakeFirst();
    log.info({ status: after?.status }, 'synthesis job ended');
    // Handed back: the queue runs it again (another worker, or this one after a restart).
    if (after?.status === 'queued') throw new Error('synthesis job handed back');
  }

  /** The queue gave up on a job: failed, its hold released. */
  async abandon(id: string): Promise<void> {
    const row = await this.options.db.selectFrom('synthesis_jobs').select(['hold_id']).where('id', '=', id).executeTakeFirst();
    if (row) await this.fail(id, row.hold_id, 'INTERNAL', 'job given up');
  }

  /**
   * Says this process is alive for every job it runs, so no other process takes them over. A job of a kind whose row
   * holds nothing whose row is no longer this process's running one (cancelled, as a group's part is when its group
   * fails, or taken over) is stopped.
   */
  async heartbeat(): Promise<void> {
    const ids = [...this.live.keys()];
    if (ids.length === 0) return;
    await this.options.db
      .updateTable('synthesis_jobs')
      .set({ heartbeat_at: new Date().toISOString() })
      .where('id', 'in', ids)
      .where('owner', '=', this.options.owner)
      .execute();
    const own = ids.filter((id) => this.live.get(id)?.own);
    if (own.length === 0) return;
    const mine = new Set(
      (
        await this.options.db
          .selectFrom('synthesis_jobs')
          .select('id')
          .where('id', 'in', own)
          .where('status', '=', 'running')
          .where('owner', '=', this.options.owner)
          .execute()
      ).map((r) => r.id),
    );
    for (const id of own) if (!mine.has(id)) this.live.get(id)?.stop(new Error('job cancelled'));
  }

  /** The parts of a group (a whole project's conversion), in the order they were recorded. */
  parts(parentId: string): Promise<SynthesisJobsTable[]> {
    return this.options.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('request', 'like', `%${partsNeedle(parentId)}%`)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /**
   * Runs a group's part here when no live process runs it (none took it yet, or its process stopped saying it is
   * alive), stopped with `signal`; resolves once its run ended, true when it ran here.
   */
  async runPart(row: SynthesisJobsTable, signal: AbortSignal, log?: FastifyBaseLogger): Promise<boolean> {
    if (!ACTIVE.includes(row.status as JobStatus)) return false;
    const cutoff = Date.now() - this.options.staleSeconds * 1000;
    if (row.heartbeat_at && Date.parse(row.heartbeat_at) >= cutoff) return false;
    const live = await this.resume(row, false, log);
    if (!live) return false;
    const stop = () => live.stop(signal.reason instanceof Error ? signal.reason : new Error('job cancelled'));
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    try {
      await live.done;
    } finally {
      signal.removeEventListener('abort', stop);
    }
    return true;
  }

  /** Cancels a group's parts still queued or running; those running here stop now, elsewhere at their next round. */
  async cancelParts(parentId: string): Promise<void> {
    const now = new Date();
    const rows = await this.options.db
      .updateTable('synthesis_jobs')
      .set({
        status: 'cancelled',
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.options.keepMs).toISOString(),
      })
      .where('request', 'like', `%${partsNeedle(parentId)}%`)
      .where('status', 'in', ACTIVE)
      .returning('id')
      .execute();
    for (const { id } of rows) this.live.get(id)?.stop(new Error('job cancelled'));
  }

  /**
   * Background rounds, every third of `staleSeconds`: the heartbeat of this process's jobs, `settle` (jobs a dead
   * process finished but did not settle, given that much grace) and, with `takeOver` (embedded), taking over stale
   * ones. Returns the stop function.
   */
  startRounds(rounds: { takeOver: boolean; settle: (graceMs: number) => Promise<number> }, log: FastifyBaseLogger): () => void {
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
      rounds
        .settle(every)
        .then(async (settled) => {
          if (settled > 0) log.info({ settled }, 'settled finished synthesis jobs');
          const resumed = rounds.takeOver ? await this.resumeStale(log) : 0;
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

  /** Shutdown: jobs stopped from now on are handed back (queued again), not failed. */
  beginShutdown(): void {
    this.stopping = true;
  }

  /** Waits for running jobs (the shutdown stops them first), so every hold is settled or released. */
  async drain(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }
}
