import type { FastifyBaseLogger } from 'fastify';
import type { CreditsService } from './service.js';

/** Releases expired holds at start and then every `seconds`; returns the stop function. */
export function startHoldSweeper(credits: CreditsService, seconds: number, log: FastifyBaseLogger): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const released = await credits.sweepExpiredHolds();
      if (released > 0) log.info({ released }, 'released expired credit holds');
    } catch (err) {
      log.error({ err }, 'hold sweep failed');
    } finally {
      running = false;
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
