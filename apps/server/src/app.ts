import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './platform/config.js';
import { serverRoot } from './platform/paths.js';
import { migrate, openDatabase, type Db } from './platform/db/database.js';
import { createMailer, type Mailer } from './platform/mail.js';
import { localStorage, type Storage } from './platform/storage.js';
import { s3Storage } from './platform/s3-storage.js';
import { memoryConcurrencyLimiter, memoryRateLimiter, redisConcurrencyLimiter, redisRateLimiter } from './platform/rate-limit.js';
import { Redis } from 'ioredis';
import { loadSensitiveWords } from './platform/sensitive-words.js';
import { loadSecret } from './platform/secret.js';
import { newId } from './platform/ids.js';
import { SessionService } from './auth/sessions.js';
import { CodeService } from './auth/codes.js';
import { AuthService } from './auth/service.js';
import { AccountsService } from './accounts/service.js';
import { CreditsService } from './credits/service.js';
import { loadCreditsConfig } from './credits/credits-config.js';
import { UploadsService } from './uploads/service.js';
import { SpeechHost } from './synthesis/speech-host.js';
import { SynthesisService } from './synthesis/service.js';
import { VoicesService } from './voices/service.js';
import { synthesisRoutes } from './synthesis/routes.js';
import { jobRoutes } from './synthesis/job-routes.js';
import { SynthesisJobs } from './synthesis/jobs.js';
import { JobQueue, QueueProbe, RemoteSynthesis, SynthesisWorker, type QueueSettings } from './synthesis/queue.js';
import { voiceRoutes } from './voices/routes.js';
import { LIMITS } from '@polyvox/contracts';
import type { AppContext } from './context.js';
import { handleError, registerErrorHandling } from './http/error-handler.js';
import { registerOpenApi } from './http/openapi.js';
import { acceptEmptyJson, acceptForms, JSON_BODY_LIMIT, refuseNul } from './http/body.js';
import { clientErrorHandler } from './http/client-errors.js';
import { registerSecurity, requestTimeouts } from './http/security.js';
import { accountRoutes } from './accounts/routes.js';
import { uploadRoutes } from './uploads/routes.js';
import { docRoutes } from './docs/routes.js';
import { statsRoutes } from './stats/routes.js';
import { metrics, registerCreditsOnHold, registerJobStates, registerQueueDepth } from './platform/metrics.js';
import { Readiness } from './platform/health.js';
import { creditsOnHold, jobsByState } from './stats/gauges.js';
import { postgresSweepGate, soleProcess } from './platform/sweep-gate.js';
import { startSweeper } from './platform/sweeper.js';
import { requestId } from './http/request-id.js';
import { sharedAudioCache } from './synthesis/shared-cache.js';
import { startHoldSweeper } from './credits/sweeper.js';
import { startJobSweeper } from './synthesis/job-sweeper.js';
import { ApiKeysService } from './api-keys/service.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { UsageService } from './usage/service.js';
import { usageRoutes } from './usage/routes.js';
import { elevenLabsRoutes } from './synthesis/elevenlabs-routes.js';
import { OrdersService } from './orders/service.js';
import { loadProducts } from './orders/products.js';
import { PlanPrivileges } from './orders/privileges.js';
import { orderRoutes } from './orders/routes.js';
import { startOrderSweeper } from './orders/sweeper.js';
import { PaymentsService } from './payments/service.js';
import { createProviders } from './payments/providers.js';
import { paymentRoutes } from './payments/routes.js';
import { EventStore } from './stats/store.js';
import { startEventSweeper } from './stats/sweeper.js';
import { DesignRepository } from './design/repository.js';
import { Designer } from './design/profiles.js';
import { SamplesService } from './design/samples.js';
import { PreviewsService } from './design/previews.js';
import { OwnVoicesService } from './design/own-voices.js';
import { designRoutes } from './design/routes.js';

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
}

/** Files in DATA_DIR/files, or in the bucket of S3_URL when it is set. */
export function openStorage(config: Config): Storage {
  return config.S3_URL ? s3Storage(config.S3_URL) : localStorage(path.join(config.DATA_DIR, 'files'));
}

export async function buildContext(config: Config, overrides: { mailer?: Mailer; db?: Db } = {}): Promise<AppContext> {
  const storage = openStorage(config);
  // A bucket that cannot be reached, or refuses the keys, stops the start with the reason.
  await storage.check().catch(async (e: unknown) => {
    await storage.close();
    throw e;
  });
  const db = overrides.db ?? openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  await migrate(db);
  const secret = loadSecret(config.SECRET, config.DATA_DIR);
  const mailer = overrides.mailer ?? createMailer(config.MAIL_URL, config.MAIL_FROM);
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 2 }) : null;
  // Until the app's logger is there (buildApp) connection errors are dropped here; /readyz reports an unreachable Redis.
  redis?.on('error', () => {});
  const limiter = redis ? redisRateLimiter(redis, `${config.REDIS_PREFIX}rl:`) : memoryRateLimiter();
  const sessions = new SessionService(db.kysely);
  const credits = new CreditsService(db.kysely, loadCreditsConfig(config.CREDITS_CONFIG), db.dialect);
  const uploads = new UploadsService(db.kysely, storage);
  const words = loadSensitiveWords(path.join(serverRoot, 'config/sensitive-words.txt'));
  const accounts = new AccountsService(db.kysely, credits, sessions, words, (url, id) => uploads.ownsAvatarUrl(url, id), {
    limiter,
    accountsPerIpHour: config.ACCOUNT_LIMIT_PER_IP_HOUR,
    trialsPerIpDay: config.TRIAL_GRANTS_PER_IP_DAY,
    plansPerIpDay: config.PLAN_GRANTS_PER_IP_DAY,
    existsPerIpMinute: config.EXISTS_LIMIT_PER_IP_MINUTE,
  });
  const auth = new AuthService(db.kysely, accounts, sessions, new CodeService(db.kysely, secret, db.dialect), mailer, limiter, {
    codePerIpHour: config.CODE_LIMIT_PER_IP_HOUR,
    codePerEmailDay: config.CODE_LIMIT_PER_EMAIL_DAY,
    codePerAccountHour: config.CODE_LIMIT_PER_ACCOUNT_HOUR,
    codePerEmailAllDay: config.CODE_LIMIT_PER_EMAIL_ALL_DAY,
    signInPerIpMinute: config.SIGN_IN_LIMIT_PER_IP_MINUTE,
  });
  // Scale-out (ROLE=api or worker): synthesis goes through the queues in Redis.
  const queueSettings: QueueSettings | null =
    config.ROLE !== 'all' && config.REDIS_URL
      ? {
          redisUrl: config.REDIS_URL,
          prefix: config.QUEUE_PREFIX,
          stalledSeconds: config.QUEUE_STALLED_SECONDS,
          waitSeconds: config.QUEUE_WAIT_SECONDS,
          maxAttempts: config.JOB_MAX_ATTEMPTS,
        }
      : null;
  // Several processes share one synthesis cache through Redis (an index) and storage (the audio).
  const audioCache = redis ? sharedAudioCache(redis, config.REDIS_PREFIX, storage, config.SYNTHESIS_CACHE_SECONDS) : null;
  const products = loadProducts(config.PRODUCTS_CONFIG);
  const plans = new PlanPrivileges(db.kysely, products);
  const speech = new SpeechHost({
    // Each caller's own limit is its plan's (checked first, with that limit in the message); the engine takes the longest.
    maxTextLength: Math.max(LIMITS.maxTextLength, products.maxTextLength),
    ...(audioCache ? { cache: audioCache } : {}),
    // An API process only prepares and prices requests: its engines never start.
    warmup: config.ROLE !== 'api' && config.SPEECH_WARMUP,
    ...(config.SPEECH_WORKERS ? { poolSize: config.SPEECH_WORKERS } : {}),
    // A worker process has no API to keep responsive: its threads are SPEECH_WORKERS exactly, unless asked otherwise.
    interactiveLane: config.SPEECH_INTERACTIVE_LANE ?? config.ROLE !== 'worker',
    ...(config.MODELS_DIR ? { modelsDir: config.MODELS_DIR } : {}),
    remote: {
      ...(config.OPENAI_TTS_URL && config.OPENAI_TTS_KEY
        ? {
            openai: {
              url: config.OPENAI_TTS_URL,
              key: config.OPENAI_TTS_KEY,
              ...(config.OPENAI_TTS_MODEL ? { model: config.OPENAI_TTS_MODEL } : {}),
            },
          }
        : {}),
      ...(config.ELEVENLABS_URL && config.ELEVENLABS_KEY
        ? { elevenlabs: { url: config.ELEVENLABS_URL, key: config.ELEVENLABS_KEY } }
        : {}),
    },
  });
  const voices = new VoicesService(speech, storage);
  const remote = queueSettings && config.ROLE === 'api' ? new RemoteSynthesis(queueSettings) : null;
  const jobQueue = queueSettings && config.ROLE === 'api' ? new JobQueue(queueSettings) : null;
  const synthesis = new SynthesisService(speech, voices, credits, remote);
  if (remote) voices.setRenderer((request) => remote.synthesize(request, {}));
  const jobs = new SynthesisJobs(db.kysely, synthesis, credits, storage, {
    owner: newId('request').replace('req_', `${config.ROLE}_`),
    staleSeconds: config.JOB_STALE_SECONDS,
    maxAttempts: config.JOB_MAX_ATTEMPTS,
    keepMs: config.JOB_KEEP_MINUTES * 60_000,
    queue: jobQueue,
  });
  const apiKeys = new ApiKeysService(db.kysely);
  const concurrency = redis ? redisConcurrencyLimiter(redis, `${config.REDIS_PREFIX}conc:`) : memoryConcurrencyLimiter();
  const orders = new OrdersService(db.kysely, credits, products, config.ORDER_TTL_MINUTES, config.ORDER_PENDING_LIMIT);
  const payments = new PaymentsService(db.kysely, orders, createProviders(config, secret), secret, config.PUBLIC_URL);
  const designRepo = new DesignRepository(db.kysely);
  const designer = new Designer(speech, voices);
  const samples = new SamplesService(designRepo, storage, path.join(config.DATA_DIR, 'tmp', 'uploads'), {
    limiter,
    perAccountHour: config.SAMPLE_UPLOADS_PER_ACCOUNT_HOUR,
  });
  const previews = new PreviewsService(designRepo, storage, credits.config.activation_fees, synthesis, designer, samples, words);
  const ownVoices = new OwnVoicesService(designRepo, storage, credits, voices, designer, speech, words, samples, plans);
  voices.setOwnVoices(ownVoices);
  const readiness = new Readiness();
  readiness.add('database', () => db.kysely.selectFrom('accounts').select('id').limit(1).execute());
  if (redis) readiness.add('redis', () => redis.ping());
  readiness.add('storage', () => storage.check());
  // Scale-out: the queues' depth for /metrics; a process that cannot count them cannot use them either.
  const queueProbe = queueSettings ? new QueueProbe(queueSettings) : null;
  if (queueProbe) readiness.add('queue', () => queueProbe.depth());
  return {
    readiness,
    audioCache,
    config,
    db,
    mailer,
    storage,
    sessions,
    accounts,
    auth,
    credits,
    uploads,
    redis,
    speech,
    voices,
    synthesis,
    jobs,
    queues: { settings: queueSettings, remote, jobs: jobQueue, probe: queueProbe },
    apiKeys,
    usage: new UsageService(db.kysely),
    keyGate: { keys: apiKeys, rate: limiter, concurrency, plans },
    limiter,
    orders,
    payments,
    events: new EventStore(db.kysely, limiter, {
      perMinute: config.STATS_EVENTS_PER_MINUTE,
      retentionDays: config.STATS_RETENTION_DAYS,
      maxRows: config.STATS_MAX_EVENTS,
    }),
    design: { samples, previews, ownVoices },
    plans,
  };
}

export async function buildApp(
  config: Config,
  overrides: { mailer?: Mailer; db?: Db; logStream?: NodeJS.WritableStream } = {},
): Promise<BuiltApp> {
  const ctx = await buildContext(config, overrides);
  const app = Fastify({
    logger: overrides.logStream
      ? { level: 'info', stream: overrides.logStream }
      : config.LOG_LEVEL === 'silent'
        ? false
        : { level: config.LOG_LEVEL },
    // The caller's x-request-id when it is a plain token (a load balancer's), else a new one; on every log line.
    genReqId: requestId,
    // One hop: the client address is the one our proxy saw (the last X-Forwarded-For entry). Trusting
    // every hop would take the first entry, which the client writes itself, and void every per-IP limit.
    trustProxy: config.TRUST_PROXY ? (_address: string, hop: number) => hop === 0 : false,
    bodyLimit: JSON_BODY_LIMIT,
    return503OnClosing: false,
    ...requestTimeouts(config.REQUEST_TIMEOUT_SECONDS, config.HEADERS_TIMEOUT_SECONDS),
    clientErrorHandler: clientErrorHandler(() => newId('request')),
    // A malformed URL or an over-long path parameter is answered before any hook runs.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply.header('x-request-id', request.id)),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });

  registerErrorHandling(app);
  if (config.ROLE === 'worker') return { app: await asWorker(app, ctx), ctx };
  acceptEmptyJson(app);
  acceptForms(app);
  refuseNul(app);
  await registerSecurity(app);
  await app.register(cookie);
  await app.register(multipart, { limits: { fileSize: 25 * 1024 * 1024, files: 1, fields: 10 } });
  await registerOpenApi(app, config);

  await app.register(accountRoutes(ctx));
  await app.register(uploadRoutes(ctx));
  await app.register(docRoutes);
  await app.register(statsRoutes(ctx));
  await app.register(voiceRoutes(ctx));
  await app.register(synthesisRoutes(ctx));
  await app.register(jobRoutes(ctx));
  await app.register(elevenLabsRoutes(ctx));
  await app.register(apiKeyRoutes(ctx));
  await app.register(usageRoutes(ctx));
  await app.register(orderRoutes(ctx));
  await app.register(paymentRoutes(ctx));
  await app.register(designRoutes(ctx));

  if (fs.existsSync(path.join(config.WEB_DIST, 'index.html'))) {
    // wildcard: files are looked up per request, so a rebuilt console is served without a restart.
    await app.register(fastifyStatic, {
      root: config.WEB_DIST,
      prefix: '/',
      wildcard: true,
      index: ['index.html'],
      // Source maps are never published, even if a build left some behind.
      allowedPath: (pathName) => !pathName.endsWith('.map'),
    });
  }

  await ctx.design.samples.clearTemp();
  // Jobs a dead process left behind are settled, run again or released before the sweeper looks at their
  // holds; embedded, this process also takes over jobs whose process stopped saying it is alive.
  const embedded = config.ROLE === 'all';
  await ctx.jobs.recover(embedded);
  const stopJobRounds = ctx.jobs.startRounds(embedded, app.log);
  // With PostgreSQL several processes may share the database: one of them (the holder of an advisory lock) sweeps.
  const gate =
    ctx.db.dialect === 'postgres' && config.DATABASE_URL
      ? postgresSweepGate(config.DATABASE_URL, (err) => app.log.warn({ err }, 'sweeper lock connection failed'))
      : soleProcess;
  const stopSweeper = startHoldSweeper(ctx.credits, config.HOLD_SWEEP_SECONDS, app.log, gate);
  const stopJobSweeper = startJobSweeper(ctx.jobs, config.HOLD_SWEEP_SECONDS, app.log, gate);
  const stopOrderSweeper = startOrderSweeper(ctx.orders, config.ORDER_SWEEP_SECONDS, app.log, gate);
  const stopEventSweeper = startEventSweeper(ctx.events, config.HOLD_SWEEP_SECONDS, app.log, gate);
  const audioCache = ctx.audioCache;
  const stopCacheSweeper = audioCache
    ? startSweeper(
        {
          sweep: () => audioCache.sweep(),
          done: 'removed expired synthesis cache files',
          field: 'removed',
          failed: 'synthesis cache sweep failed',
          atStart: false,
        },
        config.HOLD_SWEEP_SECONDS,
        app.log,
        gate,
      )
    : () => {};
  // ioredis retries for ever; one line a minute says it is still failing.
  let redisLogged = 0;
  ctx.redis?.on('error', (err: unknown) => {
    if (Date.now() - redisLogged < 60_000) return;
    redisLogged = Date.now();
    app.log.warn({ err }, 'redis connection failed (retrying)');
  });
  const unregisterGauges = [
    registerJobStates(() => jobsByState(ctx.db.kysely)),
    registerCreditsOnHold(() => creditsOnHold(ctx.db.kysely)),
    ...(ctx.queues.probe ? [registerQueueDepth(() => ctx.queues.probe!.depth())] : []),
  ];
  // In-flight paid work gets a short grace, then stops and releases its hold before the database closes.
  app.addHook('preClose', async () => {
    ctx.jobs.beginShutdown();
    await ctx.synthesis.stopAll(config.SHUTDOWN_GRACE_SECONDS * 1000);
    // A reply its client stopped reading (a stream whose bytes sit unread) would keep the server from ever
    // closing: whatever is still open one more grace later is cut off. Its paid work was released above.
    setTimeout(() => app.server.closeAllConnections(), config.SHUTDOWN_GRACE_SECONDS * 1000).unref();
  });
  app.addHook('onClose', async () => {
    stopJobRounds();
    stopSweeper();
    stopJobSweeper();
    stopOrderSweeper();
    stopEventSweeper();
    stopCacheSweeper();
    for (const unregister of unregisterGauges) unregister();
    await gate.close();
    ctx.mailer.close();
    ctx.redis?.disconnect();
    await ctx.jobs.drain();
    await ctx.synthesis.drain();
    await ctx.queues.remote?.close();
    await ctx.queues.jobs?.close();
    await ctx.queues.probe?.close();
    await ctx.speech.close();
    await ctx.storage.close();
    await ctx.db.close();
  });
  return { app, ctx };
}

/**
 * ROLE=worker: no public API, only `/healthz` on its own port; takes synthesis from the queues. SIGTERM
 * drains it: running work gets a grace to finish, then is handed back to the queue.
 */
async function asWorker(app: FastifyInstance, ctx: AppContext): Promise<FastifyInstance> {
  const { config } = ctx;
  const settings = ctx.queues.settings!;
  const concurrency = config.QUEUE_CONCURRENCY ?? config.SPEECH_WORKERS ?? os.availableParallelism();
  const worker = new SynthesisWorker(settings, ctx.speech, ctx.jobs, concurrency, app.log);
  const stopJobRounds = ctx.jobs.startRounds(false, app.log);
  // Work is taken once the engines are up (they warm up at start unless SPEECH_WARMUP=false).
  ctx.speech.get().then(
    () => worker.start(),
    (err: unknown) => app.log.error({ err }, 'speech engines failed to start'),
  );
  app.get('/healthz', async (_request, reply) => {
    try {
      await ctx.db.kysely.selectFrom('accounts').select('id').limit(1).execute();
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: ctx.db.dialect });
    }
    return { status: 'ok', role: 'worker', taking_work: worker.started };
  });
  // Readiness (database, Redis, storage, the queues) and metrics (synthesis by engine, queue depth) as in an API process.
  app.get('/readyz', async (request, reply) => {
    const report = await ctx.readiness.run();
    if (!report.ready) request.log.warn({ checks: report.checks }, `not ready: ${report.failed.join(', ')}`);
    const checks = Object.fromEntries(Object.entries(report.checks).map(([name, { ok, ms }]) => [name, { ok, ms }]));
    return reply
      .status(report.ready && worker.started ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({
        status: report.ready && worker.started ? 'ready' : 'unavailable',
        role: 'worker',
        taking_work: worker.started,
        ...(report.ready ? {} : { failed: report.failed }),
        checks,
      });
  });
  const unregisterDepth = ctx.queues.probe ? registerQueueDepth(() => ctx.queues.probe!.depth()) : () => {};
  app.get('/metrics', async (_request, reply) => reply.header('content-type', metrics.contentType).send(await metrics.render()));
  app.addHook('preClose', async () => {
    ctx.jobs.beginShutdown();
    await worker.close(config.SHUTDOWN_GRACE_SECONDS * 1000);
    await ctx.synthesis.stopAll(config.SHUTDOWN_GRACE_SECONDS * 1000);
  });
  app.addHook('onClose', async () => {
    stopJobRounds();
    unregisterDepth();
    await ctx.queues.probe?.close();
    ctx.mailer.close();
    ctx.redis?.disconnect();
    await ctx.jobs.drain();
    await ctx.synthesis.drain();
    await ctx.speech.close();
    await ctx.storage.close();
    await ctx.db.close();
  });
  return app;
}
