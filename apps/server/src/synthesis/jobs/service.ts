import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { subtitles, type SubtitleFormat } from '@polyvox/speech';
import { AppError, isAppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { ByteRange, Storage, StoredStream } from '../../platform/storage.js';
import type { Database, SynthesisJobsTable } from '../../platform/db/schema.js';
import type { CreditsService } from '../../credits/service.js';
import type { SynthesisService } from '../service.js';
import type { Charge, Prepared } from '../types.js';
import { timingsSchema, toWire } from '../wire.js';
import { writePayload, type JobDefinition } from './definition.js';
import { safeJson, toJob, type Job } from './job-view.js';
import { studioConvertJob, type OwnHoldsContext } from './studio.js';
import { newJobRow, recordOwnGroup, recordOwnJob, type OwnJobPrice } from './own-jobs.js';
import type { JobLayer } from './layer.js';
import { ACTIVE, DatabaseJobRunner } from './database.js';
import {
  deleteJobFiles,
  JOB_FOLDER,
  jobOfKey,
  preparedOf,
  synthesisJob,
  timingsKey,
  type SynthesisJobPayload,
} from './synthesis.js';

export type { JobStatus } from './database.js';
export type { Job } from './job-view.js';

/** How long a finished job (and its audio) stays reachable. */
export const JOB_KEEP_MS = 60 * 60 * 1000;
const FOLDER = JOB_FOLDER;

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

/**
 * Long texts run as jobs: the price is held when the job is created (so 402 comes at once), the
 * sentences report progress as they finish, and the audio waits in storage for `keepMs`. Jobs are
 * rows that carry their request, so work a dead process left unfinished runs again: at the next
 * start or once its heartbeat is `staleSeconds` old (embedded), or in another worker (the queue's
 * stalled check). The hold stays the job's across runs and is settled once. Running the rows (claims,
 * heartbeats, attempts, the rounds) is `runner`'s (jobs/database.ts).
 */
export class SynthesisJobs {
  private readonly keepMs: number;
  private readonly owner: string;
  private readonly db: Kysely<Database>;
  private readonly synthesis: SynthesisService;
  private readonly credits: CreditsService;
  private readonly storage: Storage;
  /** The kinds of job, their handlers and the provider: a worker process runs queued work through it. */
  readonly layer: JobLayer;
  /** Runs job rows in this process: new ones (database provider), stale ones, and those a worker is given. */
  readonly runner: DatabaseJobRunner;

  constructor(options: JobsOptions) {
    this.db = options.db;
    this.synthesis = options.synthesis;
    this.credits = options.credits;
    this.storage = options.storage;
    this.layer = options.layer;
    this.owner = options.owner ?? newId('request');
    this.keepMs = options.keepMs ?? JOB_KEEP_MS;
    this.runner = new DatabaseJobRunner({
      db: this.db,
      synthesis: this.synthesis,
      credits: this.credits,
      storage: this.storage,
      layer: this.layer,
      owner: this.owner,
      staleSeconds: options.staleSeconds ?? 30,
      maxAttempts: options.maxAttempts ?? 3,
      keepMs: this.keepMs,
    });
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
    const row = newJobRow({
      kind: synthesisJob.name,
      accountId: charge.accountId,
      price: prepared,
      holdId: work.hold.id,
      request: writePayload(synthesisJob, payload),
      owner: queue ? null : this.owner,
      reqId,
    });
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
    return toJob(row, this.runner.start(row.id, payload, preparedOf(payload, row), work, reqId));
  }

  /**
   * A job of a kind whose handler takes and closes its own holds (a Studio conversion, a hold per paragraph): its row
   * holds nothing (hold_id ''); it runs here at once (database) or in a worker (queue), and after a crash as any job.
   * `price`: what the work is expected to cost, for its row.
   */
  createOwn<P>(
    definition: JobDefinition<P, OwnHoldsContext, void>,
    accountId: string,
    payload: P,
    price: OwnJobPrice,
    reqId?: string,
  ): Promise<Job> {
    const parts = { db: this.db, layer: this.layer, owner: this.owner, runner: this.runner };
    return recordOwnJob(parts, definition, accountId, payload, price, reqId);
  }

  /**
   * A group of such jobs (a whole project's conversion, a part per chapter): the group's row, answered, and its parts,
   * which any process taking jobs runs (through a queue, the workers; the group's own run takes the parts no one took
   * and waits for the others). See `recordOwnGroup`.
   */
  createOwnGroup<P>(
    definition: JobDefinition<P, OwnHoldsContext, void>,
    accountId: string,
    parent: { payload: P; price: OwnJobPrice },
    children: (parentId: string) => { payload: P; price: OwnJobPrice }[],
    reqId?: string,
  ): Promise<Job> {
    const parts = { db: this.db, layer: this.layer, owner: this.owner, runner: this.runner };
    return recordOwnGroup(parts, definition, accountId, parent, children, reqId);
  }

  /** A group's parts as the API shows jobs, in the order they were recorded. */
  async parts(parentId: string): Promise<Job[]> {
    return (await this.runner.parts(parentId)).map((r) => toJob(r));
  }

  /**
   * Runs each of a group's parts no live process runs, here, at most `width` at once, until every part ended (or
   * `signal` stopped it); answers the parts as they ended. Polls the rows every `everyMs` meanwhile, calling `onRound`.
   */
  async runParts(
    parentId: string,
    opts: { width: number; signal: AbortSignal; everyMs?: number; onRound?: () => Promise<void> },
  ): Promise<Job[]> {
    const here = new Map<string, Promise<boolean>>();
    try {
      for (;;) {
        opts.signal.throwIfAborted();
        const rows = await this.runner.parts(parentId);
        const ended = rows.filter((r) => !ACTIVE.includes(r.status as (typeof ACTIVE)[number]));
        // The group ends when every part has; a part cancelled ends it at once (its run cancels the others). A part that
        // failed does not stop the others: its paragraphs say why, the other chapters are still spoken.
        if (ended.length === rows.length || ended.some((r) => r.status === 'cancelled')) return rows.map((r) => toJob(r));
        for (const row of rows) {
          if (here.size >= opts.width) break;
          if (here.has(row.id) || !ACTIVE.includes(row.status as (typeof ACTIVE)[number])) continue;
          const run = this.runner.runPart(row, opts.signal).finally(() => here.delete(row.id));
          run.catch(() => {});
          here.set(row.id, run);
        }
        await opts.onRound?.();
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, opts.everyMs ?? 250);
          // A part that ran here and ended: the next round at once (one no one could take waits the round out).
          for (const run of here.values()) void run.then((ran) => ran && done(), done);
          opts.signal.addEventListener('abort', done, { once: true });
          function done() {
            clearTimeout(t);
            opts.signal.removeEventListener('abort', done);
            resolve();
          }
        });
      }
    } finally {
      await Promise.allSettled([...here.values()]);
    }
  }

  /** The active jobs of a kind whose payload names `needle` (a project's conversions), newest first. */
  async active(kind: string, accountId: string, needle: string): Promise<Job[]> {
    const rows = await this.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('kind', '=', kind)
      .where('account_id', '=', accountId)
      .where('status', 'in', ACTIVE)
      .where('request', 'like', `%${needle}%`)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map((r) => toJob(r, r.status === 'running' ? this.runner.progress(r.id) : undefined));
  }

  /**
   * Background rounds (see `DatabaseJobRunner.startRounds`): heartbeats, settling jobs a dead process finished but
   * did not settle, and (embedded) taking over stale ones. Returns the stop function.
   */
  startRounds(resumeStale: boolean, log: FastifyBaseLogger): () => void {
    return this.runner.startRounds({ takeOver: resumeStale, settle: (graceMs) => this.settleFinished(graceMs) }, log);
  }

  /** Another account's job answers exactly as a missing one. */
  async get(id: string, accountId: string): Promise<Job> {
    const row = await this.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('kind', '=', synthesisJob.name)
      .executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return toJob(row, row.status === 'running' ? this.runner.progress(id) : undefined);
  }

  async list(accountId: string, page: number, pageSize: number): Promise<{ items: Job[]; total: number }> {
    const rows = await this.db
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('kind', '=', synthesisJob.name)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute();
    const { total } = await this.db
      .selectFrom('synthesis_jobs')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('account_id', '=', accountId)
      .where('kind', '=', synthesisJob.name)
      .executeTakeFirstOrThrow();
    return {
      items: rows.map((r) => toJob(r, r.status === 'running' ? this.runner.progress(r.id) : undefined)),
      total: Number(total),
    };
  }

  /** Stops a queued or running job and releases its hold; a finished job is answered as it is. */
  async cancel(id: string, accountId: string): Promise<Job> {
    const job = await this.get(id, accountId);
    if (!ACTIVE.includes(job.status)) return job;
    const row = await this.markCancelled(id);
    if (row) {
      await this.credits.release(row.hold_id, 'job cancelled');
      await this.runner.stop(id, new AppError('INTERNAL', {}, { cause: new Error('job cancelled') }));
      await this.layer.provider.cancel(synthesisJob.name, id);
    }
    return this.get(id, accountId);
  }

  /** Marks a queued or running job cancelled (kept as long as a finished one); its row's hold, or undefined if it had ended. */
  private markCancelled(id: string): Promise<{ hold_id: string } | undefined> {
    const now = new Date();
    return this.db
      .updateTable('synthesis_jobs')
      .set({
        status: 'cancelled',
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.keepMs).toISOString(),
      })
      .where('id', '=', id)
      .where('status', 'in', ACTIVE)
      .returning(['hold_id'])
      .executeTakeFirst();
  }

  /** Cancels every queued or running job of the account (a disabled account), releasing their holds. */
  async cancelAll(accountId: string): Promise<number> {
    const rows = await this.db
      .selectFrom('synthesis_jobs')
      .select(['id', 'kind'])
      .where('account_id', '=', accountId)
      .where('status', 'in', ACTIVE)
      .execute();
    for (const { id, kind } of rows) {
      if (kind === studioConvertJob.name) await this.cancelOwn(id);
      else await this.cancel(id, accountId);
    }
    return rows.length;
  }

  /** Stops a job of a kind whose row holds nothing (its run closes the holds it took), and its parts if a group. */
  private async cancelOwn(id: string): Promise<void> {
    if (!(await this.markCancelled(id))) return;
    await this.runner.cancelParts(id);
    await this.runner.stop(id, new AppError('INTERNAL', {}, { cause: new Error('job cancelled') }));
    await this.layer.provider.cancel(studioConvertJob.name, id);
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
    // Written with its audio; a file that is not timings (damaged) fails this answer alone.
    const timings = timingsSchema.safeParse(safeJson(stored.toString('utf8')));
    if (!timings.success) throw new AppError('INTERNAL', {}, { cause: new Error(`job ${id}'s stored timings are invalid`) });
    return subtitles(timings.data, format);
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
    await this.runner.resumeStale();
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
      if (this.runner.isRunning(row.id)) continue;
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
      if (row.storage_key) await deleteJobFiles(this.storage, row.storage_key);
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
      if (row.storage_key) await deleteJobFiles(this.storage, row.storage_key);
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

  /** Shutdown: jobs stopped from now on are handed back (queued again), not failed. */
  beginShutdown(): void {
    this.runner.beginShutdown();
  }

  /** Waits for running jobs (the shutdown stops them first), so every hold is settled or released. */
  async drain(): Promise<void> {
    await this.runner.drain();
  }
}
