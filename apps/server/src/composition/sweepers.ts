import type { FastifyBaseLogger } from 'fastify';
import { postgresSweepGate, soleProcess, type SweepGate } from '../platform/sweep-gate.js';
import { startSweeper } from '../platform/sweeper.js';
import { startHoldSweeper } from '../credits/sweeper.js';
import { startJobSweeper } from '../synthesis/jobs/sweeper.js';
import { startOrderSweeper } from '../orders/sweeper.js';
import { startEventSweeper } from '../stats/sweeper.js';
import { sweepRateWindows } from '../platform/db-rate-limit.js';
import type { AppContext } from './context.js';
import { clonedVoicesOf } from './operator-accounts.js';

type Stop = () => void;

/** Every sweeper a serving process runs, in the order they start; null: not in this process (no shared cache). */
const SWEEPERS: { name: string; start(ctx: AppContext, log: FastifyBaseLogger, gate: SweepGate): Stop | null }[] = [
  { name: 'holds', start: (ctx, log, gate) => startHoldSweeper(ctx.credits, ctx.config.HOLD_SWEEP_SECONDS, log, gate) },
  { name: 'jobs', start: (ctx, log, gate) => startJobSweeper(ctx.jobs, ctx.config.HOLD_SWEEP_SECONDS, log, gate) },
  { name: 'orders', start: (ctx, log, gate) => startOrderSweeper(ctx.orders, ctx.config.ORDER_SWEEP_SECONDS, log, gate) },
  { name: 'events', start: (ctx, log, gate) => startEventSweeper(ctx.events, ctx.config.HOLD_SWEEP_SECONDS, log, gate) },
  {
    name: 'avatars',
    start: (ctx, log, gate) =>
      startSweeper(
        {
          sweep: () => ctx.uploads.sweepUnused(),
          done: 'removed avatars no account shows',
          field: 'removed',
          failed: 'avatar sweep failed',
        },
        ctx.config.HOLD_SWEEP_SECONDS,
        log,
        gate,
      ),
  },
  {
    name: 'moderation hits',
    start: (ctx, log, gate) =>
      startSweeper(
        {
          sweep: () => ctx.moderation.sweep(),
          done: 'removed refused texts past their retention',
          field: 'removed',
          failed: 'moderation hit sweep failed',
        },
        ctx.config.HOLD_SWEEP_SECONDS,
        log,
        gate,
      ),
  },
  {
    name: 'deleted voices',
    start: (ctx, log, gate) =>
      startSweeper(
        {
          sweep: () => clonedVoicesOf(ctx).sweep(),
          done: 'removed deleted voices’ samples past their retention',
          field: 'removed',
          failed: 'deleted voice sweep failed',
        },
        ctx.config.HOLD_SWEEP_SECONDS,
        log,
        gate,
      ),
  },
  {
    name: 'history',
    start: (ctx, log, gate) =>
      startSweeper(
        {
          sweep: () => ctx.history.sweep(),
          done: 'removed history items past their retention',
          field: 'removed',
          failed: 'history sweep failed',
        },
        ctx.config.HOLD_SWEEP_SECONDS,
        log,
        gate,
      ),
  },
  {
    name: 'rate windows',
    start: (ctx, log, gate) =>
      startSweeper(
        {
          sweep: () => sweepRateWindows(ctx.db.kysely),
          done: 'removed lapsed rate-limit windows',
          field: 'removed',
          failed: 'rate window sweep failed',
        },
        ctx.config.HOLD_SWEEP_SECONDS,
        log,
        gate,
      ),
  },
  {
    name: 'synthesis cache',
    start: (ctx, log, gate) => {
      const audioCache = ctx.audioCache;
      if (!audioCache) return null;
      return startSweeper(
        {
          sweep: () => audioCache.sweep(),
          done: 'removed expired synthesis cache files',
          field: 'removed',
          failed: 'synthesis cache sweep failed',
          atStart: false,
        },
        ctx.config.HOLD_SWEEP_SECONDS,
        log,
        gate,
      );
    },
  },
];

/**
 * Starts every sweeper. With PostgreSQL several processes may share the database: one of them (the holder of an
 * advisory lock) sweeps. Returns what stops them all and lets the lock go.
 */
export function startSweepers(ctx: AppContext, log: FastifyBaseLogger): () => Promise<void> {
  const gate =
    ctx.db.dialect === 'postgres' && ctx.config.DATABASE_URL
      ? postgresSweepGate(ctx.config.DATABASE_URL, (err) => log.warn({ err }, 'sweeper lock connection failed'))
      : soleProcess;
  const stops = SWEEPERS.map((sweeper) => sweeper.start(ctx, log, gate));
  return async () => {
    for (const stop of stops) stop?.();
    await gate.close();
  };
}
