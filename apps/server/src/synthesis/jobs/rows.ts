import type { Kysely } from 'kysely';
import type { ErrorCode } from '@polyvox/contracts';
import type { Database, SynthesisJobsTable } from '../../platform/db/schema.js';
import type { CreditsService } from '../../credits/service.js';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
/** A job that is not over: waiting for a process, or running in one. */
export const ACTIVE: JobStatus[] = ['queued', 'running'];

export interface JobProgress {
  done: number;
  total: number;
}

/**
 * The updates a process makes to the rows of the jobs it runs: each conditional on the row still being its own (or, to
 * claim one, on no live process running it), so a cancel or a takeover elsewhere is never overwritten.
 */
export class JobRows {
  constructor(
    private readonly o: {
      db: Kysely<Database>;
      credits: CreditsService;
      owner: string;
      staleSeconds: number;
      keepMs: number;
    },
  ) {}

  /** This process's running row of a job (an update that finds nothing when it was cancelled). */
  mine(id: string) {
    return this.o.db
      .updateTable('synthesis_jobs')
      .where('id', '=', id)
      .where('status', '=', 'running')
      .where('owner', '=', this.o.owner);
  }

  /** Ends this process's running job with `status` (its last progress kept); false when the row is no longer its. */
  async finish(id: string, status: JobStatus, fields: Partial<SynthesisJobsTable>, progress?: JobProgress): Promise<boolean> {
    const now = new Date();
    const row = await this.mine(id)
      .set({
        ...(progress ? { progress_done: progress.done, progress_total: progress.total } : {}),
        ...fields,
        status,
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.o.keepMs).toISOString(),
      })
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Closes a job that will not run (again): failed, its hold released. */
  async fail(id: string, holdId: string, code: ErrorCode, note: string): Promise<void> {
    const now = new Date();
    await this.o.db
      .updateTable('synthesis_jobs')
      .set({
        status: 'failed',
        error_code: code,
        error_params: '{}',
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.o.keepMs).toISOString(),
      })
      .where('id', '=', id)
      .where('status', 'in', ACTIVE)
      .execute();
    await this.o.credits.release(holdId, note);
  }

  /**
   * Claims a job for this process, counting the attempt: one not over whose heartbeat is stale, or (`force`: the queue
   * decided this process runs it) any job not over. Undefined when it was not taken.
   */
  claim(id: string, force: boolean) {
    const now = new Date();
    const cutoff = new Date(now.getTime() - this.o.staleSeconds * 1000).toISOString();
    return this.o.db
      .updateTable('synthesis_jobs')
      .set((eb) => ({
        status: 'running',
        owner: this.o.owner,
        heartbeat_at: now.toISOString(),
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', '=', id)
      .where('status', 'in', ACTIVE)
      .$if(!force, (q) => q.where((eb) => eb.or([eb('heartbeat_at', 'is', null), eb('heartbeat_at', '<', cutoff)])))
      .returning(['attempts'])
      .executeTakeFirst();
  }

  /** Up to 100 jobs not over whose process stopped saying it is alive, oldest first. */
  stale() {
    const cutoff = new Date(Date.now() - this.o.staleSeconds * 1000).toISOString();
    return this.o.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('status', 'in', ACTIVE)
      .where((eb) => eb.or([eb('heartbeat_at', 'is', null), eb('heartbeat_at', '<', cutoff)]))
      .orderBy('created_at')
      .limit(100)
      .execute();
  }

  /** Says this process is alive for the jobs `ids` it runs. */
  async heartbeat(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.o.db
      .updateTable('synthesis_jobs')
      .set({ heartbeat_at: new Date().toISOString() })
      .where('id', 'in', ids)
      .where('owner', '=', this.o.owner)
      .execute();
  }
}
