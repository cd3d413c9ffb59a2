import fs from 'node:fs';
import { PUBLIC_CHECKS_QUEUED, watermarkDetector } from '../provenance/verify.js';
import { provenanceRoutes } from '../provenance/routes.js';
import { reportRoutes } from '../reports/routes.js';
import { reportsOf } from './reports.js';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import websocket from '@fastify/websocket';
import fastifyStatic from '@fastify/static';
import { registerOpenApi } from '../http/openapi.js';
import { acceptEmptyJson, acceptForms, refuseNul } from '../http/body.js';
import { registerSecurity } from '../http/security.js';
import { registerCompression, staticCacheHeaders } from '../http/compression.js';
import { defaultAuth, registerAuth } from '../http/auth.js';
import { operationsRoutes } from '../http/operations.js';
import { registerCreditsOnHold, registerJobStates } from '../platform/metrics.js';
import { accountRoutes } from '../accounts/routes.js';
import { authRoutes } from '../auth/routes.js';
import { uploadRoutes } from '../uploads/routes.js';
import { docRoutes } from '../docs/routes.js';
import { statsRoutes } from '../stats/routes.js';
import { creditsOnHold, jobsByState } from '../stats/gauges.js';
import { voiceRoutes } from '../voices/routes.js';
import { nativeRoutes } from '../synthesis/native/routes.js';
import { openAiRoutes } from '../synthesis/openai/routes.js';
import { jobRoutes } from '../synthesis/jobs/routes.js';
import { elevenLabsRoutes } from '../synthesis/elevenlabs/routes.js';
import { realtimeRoutes } from '../synthesis/realtime/routes.js';
import { dialogueRoutes } from '../dialogue/routes.js';
import { historyRoutes } from '../history/routes.js';
import { apiKeyRoutes } from '../api-keys/routes.js';
import { usageRoutes } from '../usage/routes.js';
import { orderRoutes } from '../orders/routes.js';
import { codeRoutes } from '../codes/routes.js';
import { codeAdminRoutes } from '../codes/admin-routes.js';
import { catalogueRoutes } from '../orders/catalogue-routes.js';
import { paymentRoutes } from '../payments/routes.js';
import { invoiceRoutes } from '../invoices/routes.js';
import { invoiceOperatorRoutes } from '../invoices/operator-routes.js';
import { orderOperatorRoutes } from '../payments/operator-routes.js';
import { designRoutes } from '../design/routes.js';
import { pronunciationRoutes } from '../pronunciation/routes.js';
import { accountAdminRoutes } from '../account-admin/routes.js';
import { clonedVoiceRoutes } from '../account-admin/cloned-voice-routes.js';
import { overviewRoutes } from '../overview/routes.js';
import { accountAdminOf, clonedVoicesOf, overviewOf } from './operator-accounts.js';
import { isSpeechRoute } from '../overview/service.js';
import { operatorRoutes } from '../operators/routes.js';
import type { AppContext } from './context.js';
import { startSweepers } from './sweepers.js';
import { liveView } from '../platform/runtime-settings.js';
import { engineRoutes } from '../engines/routes.js';
import { settingsRoutes } from '../settings/routes.js';
import { moderationRoutes } from '../moderation/routes.js';
import { studioRoutes } from '../studio/routes.js';
import { studioExportRoutes } from '../studio/export/routes.js';
import { loadSnapshot } from '../studio/snapshot.js';

/** How often a process adds its speech route counts to the database's. */
const SPEECH_STATS_FLUSH_MS = 10_000;

/** Every route module of the public API, each given the services it declares. */
async function registerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(accountRoutes(ctx));
  await app.register(authRoutes(ctx));
  await app.register(uploadRoutes(ctx));
  await app.register(docRoutes);
  await app.register(statsRoutes(ctx));
  await app.register(operationsRoutes({ db: ctx.db, readiness: ctx.readiness, role: ctx.config.ROLE }));
  await app.register(
    voiceRoutes({
      ...ctx,
      config: liveView(ctx.settings, { AI_LABEL_EXPLICIT: 'AI_LABEL_EXPLICIT', AI_LABEL_POSITION: 'AI_LABEL_POSITION' }),
    }),
  );
  await app.register(nativeRoutes(ctx));
  await app.register(openAiRoutes(ctx));
  await app.register(jobRoutes(ctx));
  await app.register(elevenLabsRoutes(ctx));
  await app.register(dialogueRoutes(ctx));
  await app.register(historyRoutes(ctx));
  await app.register(realtimeRoutes(ctx));
  await app.register(apiKeyRoutes(ctx));
  await app.register(usageRoutes(ctx));
  await app.register(orderRoutes(ctx));
  await app.register(codeRoutes(ctx));
  await app.register(codeAdminRoutes({ codes: ctx.codes, audit: ctx.audit }));
  await app.register(catalogueRoutes({ products: ctx.products, audit: ctx.audit }));
  await app.register(paymentRoutes(ctx));
  await app.register(invoiceRoutes(ctx));
  await app.register(orderOperatorRoutes(ctx));
  await app.register(invoiceOperatorRoutes(ctx));
  await app.register(designRoutes(ctx));
  await app.register(pronunciationRoutes(ctx));
  await app.register(studioRoutes({ db: ctx.db.kysely, voices: ctx.voices, storage: ctx.storage, conversion: ctx.studio }));
  await app.register(
    studioExportRoutes({
      storage: ctx.storage,
      provenance: ctx.provenance,
      speech: ctx.speech,
      loadSnapshot: (accountId, projectId, snapshotId) => loadSnapshot(ctx.db.kysely, accountId, projectId, snapshotId),
    }),
  );
  await app.register(accountAdminRoutes({ accountAdmin: accountAdminOf(ctx) }));
  await app.register(clonedVoiceRoutes({ clonedVoices: clonedVoicesOf(ctx) }));
  await app.register(overviewRoutes({ overview: overviewOf(ctx) }));
  await app.register(operatorRoutes({ db: ctx.db.kysely, operators: ctx.operators, factor: ctx.factor }));
  await app.register(
    engineRoutes({
      db: ctx.db.kysely,
      speech: ctx.speech,
      installs: ctx.modelInstalls,
      modelsDir: ctx.config.MODELS_DIR,
      providers: ctx.providers,
      providerSync: ctx.providerSync,
      audit: ctx.audit,
    }),
  );
  await app.register(settingsRoutes({ db: ctx.db.kysely, settings: ctx.settings, audit: ctx.audit }));
  await app.register(moderationRoutes({ db: ctx.db.kysely, moderation: ctx.moderation, audit: ctx.audit }));
  await app.register(reportRoutes(reportsOf(ctx)));
  await app.register(
    provenanceRoutes(
      // The checks' limit per minute follows the operator's setting (read at each check).
      liveView(
        ctx.settings,
        { perMinute: 'VERIFY_PER_MINUTE' },
        {
          provenance: ctx.provenance,
          limiter: ctx.limiter,
          detect: watermarkDetector(ctx.provenance.watermarkKey, { maxQueued: PUBLIC_CHECKS_QUEUED }),
          publicUrl: ctx.config.PUBLIC_URL,
        },
      ),
    ),
  );
}

/**
 * The public API on `app` (ROLE=all and api): body handling, security headers, compression, the reference, every
 * route, the console's files; then the jobs' recovery and rounds, the sweepers and the gauges, and the shutdown.
 * `embedded`: this process synthesizes itself (ROLE=all) and takes over jobs of processes that died.
 */
export async function serveApi(app: FastifyInstance, ctx: AppContext, { embedded }: { embedded: boolean }): Promise<void> {
  const { config } = ctx;
  registerAuth(app, ctx.sessions, ctx.keyGate, ctx.operators);
  acceptEmptyJson(app);
  acceptForms(app);
  refuseNul(app);
  await registerSecurity(app);
  // After the security hook, which reads the API reference page's inline script to hash it.
  await registerCompression(app);
  await app.register(cookie);
  await app.register(multipart, { limits: { fileSize: 25 * 1024 * 1024, files: 1, fields: 10 } });
  // The realtime routes' sockets. A frame larger than this is cut off by the socket itself (1009); the session refuses
  // a message over its own, smaller, limit with an error message first. A socket error (a client that drops
  // mid-frame) ends that socket only.
  await app.register(websocket, {
    options: { maxPayload: 1024 * 1024 },
    errorHandler: (error, socket, request) => {
      request.log.info({ err: error }, 'realtime socket error');
      socket.terminate();
    },
  });
  await registerOpenApi(app, config);
  await registerRoutes(app, ctx);

  if (fs.existsSync(path.join(config.WEB_DIST, 'index.html'))) {
    // The console's files are public.
    await app.register(async (scope) => {
      defaultAuth(scope, 'public');
      // wildcard: files are looked up per request, so a rebuilt console is served without a restart.
      await scope.register(fastifyStatic, {
        root: config.WEB_DIST,
        prefix: '/',
        wildcard: true,
        index: ['index.html'],
        // Source maps are never published, even if a build left some behind.
        allowedPath: (pathName) => !pathName.endsWith('.map'),
        // The build writes .br and .gz beside each text file: sent as they are to a browser that takes them.
        preCompressed: true,
        cacheControl: false,
        setHeaders: staticCacheHeaders(path.resolve(config.WEB_DIST)),
      });
    });
  }

  if (fs.existsSync(path.join(config.GUIDE_DIST, 'index.html'))) {
    // The documentation site (docs/site, built by `npm run build`), public like the console. Its pages are linked
    // without `.html` (`/guide/quick-start/curl`), so a path finds its file with the extension added.
    await app.register(async (scope) => {
      defaultAuth(scope, 'public');
      await scope.register(fastifyStatic, {
        root: config.GUIDE_DIST,
        prefix: '/guide/',
        decorateReply: false,
        wildcard: true,
        index: ['index.html'],
        extensions: ['html'],
        redirect: true,
        preCompressed: true,
        cacheControl: false,
        setHeaders: staticCacheHeaders(path.resolve(config.GUIDE_DIST), 'static/'),
      });
      // `/guide` typed without its slash: the site's relative paths need the folder's URL.
      scope.get('/guide', { schema: { hide: true } }, (_request, reply) => reply.redirect('/guide/', 301));
    });
  }

  await ctx.design.samples.clearTemp();
  // Jobs a dead process left behind are settled, run again or released before the sweeper looks at their
  // holds; embedded, this process also takes over jobs whose process stopped saying it is alive.
  await ctx.jobs.recover(embedded);
  const stopJobRounds = ctx.jobs.startRounds(embedded, app.log);
  const stopSweepers = startSweepers(ctx, app.log);
  // The speech routes' answers, added to the hourly counts all processes share every 10 s (and at close).
  app.addHook('onResponse', async (request, reply) => {
    if (isSpeechRoute(request.method, request.routeOptions.url ?? ''))
      ctx.speechStats.record(reply.statusCode, reply.elapsedTime / 1000);
  });
  const stopSpeechStats = ctx.speechStats.start(SPEECH_STATS_FLUSH_MS, (error) =>
    app.log.warn({ err: error }, 'speech route counts not written yet'),
  );
  const unregisterGauges = [
    registerJobStates(() => jobsByState(ctx.db.kysely)),
    registerCreditsOnHold(() => creditsOnHold(ctx.db.kysely)),
  ];
  // In-flight paid work gets a short grace, then stops and releases its hold before the database closes.
  app.addHook('preClose', async () => {
    ctx.jobs.beginShutdown();
    await ctx.synthesis.stopAll(config.SHUTDOWN_GRACE_SECONDS * 1000);
    // A reply its client stopped reading (a stream whose bytes sit unread) would keep the server from ever
    // closing: whatever is still open one more grace later is cut off. Its paid work was released above.
    setTimeout(() => app.server.closeAllConnections(), config.SHUTDOWN_GRACE_SECONDS * 1000).unref();
  });
  // Runs first at close (the last onClose registered), before the services drain and the resources close.
  app.addHook('onClose', async () => {
    stopJobRounds();
    for (const unregister of unregisterGauges) unregister();
    await stopSweepers();
    await stopSpeechStats();
  });
}
