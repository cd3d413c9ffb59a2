import type { FastifyBaseLogger } from 'fastify';
import type { EventStore } from './store.js';

/** Keeps the client events table bounded: prunes at start and then every `seconds`; returns the stop function. */
export function startEventSweeper(events: EventStore, seconds: number, log: FastifyBaseLogger): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const removed = await events.prune();
      if (removed > 0) log.info({ removed }, 'pruned client events');
    } catch (err) {
      log.error({ err }, 'client event sweep failed');
    } finally {
      running = false;
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
