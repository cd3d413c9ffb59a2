import { AppError, isAppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Storage } from '../platform/storage.js';
import type { Charge, Prepared, SynthesisService } from './service.js';

export type JobStatus = 'running' | 'succeeded' | 'failed';

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

const KEEP_MS = 60 * 60 * 1000;

/**
 * Long texts run as jobs: the price is held when the job is created (so 402 comes at once), the
 * sentences report progress as they finish, and the audio waits in storage for an hour.
 */
export class SynthesisJobs {
  private readonly jobs = new Map<string, Job>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly synthesis: SynthesisService,
    private readonly storage: Storage,
  ) {}

  async create(prepared: Prepared, charge: Charge): Promise<Job> {
    this.prune();
    const run = await this.synthesis.begin(prepared, charge);
    const job: Job = {
      id: newId('job'),
      accountId: charge.accountId,
      status: 'running',
      progress: { done: 0, total: 0 },
      credits: prepared.credits,
      characters: prepared.characters,
      contentType: prepared.contentType,
      storageKey: null,
      error: null,
      createdAt: new Date().toISOString(),
      finishedAt: null,
    };
    this.jobs.set(job.id, job);
    const work = run((p) => {
      job.progress = { done: p.done, total: p.total };
    })
      .then(async (result) => {
        const key = `jobs/${job.id}`;
        await this.storage.put(key, result.audio);
        job.storageKey = key;
        job.progress = { done: Math.max(job.progress.done, job.progress.total), total: job.progress.total };
        job.status = 'succeeded';
      })
      .catch((e: unknown) => {
        job.error = isAppError(e) ? e : new AppError('INTERNAL', {}, { cause: e });
        job.status = 'failed';
      })
      .finally(() => {
        job.finishedAt = new Date().toISOString();
        this.running.delete(work);
      });
    this.running.add(work);
    return job;
  }

  /** Another account's job answers exactly as a missing one. */
  get(id: string, accountId: string): Job {
    const job = this.jobs.get(id);
    if (!job || job.accountId !== accountId) throw new AppError('NOT_FOUND');
    return job;
  }

  async audio(id: string, accountId: string): Promise<{ contentType: string; data: Buffer }> {
    const job = this.get(id, accountId);
    const data = job.storageKey ? await this.storage.get(job.storageKey) : null;
    if (!data) throw new AppError('NOT_FOUND');
    return { contentType: job.contentType, data };
  }

  /** Waits for running jobs, so a shutdown settles or releases every hold. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private prune(now = Date.now()): void {
    for (const [id, job] of this.jobs) {
      if (job.finishedAt && now - Date.parse(job.finishedAt) > KEEP_MS) {
        this.jobs.delete(id);
        if (job.storageKey) void this.storage.delete(job.storageKey);
      }
    }
  }
}
