import type { FastifyBaseLogger } from 'fastify';
import { startSweeper } from '../platform/sweeper.js';
import type { SweepGate } from '../platform/sweep-gate.js';
import type { EventStore } from './store.js';

/** Keeps the client events table bounded: prunes at start and then every `seconds`; returns the stop function. */
export function startEventSweeper(events: EventStore, seconds: number, log: FastifyBaseLogger, gate?: SweepGate): () => void {
  return startSweeper(
    { sweep: () => events.prune(), done: 'pruned client events', field: 'removed', failed: 'client event sweep failed' },
    seconds,
    log,
    gate,
  );
}
