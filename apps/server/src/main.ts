import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './platform/config.js';

/** Starts the platform; Ctrl-C lets in-flight requests finish, then closes the database. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  const { app, ctx } = await buildApp(config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // Paid work has SHUTDOWN_GRACE_SECONDS to finish; closing the rest (database, queues, engine threads) then
    // takes moments, longer on a loaded machine. Past that margin something hangs: say so, and exit 1.
    const deadline = config.SHUTDOWN_GRACE_SECONDS + 30;
    const force = setTimeout(() => {
      app.log.error({ seconds: deadline }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, deadline * 1000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  await app.listen({ port: config.PORT, host: config.HOST });
  // Engines start in the background so the first synthesis does not pay for them.
  if (config.SPEECH_WARMUP) {
    ctx.voices
      .load()
      .then(async ({ voices }) => {
        app.log.info({ voices: voices.length }, 'speech engines ready');
        const speech = await ctx.speech.get();
        for (const provider of speech.unavailable) app.log.warn(provider, 'speech provider unavailable');
        // MODELS_DIR's folders that are incomplete or unreadable: skipped, each named with the file at fault.
        for (const problem of speech.modelProblems) app.log.warn(problem, 'model skipped');
        speech.onModelsChange(({ added, removed, changed, problems }) => {
          app.log.info({ added, removed, changed }, 'models changed');
          for (const problem of problems) app.log.warn(problem, 'model skipped');
        });
        // An API process has no engines to render with; its workers render the previews into storage.
        if (!config.PREVIEW_PRERENDER || config.ROLE === 'api') return;
        const { rendered, failed } = await ctx.voices.prerenderPreviews(() => closing);
        app.log.info({ rendered, failed }, 'voice previews ready');
      })
      .catch((err: unknown) => {
        // A shutdown during the start stops it (SpeechHost.close): that is no failure.
        if (closing) app.log.info('speech engines stopped by the shutdown before they were ready');
        else app.log.error({ err }, 'speech engines failed to start');
      });
  }
  app.log.info(
    `Polyvox is ready at ${config.PUBLIC_URL} (role: ${config.ROLE}, database: ${config.DATABASE_URL ? 'postgres' : 'sqlite'})`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
