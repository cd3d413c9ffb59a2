import type { FastifyBaseLogger } from 'fastify';
import { startSweeper } from '../platform/sweeper.js';
import type { SweepGate } from '../platform/sweep-gate.js';
import type { OrdersService } from './service.js';

/** Expires unpaid orders at start and then every `seconds`; returns the stop function. */
export function startOrderSweeper(orders: OrdersService, seconds: number, log: FastifyBaseLogger, gate?: SweepGate): () => void {
  return startSweeper(
    { sweep: () => orders.sweepExpired(), done: 'expired unpaid orders', field: 'expired', failed: 'order sweep failed' },
    seconds,
    log,
    gate,
  );
}
