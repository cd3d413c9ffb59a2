import { ApiError } from '../../api/errors';
import type { SynthesisJob } from '../types';

export const JOB_POLL_MS = 1000;

export interface JobDeps {
  create: () => Promise<SynthesisJob>;
  get: (id: string) => Promise<SynthesisJob>;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  onProgress: (job: SynthesisJob) => void;
  signal?: AbortSignal;
  pollMs?: number;
}

/** A failed job's error as the client's ApiError (its code and localized message come from the server). */
export function jobError(job: SynthesisJob): ApiError {
  return new ApiError({ status: 500, code: job.error?.code || 'INTERNAL', message: job.error?.message ?? '' });
}

export function jobPercent(progress: { done: number; total: number } | undefined): number {
  if (!progress || progress.total <= 0) return 0;
  return Math.min(100, Math.max(0, (progress.done / progress.total) * 100));
}

function aborted(signal?: AbortSignal): boolean {
  return signal?.aborted === true;
}

/** Creates the job, then polls it every second until it succeeds (resolves with it) or fails (throws). */
export async function runJob(deps: JobDeps): Promise<SynthesisJob> {
  const abortError = () => new DOMException('The job was cancelled', 'AbortError');
  let job = await deps.create();
  deps.onProgress(job);
  while (job.status === 'running') {
    await deps.sleep(deps.pollMs ?? JOB_POLL_MS, deps.signal);
    if (aborted(deps.signal)) throw abortError();
    job = await deps.get(job.id);
    deps.onProgress(job);
  }
  if (job.status === 'failed') throw jobError(job);
  return job;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
