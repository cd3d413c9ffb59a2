import type { Kysely } from 'kysely';
import type { ErrorCode } from '@polyvox/contracts';
import { AppError, isAppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { ByteRange, Storage, StoredStream } from '../platform/storage.js';
import type { Database, SynthesisJobsTable } from '../platform/db/schema.js';
import type { CreditsService } from '../credits/service.js';
import type { HeldWork } from './held-work.js';
import type { Charge, Prepared, SynthesisService } from './service.js';

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
const FOLDER = 'jobs';

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
  cancelled: boolean;
  done?: Promise<void>;
}

/**
 * Long texts run as jobs: the price is held when the job is created (so 402 comes at once), the
 * sentences report progress as they finish, and the audio waits in storage for an hour. Jobs are
 * rows, so a paid job survives a restart; work a dead process left unfinished is failed and released.
 */
export class SynthesisJobs {
  private readonly live = new Map<string, Live>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly synthesis: SynthesisService,
    private readonly credits: CreditsService,
    private readonly storage: Storage,
  ) {}

  async create(prepared: Prepared, charge: Charge): Promise<Job> {
    const work = await this.synthesis.hold(prepared, charge);
    const row: SynthesisJobsTable = {
      id: newId('job'),
      account_id: charge.accountId,
      status: 'running',
      progress_done: 0,
      progress_total: 0,
      credits: prepared.credits,
      characters: prepared.characters,
      content_type: prepared.contentType,
      hold_id: work.hold.id,
      storage_key: null,
      error_code: null,
      error_params: null,
      created_at: new Date().toISOString(),
      finished_at: null,
      expires_at: null,
    };
    try {
      await this.db.insertInto('synthesis_jobs').values(row).execute();
    } catch (e) {
      await work.release('job not recorded');
      throw e;
    }
    const live: Live = { work, progress: { done: 0, total: 0 }, cancelled: false };
    this.live.set(row.id, live);
    const run = this.run(row.id, prepared, charge, live).finally(() => {
      this.live.delete(row.id);
      this.running.delete(run);
    });
    live.done = run;
    this.running.add(run);
    return toJob(row, live.progress);
  }

  private async run(id: string, prepared: Prepared, charge: Charge, live: Live): Promise<void> {
    try {
      const { result } = await this.synthesis.render(prepared, charge, {
        work: live.work,
        onProgress: (p) => (live.progress = { done: p.done, total: p.total }),
      });
      const key = `${FOLDER}/${id}`;
      await this.storage.put(key, result.audio, { contentType: prepared.contentType });
      const total = live.progress.total;
      // The row says succeeded before the hold is settled: a crash in between is settled at start.
      await this.finish(id, 'succeeded', { storage_key: key, progress_done: total, progress_total: total });
      await live.work.settle();
    } catch (e) {
      await live.work.release(live.cancelled ? 'job cancelled' : 'job failed');
      if (live.cancelled) {
        await this.finish(id, 'cancelled', {});
        return;
      }
      const error = isAppError(e) ? e : new AppError('INTERNAL', {}, { cause: e });
      await this.finish(id, 'failed', { error_code: error.code, error_params: JSON.stringify(error.params) }).catch(() => {});
    }
  }

  private async finish(id: string, status: JobStatus, fields: Partial<SynthesisJobsTable>): Promise<void> {
    const now = new Date();
    const live = this.live.get(id);
    await this.db
      .updateTable('synthesis_jobs')
      .set({
        ...(live ? { progress_done: live.progress.done, progress_total: live.progress.total } : {}),
        ...fields,
        status,
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + JOB_KEEP_MS).toISOString(),
      })
      .where('id', '=', id)
      .execute();
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
    const live = this.live.get(id);
    if (!live || (job.status !== 'running' && job.status !== 'queued')) return job;
    live.cancelled = true;
    live.work.abort(new AppError('INTERNAL', {}, { cause: new Error('job cancelled') }));
    await live.done;
    return this.get(id, accountId);
  }

  /** A finished job's audio as a stream from storage (the asked range of it, if any). */
  async audio(id: string, accountId: string, range?: ByteRange): Promise<{ contentType: string; file: StoredStream }> {
    const job = await this.get(id, accountId);
    const file = job.status === 'succeeded' && job.storageKey ? await this.storage.getStream(job.storageKey, range) : null;
    if (!file) throw new AppError('NOT_FOUND');
    return { contentType: job.contentType, file };
  }

  /**
   * At start, before the hold sweeper: a job a dead process left unfinished is failed and its hold
   * released; a job recorded as succeeded whose hold is still open is settled (its audio exists);
   * half-written files are removed.
   */
  async recover(): Promise<void> {
    const rows = await this.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('status', 'in', ['queued', 'running', 'succeeded'])
      .execute();
    for (const row of rows) {
      if (this.live.has(row.id)) continue;
      if (row.status === 'succeeded') {
        const hold = await this.credits.holdStatus(row.hold_id);
        if (hold !== 'held' && hold !== 'released') continue;
        if (hold === 'released' && !(await this.reclaimOrWithdraw(row))) continue;
        await this.credits.settle(row.hold_id, Number(row.credits), { characters: Number(row.characters), record_type: 'tts' });
        continue;
      }
      await this.credits.release(row.hold_id, 'job interrupted by a restart');
      await this.finish(row.id, 'failed', { error_code: 'INTERNAL', error_params: '{}' });
    }
    for (const key of await this.storage.list(FOLDER)) if (key.includes('.tmp-')) await this.storage.delete(key);
    await this.sweep();
  }

  /** Audio whose hold was swept is paid for again, or withdrawn: never reachable for free. */
  private async reclaimOrWithdraw(row: SynthesisJobsTable): Promise<boolean> {
    try {
      return await this.credits.reclaim(row.hold_id);
    } catch (e) {
      if (!isAppError(e) || e.code !== 'INSUFFICIENT_BALANCE') throw e;
      if (row.storage_key) await this.storage.delete(row.storage_key);
      await this.finish(row.id, 'failed', { storage_key: null, error_code: 'INSUFFICIENT_BALANCE', error_params: '{}' });
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
      if (row.storage_key) await this.storage.delete(row.storage_key);
      await this.db.deleteFrom('synthesis_jobs').where('id', '=', row.id).execute();
    }
    let removed = expired.length;
    const files = (await this.storage.list(FOLDER)).filter((key) => !key.includes('.tmp-'));
    if (files.length > 0) {
      const ids = files.map((key) => key.slice(FOLDER.length + 1));
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
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
