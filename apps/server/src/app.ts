import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './platform/config.js';
import { migrate, openDatabase, type Db } from './platform/db/database.js';
import { createMailer, type Mailer } from './platform/mail.js';
import { localStorage } from './platform/storage.js';
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
import { metrics } from './stats/metrics.js';
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

const SHUTDOWN_GRACE_MS = 5000;

const serverRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
}

export async function buildContext(config: Config, overrides: { mailer?: Mailer; db?: Db } = {}): Promise<AppContext> {
  const db = overrides.db ?? openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  await migrate(db);
  const secret = loadSecret(config.SECRET, config.DATA_DIR);
  const mailer = overrides.mailer ?? createMailer(config.MAIL_URL, config.MAIL_FROM);
  const storage = localStorage(path.join(config.DATA_DIR, 'files'));
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 2 }) : null;
  const limiter = redis ? redisRateLimiter(redis, `${config.REDIS_PREFIX}rl:`) : memoryRateLimiter();
  const sessions = new SessionService(db.kysely);
  const credits = new CreditsService(db.kysely, loadCreditsConfig(config.CREDITS_CONFIG));
  const uploads = new UploadsService(db.kysely, storage);
  const words = loadSensitiveWords(path.join(serverRoot, 'config/sensitive-words.txt'));
  const accounts = new AccountsService(db.kysely, credits, sessions, words, (url, id) => uploads.ownsAvatarUrl(url, id), {
    limiter,
    accountsPerIpHour: config.ACCOUNT_LIMIT_PER_IP_HOUR,
    trialsPerIpDay: config.TRIAL_GRANTS_PER_IP_DAY,
    plansPerIpDay: config.PLAN_GRANTS_PER_IP_DAY,
    existsPerIpMinute: config.EXISTS_LIMIT_PER_IP_MINUTE,
  });
  const auth = new AuthService(db.kysely, accounts, sessions, new CodeService(db.kysely, secret), mailer, limiter, {
    codePerIpHour: config.CODE_LIMIT_PER_IP_HOUR,
    codePerEmailDay: config.CODE_LIMIT_PER_EMAIL_DAY,
    codePerAccountHour: config.CODE_LIMIT_PER_ACCOUNT_HOUR,
    codePerEmailAllDay: config.CODE_LIMIT_PER_EMAIL_ALL_DAY,
    signInPerIpMinute: config.SIGN_IN_LIMIT_PER_IP_MINUTE,
  });
  const products = loadProducts(config.PRODUCTS_CONFIG);
  const plans = new PlanPrivileges(db.kysely, products);
  const speech = new SpeechHost({
    // Each caller's own limit is its plan's (checked first, with that limit in the message); the engine takes the longest.
    maxTextLength: Math.max(LIMITS.maxTextLength, products.maxTextLength),
    warmup: config.SPEECH_WARMUP,
    ...(config.SPEECH_WORKERS ? { poolSize: config.SPEECH_WORKERS } : {}),
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
  const synthesis = new SynthesisService(speech, voices, credits);
  const jobs = new SynthesisJobs(db.kysely, synthesis, credits, storage);
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
  const ownVoices = new OwnVoicesService(designRepo, storage, credits, voices, designer, speech, words, plans);
  voices.setOwnVoices(ownVoices);
  return {
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
    genReqId: () => newId('request'),
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
  // Jobs a dead process left behind are settled or released before the sweeper looks at their holds.
  await ctx.jobs.recover();
  const stopSweeper = startHoldSweeper(ctx.credits, config.HOLD_SWEEP_SECONDS, app.log);
  const stopJobSweeper = startJobSweeper(ctx.jobs, config.HOLD_SWEEP_SECONDS, app.log);
  const stopOrderSweeper = startOrderSweeper(ctx.orders, config.ORDER_SWEEP_SECONDS, app.log);
  const stopEventSweeper = startEventSweeper(ctx.events, config.HOLD_SWEEP_SECONDS, app.log);
  // In-flight paid work gets a short grace, then stops and releases its hold before the database closes.
  app.addHook('preClose', async () => {
    await ctx.synthesis.stopAll(SHUTDOWN_GRACE_MS);
    // A reply its client stopped reading (a stream whose bytes sit unread) would keep the server from ever
    // closing: whatever is still open one more grace later is cut off. Its paid work was released above.
    setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
  });
  app.addHook('onClose', async () => {
    stopSweeper();
    stopJobSweeper();
    stopOrderSweeper();
    stopEventSweeper();
    ctx.mailer.close();
    ctx.redis?.disconnect();
    await ctx.jobs.drain();
    await ctx.synthesis.drain();
    await ctx.speech.close();
    await ctx.db.close();
  });
  return { app, ctx };
}
