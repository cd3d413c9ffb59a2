import type { FastifyBaseLogger } from 'fastify';
import { startSweeper } from '../platform/sweeper.js';
import type { SweepGate } from '../platform/sweep-gate.js';
import type { CreditsService } from './service.js';

/** Releases expired holds at start and then every `seconds`; returns the stop function. */
export function startHoldSweeper(credits: CreditsService, seconds: number, log: FastifyBaseLogger, gate?: SweepGate): () => void {
  return startSweeper(
    {
      sweep: () => credits.sweepExpiredHolds(),
      done: 'released expired credit holds',
      field: 'released',
      failed: 'hold sweep failed',
    },
    seconds,
    log,
    gate,
  );
}
