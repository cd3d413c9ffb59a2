import type { FastifyBaseLogger } from 'fastify';
import type { SynthesisJobs } from './jobs.js';

/** Deletes expired jobs and orphaned job files every `seconds`; returns the stop function. */
export function startJobSweeper(jobs: SynthesisJobs, seconds: number, log: FastifyBaseLogger): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    jobs
      .sweep()
      .then((removed) => removed > 0 && log.info({ removed }, 'removed expired synthesis jobs'))
      .catch((err: unknown) => log.error({ err }, 'job sweep failed'))
      .finally(() => (running = false));
  }, seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
