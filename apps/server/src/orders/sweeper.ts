import type { FastifyBaseLogger } from 'fastify';
import type { OrdersService } from './service.js';

/** Expires unpaid orders at start and then every `seconds`; returns the stop function. */
export function startOrderSweeper(orders: OrdersService, seconds: number, log: FastifyBaseLogger): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const expired = await orders.sweepExpired();
      if (expired > 0) log.info({ expired }, 'expired unpaid orders');
    } catch (err) {
      log.error({ err }, 'order sweep failed');
    } finally {
      running = false;
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
