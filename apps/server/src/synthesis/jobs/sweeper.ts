import type { FastifyBaseLogger } from 'fastify';
import { startSweeper } from '../../platform/sweeper.js';
import type { SweepGate } from '../../platform/sweep-gate.js';
import type { SynthesisJobs } from './service.js';

/** Deletes expired jobs and orphaned job files every `seconds`; returns the stop function. */
export function startJobSweeper(jobs: SynthesisJobs, seconds: number, log: FastifyBaseLogger, gate?: SweepGate): () => void {
  return startSweeper(
    {
      sweep: () => jobs.sweep(),
      done: 'removed expired synthesis jobs',
      field: 'removed',
      failed: 'job sweep failed',
      atStart: false,
    },
    seconds,
    log,
    gate,
  );
}
