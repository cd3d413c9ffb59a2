import type { FastifyBaseLogger } from 'fastify';
import { soleProcess, type SweepGate } from './sweep-gate.js';

export interface SweepTask {
  /** Does one round and returns how many things it handled. */
  sweep: () => Promise<number>;
  /** What the log line says when a round handled something, e.g. 'released expired credit holds'. */
  done: string;
  /** The log field that carries the count, e.g. 'released'. */
  field: string;
  /** What the log line says when a round failed. */
  failed: string;
  /** Run a first round at once (default) or only after the first interval. */
  atStart?: boolean;
}

/**
 * Runs `task` every `seconds`, one round at a time (a slow round is never overlapped by the next), logging
 * what each round handled and any failure; the timer never keeps the process alive. With several processes on one
 * database, `gate` lets only the leading one run the rounds. Returns the stop function.
 */
export function startSweeper(
  task: SweepTask,
  seconds: number,
  log: FastifyBaseLogger,
  gate: SweepGate = soleProcess,
): () => void {
  let running = false;
  const round = async () => {
    if (running) return;
    running = true;
    try {
      if (!(await gate.leading())) return;
      const count = await task.sweep();
      if (count > 0) log.info({ [task.field]: count }, task.done);
    } catch (err) {
      log.error({ err }, task.failed);
    } finally {
      running = false;
    }
  };
  if (task.atStart !== false) void round();
  const timer = setInterval(() => void round(), seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
