import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { AppError, isAppError } from '../../platform/errors.js';
import type { Storage } from '../../platform/storage.js';
import type { Database, SynthesisJobsTable } from '../../platform/db/schema.js';
import type { CreditsService } from '../../credits/service.js';
import type { HeldWork } from '../held-work.js';
import type { SynthesisService } from '../service.js';
import type { Charge, Prepared } from '../types.js';
import { JobPayloadError } from './definition.js';
import { ACTIVE, JobRows, type JobProgress, type JobStatus } from './rows.js';
import { startRounds, type Rounds } from './rounds.js';
import type { JobLayer, JobProvider } from './layer.js';
import { deleteJobFiles, preparedOf, synthesisJob, type SynthesisJobPayload } from './synthesis.js';

export { ACTIVE, type JobProgress, type JobStatus } from './rows.js';

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
  work: HeldWork;
  progress: JobProgress;
  done?: Promise<void>;
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
  /** The updates of this process's rows. */
  private readonly rows: JobRows;

  constructor(options: DatabaseJobRunnerOptions) {
    this.options = options;
    this.rows = new JobRows(options);
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
    live.work.abort(reason);
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

  private begin(
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
      const handler = this.options.layer.handler(synthesisJob);
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
          void this.rows
            .mine(id)
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
        await deleteJobFiles(this.options.storage, key);
        await live.work.release('job cancelled');
      }
    } catch (e) {
      const reason: unknown = live.work.signal.reason;
      if (this.stopping || (reason instanceof Error && reason.message === handBack().message)) {
        // Handed back: queued again for the next start or another worker; the hold is taken again then.
        await this.rows.mine(id).set({ status: 'queued', owner: null, heartbeat_at: null }).execute();
        return;
      }
      await live.work.release('job failed');
      const error = isAppError(e) ? e : new AppError('INTERNAL', {}, { cause: e });
      await this.finish(id, 'failed', { error_code: error.code, error_params: JSON.stringify(error.params) }).catch(() => false);
    }
  }

  private finish(id: string, status: JobStatus, fields: Partial<SynthesisJobsTable>): Promise<boolean> {
    const live = this.live.get(id);
    return this.rows.finish(id, status, fields, live?.progress);
  }

  /**
   * Takes over a job no live process runs and runs it here. `force`: the queue already decided this
   * process runs it (its previous worker died); otherwise only a job whose heartbeat is stale is taken.
   * Returns the running job, or null when the job was not taken or cannot run again.
   */
  private async resume(row: SynthesisJobsTable, force: boolean, log?: FastifyBaseLogger): Promise<Live | null> {
    if (this.live.has(row.id) || this.stopping) return null;
    const { credits, maxAttempts } = this.options;
    const claimed = await this.rows.claim(row.id, force);
    if (!claimed) return null;
    if (!row.request || Number(claimed.attempts) > maxAttempts) {
      await this.rows.fail(row.id, row.hold_id, 'INTERNAL', 'job interrupted too often');
      return null;
    }
    let payload: SynthesisJobPayload;
    try {
      // Checked against its kind's schema (`JobPayloadError` when it is not what the kind expects).
      payload = this.options.layer.read(synthesisJob, row.id, row.request);
    } catch (e) {
      if (!(e instanceof JobPayloadError)) throw e;
      // Written by another release, or damaged: this job fails (its hold released, the reason in the ledger's note
      // and the log), the others run on.
      log?.error({ job: row.id, problem: e.problem }, 'synthesis job payload invalid; job failed');
      await this.rows.fail(row.id, row.hold_id, 'INTERNAL', `job payload invalid: ${e.problem}`.slice(0, 500));
      return null;
    }
    const hold = await credits.holdStatus(row.hold_id);
    if (hold === 'released') {
      try {
        await credits.reclaim(row.hold_id);
      } catch (e) {
        if (!isAppError(e) || e.code !== 'INSUFFICIENT_BALANCE') throw e;
        await this.rows.fail(row.id, row.hold_id, 'INSUFFICIENT_BALANCE', 'job could not be held again');
        return null;
      }
    } else if (hold !== 'held') {
      await this.rows.fail(row.id, row.hold_id, 'INTERNAL', 'job hold missing');
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
    const rows = await this.rows.stale();
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
      live.work.abort(/shutting down/.test(String(signal.reason)) ? handBack() : new Error('job cancelled'));
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
    if (row) await this.rows.fail(id, row.hold_id, 'INTERNAL', 'job given up');
  }

  /** Says this process is alive for every job it runs, so no other process takes them over. */
  async heartbeat(): Promise<void> {
    await this.rows.heartbeat([...this.live.keys()]);
  }

  /** Background rounds (rounds.ts): the heartbeat, `settle` and, with `takeOver`, taking over stale jobs; returns the stop. */
  startRounds(rounds: Rounds, log: FastifyBaseLogger): () => void {
    return startRounds(this, this.options.staleSeconds, rounds, log);
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
