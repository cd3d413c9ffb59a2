import os from 'node:os';
import type { Config } from '../platform/config.js';
import { registerAuth } from '../http/auth.js';
import { operationsRoutes } from '../http/operations.js';
import type { ReadinessReport } from '../platform/health.js';
import { SynthesisWorker } from '../synthesis/queue/worker.js';
import type { BuiltApp } from '../composition/context.js';
import { openParts, type BuildOverrides } from '../composition/parts.js';
import { createServer } from '../composition/server.js';
import { buildCoreServices, closeCoreServices } from '../composition/core-services.js';

/**
 * ROLE=worker: no public API, only `/healthz`, `/readyz` and `/metrics` on its own port; takes synthesis from the
 * queues. SIGTERM drains it: running work gets a grace to finish, then is handed back to the queue.
 */
export async function buildWorker(config: Config, overrides: BuildOverrides = {}): Promise<BuiltApp> {
  const app = createServer(config, overrides.logStream);
  // The core services alone: a worker builds no accounts, payments, orders, mail or console services.
  const ctx = await openParts(
    app,
    config,
    { build: (c, parts) => buildCoreServices(c, parts).ctx, close: closeCoreServices },
    overrides,
  );
  const settings = ctx.queues.settings!;
  const concurrency = config.QUEUE_CONCURRENCY ?? config.SPEECH_WORKERS ?? os.availableParallelism();
  const worker = new SynthesisWorker({ settings, layer: ctx.jobs.layer, runner: ctx.jobs.runner, concurrency, log: app.log });
  const stopJobRounds = ctx.jobs.startRounds(false, app.log);
  // Work is taken once the engines are up (they warm up at start unless SPEECH_WARMUP=false).
  ctx.speech.get().then(
    () => worker.start(),
    (err: unknown) => app.log.error({ err }, 'speech engines failed to start'),
  );
  // Its engines warming up (or failed to start) is a part that is not ready, named like the others.
  ctx.readiness.add('speech', async () => {
    if (!worker.started) throw new Error('speech engines are not taking work');
  });
  registerAuth(app, ctx.sessions, ctx.keyGate, ctx.operators);
  // In /readyz, whether it takes work is what the speech check of that same answer found.
  const takingWork = (report?: ReadinessReport) => ({ taking_work: report?.checks.speech?.ok ?? worker.started });
  await app.register(operationsRoutes({ db: ctx.db, readiness: ctx.readiness, role: 'worker', status: takingWork }));
  app.addHook('preClose', async () => {
    ctx.jobs.beginShutdown();
    await worker.close(config.SHUTDOWN_GRACE_SECONDS * 1000);
    await ctx.synthesis.stopAll(config.SHUTDOWN_GRACE_SECONDS * 1000);
  });
  // Runs first at close, before the services drain and the resources close.
  app.addHook('onClose', async () => {
    stopJobRounds();
  });
  return { role: 'worker', app, ctx };
}
