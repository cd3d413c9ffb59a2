import type { FastifyBaseLogger } from 'fastify';

/** What the rounds do besides the heartbeat: `settle` (given a grace) and, embedded, `takeOver` of stale jobs. */
export interface Rounds {
  takeOver: boolean;
  settle: (graceMs: number) => Promise<number>;
}

/**
 * Background rounds, every third of `staleSeconds`: the heartbeat of this process's jobs, `settle` (jobs a dead
 * process finished but did not settle, given that much grace) and, with `takeOver` (embedded), taking over stale
 * ones. Returns the stop function.
 */
export function startRounds(
  runner: { heartbeat(): Promise<void>; resumeStale(log?: FastifyBaseLogger): Promise<number> },
  staleSeconds: number,
  rounds: Rounds,
  log: FastifyBaseLogger,
): () => void {
  const every = Math.max(250, (staleSeconds * 1000) / 3);
  const beat = setInterval(
    () => void runner.heartbeat().catch((err: unknown) => log.error({ err }, 'job heartbeat failed')),
    every,
  );
  beat.unref();
  let busy = false;
  const take = setInterval(() => {
    if (busy) return;
    busy = true;
    rounds
      .settle(every)
      .then(async (settled) => {
        if (settled > 0) log.info({ settled }, 'settled finished synthesis jobs');
        const resumed = rounds.takeOver ? await runner.resumeStale(log) : 0;
        if (resumed > 0) log.info({ resumed }, 'resumed synthesis jobs');
      })
      .catch((err: unknown) => log.error({ err }, 'resuming jobs failed'))
      .finally(() => (busy = false));
  }, every);
  take.unref();
  return () => {
    clearInterval(beat);
    clearInterval(take);
  };
}
