import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { ModerationService } from '../moderation/service.js';
import { moderationProviderOf } from '../moderation/providers.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db/database.js';
import type { Storage } from '../platform/storage.js';
import {
  memoryConcurrencyLimiter,
  memoryRateLimiter,
  redisConcurrencyLimiter,
  redisRateLimiter,
} from '../platform/rate-limit.js';
import type { SensitiveWords, SensitiveWordsReload } from '../platform/sensitive-words.js';
import { loadSecret } from '../platform/secret.js';
import { newId } from '../platform/ids.js';
import { Readiness } from '../platform/health.js';
import { AppError } from '../platform/errors.js';
import type { Broadcast } from '../platform/broadcast.js';
import { operatorSettings, startingSettings } from '../platform/settings.js';
import { liveView } from '../platform/runtime-settings.js';
import { SessionService } from '../sessions/sessions.js';
import { CreditsService } from '../credits/service.js';
import { loadCreditsConfig } from '../credits/credits-config.js';
import { SynthesisService } from '../synthesis/service.js';
import { SynthesisJobs } from '../synthesis/jobs/service.js';
import { HistoryService } from '../history/service.js';
import { HistoryRepository } from '../history/repository.js';
import { DatabaseJobProvider } from '../synthesis/jobs/database.js';
import { startJobLayer } from '../synthesis/jobs/kinds.js';
import { StudioConversion } from '../studio/convert.js';
import { VoicesService } from '../voices/service.js';
import { VoiceLibrary } from '../voices/library.js';
import { WithheldVoices } from '../voices/withheld.js';
import { ApiKeysService } from '../api-keys/service.js';
import type { CatalogueStore } from '../orders/catalogue-store.js';
import { PlanPrivileges } from '../orders/privileges.js';
import { DesignRepository } from '../design/repository.js';
import { SamplesService } from '../design/samples.js';
import { OwnVoiceLookup } from '../design/own-voice-lookup.js';
import { LocalSynthesizer } from '../speech/synthesizer.js';
import { Provenance, type FileSigner } from '../provenance/service.js';
import { provenanceKeys } from '../provenance/keys.js';
import { syntheticSignals, watermarkDetector } from '../provenance/verify.js';
import { PronunciationService } from '../pronunciation/service.js';
import { RealNameGate } from '../accounts/real-name.js';
import { ProviderSync, ProvidersService } from '../providers/service.js';
import { DatabaseAuditTrail } from '../audit/trail.js';
import { ProtectedVoices } from '../protected-voices/service.js';
import { OperatorsService, systemClock } from '../operators/service.js';
import type { Queues, SpeechParts } from './resources.js';
import type { WorkerContext } from './context.js';

/** The broadcast topic of a disabled account (the message is its id). */
export const ACCOUNT_DISABLED_TOPIC = 'account.disabled';

/** What the services are built on: the opened resources (resources.ts) and the lists read at start. */
export interface ServiceParts extends SpeechParts {
  db: Db;
  storage: Storage;
  redis: Redis | null;
  /** Tells every process of the deployment (platform/broadcast.ts). */
  broadcast: Broadcast;
  queues: Queues;
  words: SensitiveWords;
  wordsReload: SensitiveWordsReload;
  products: CatalogueStore;
  /** The C2PA signer of whole wav and mp3 files (resources.ts), or null. */
  signer: FileSigner | null;
  /** Where services log what no request sees (a moderation provider that did not answer). */
  log: Pick<FastifyBaseLogger, 'warn'>;
}

/** What the core builds beside the context that the API's services are built on too. */
export interface CoreParts {
  secret: ReturnType<typeof loadSecret>;
  engines: LocalSynthesizer;
  library: VoiceLibrary;
  designRepo: DesignRepository;
  samples: SamplesService;
  ownVoiceLookup: OwnVoiceLookup;
  realName: RealNameGate;
  apiKeys: ApiKeysService;
  /** The operators' clock (the second factor's too). */
  operatorClock: ReturnType<typeof systemClock>;
}

/**
 * The services every role builds (a worker no more): synthesis and what it stands on (credits, moderation, voices,
 * pronunciation, provenance, the jobs), the operator's settings and providers applied to this process's engines, and
 * what the auth hook resolves. Payments, orders, mail and the console's services are the API's (api-services.ts).
 */
export function buildCoreServices(config: Config, parts: ServiceParts): { ctx: WorkerContext; core: CoreParts } {
  const { db, storage, redis, speech, audioCache, words, products } = parts;
  const { settings: queueSettings, remote, jobs: jobQueue, probe: queueProbe } = parts.queues;
  const secret = loadSecret(config.SECRET, config.DATA_DIR);
  const limiter = redis ? redisRateLimiter(redis, `${config.REDIS_PREFIX}rl:`) : memoryRateLimiter();
  const credits = new CreditsService({
    db: db.kysely,
    config: loadCreditsConfig(config.CREDITS_CONFIG),
    dialect: db.dialect,
  });
  // The operator's runtime settings over the starting ones; each service below reads them through a live view.
  const settings = operatorSettings(db.kysely, startingSettings(config, credits.config)).start();
  const plans = new PlanPrivileges({ db: db.kysely, products });
  // Every file that leaves is recorded and labelled (provenance/); the watermark key reaches the engines in resources.ts.
  const provenance = new Provenance({
    db: db.kysely,
    keys: provenanceKeys(secret),
    producer: config.AIGC_CONTENT_PRODUCER,
    propagator: config.AIGC_CONTENT_PROPAGATOR,
    signer: parts.signer,
  });
  // Operators: one clock for their rules (tests set their own), the audit trail.
  const operatorClock = systemClock();
  const audit = new DatabaseAuditTrail(db.kysely, () => operatorClock.now());
  const protectedVoices = new ProtectedVoices({ db: db.kysely, audit, storage });
  // Synthesis: SpeechHost (resources.ts, with the shared cache) and, in an API process, the queues (resources.ts).
  // ROLE=api synthesizes through the queue (in worker processes); the others on their own engines.
  const engines = new LocalSynthesizer({ host: speech });
  const withheldVoices = new WithheldVoices(db.kysely);
  const library = new VoiceLibrary({ host: speech, withheld: withheldVoices });
  const designRepo = new DesignRepository(db.kysely);
  const samples = new SamplesService({
    repo: designRepo,
    storage,
    tempDir: path.join(config.DATA_DIR, 'tmp', 'uploads'),
    limiter,
    perAccountHour: config.SAMPLE_UPLOADS_PER_ACCOUNT_HOUR,
    // A sample this platform made (a re-encoded download, say) is recorded as synthetic with what showed it.
    inspect: (bytes) => syntheticSignals(bytes, { provenance, detect: watermarkDetector(provenance.watermarkKey) }),
    protect: (print) => protectedVoices.check(print),
  });
  const ownVoiceLookup = new OwnVoiceLookup({ repo: designRepo, library, host: speech, samples });
  const voices = new VoicesService({
    library,
    storage,
    synthesizer: remote ?? engines,
    ownVoices: ownVoiceLookup,
    provenance,
  });
  const pronunciation = new PronunciationService({ db: db.kysely });
  const moderation = buildModeration(config, parts, settings);
  const synthesis = new SynthesisService({
    review: moderation,
    host: speech,
    voices,
    credits,
    pronunciation,
    synthesizer: remote ?? engines,
    aiLabel: liveView(settings, { explicit: 'AI_LABEL_EXPLICIT', position: 'AI_LABEL_POSITION' }),
  });
  // Every generation that delivered audio, kept the operator's HISTORY_RETENTION_DAYS (read at each use).
  const history = new HistoryService({
    repo: new HistoryRepository(db.kysely, db.dialect),
    storage,
    retentionDays: () => settings.current().HISTORY_RETENTION_DAYS,
    onError: (err, what) => parts.log.warn({ err }, what),
  });
  const jobs: SynthesisJobs = new SynthesisJobs({
    db: db.kysely,
    synthesis,
    credits,
    storage,
    layer: startJobLayer({
      synthesis,
      storage,
      provenance,
      engines,
      history,
      provider: jobQueue ?? new DatabaseJobProvider(),
      // Called only once a job runs, after `studio` below is made.
      studioConvert: (payload, context): Promise<void> => studio.handler()(payload, context),
    }),
    owner: newId('request').replace('req_', `${config.ROLE}_`),
    staleSeconds: config.JOB_STALE_SECONDS,
    maxAttempts: config.JOB_MAX_ATTEMPTS,
    keepMs: config.JOB_KEEP_MINUTES * 60_000,
  });
  // Studio conversions: durable jobs of the same layer, a hold per paragraph (studio/convert.ts).
  // A whole project's conversion is a part per chapter: through the queue, the workers take them (and the run of the
  // group's row speaks one chapter at a time); in one process, as many at once as it has speech threads asked for.
  const partsWidth = config.ROLE === 'all' ? (config.SPEECH_WORKERS ?? 1) : 1;
  const studio: StudioConversion = new StudioConversion({
    db: db.kysely,
    synthesis,
    credits,
    provenance,
    storage,
    jobs,
    partsWidth,
  });
  // A disabled account stops in every process: its work in flight (each piece releases its hold). The disable
  // itself publishes this; every process, this one included, acts on it (an API process closes its sockets too).
  parts.broadcast.on(ACCOUNT_DISABLED_TOPIC, (accountId) => {
    synthesis.stopAccount(accountId, new AppError('ACCOUNT_DISABLED'));
  });
  // Remote providers: the console's (sealed keys) under the environment's, applied to this process's engines.
  const providers = new ProvidersService({ db: db.kysely, secret, env: config });
  const providerSync = new ProviderSync({
    providers,
    apply: (next) => speech.setRemote(next),
  }).start();
  // Real-name users where the operator requires them (REAL_NAME=phone): cloning, designing, API keys and buying.
  const realName = new RealNameGate(db.kysely, () => settings.current().REAL_NAME);
  const apiKeys = new ApiKeysService({ db: db.kysely, words, realName: () => realName.required });
  const concurrency = redis ? redisConcurrencyLimiter(redis, `${config.REDIS_PREFIX}conc:`) : memoryConcurrencyLimiter();
  const ctx: WorkerContext = {
    readiness: readinessOf(config, parts),
    audioCache,
    config,
    db,
    storage,
    sessions: new SessionService(db.kysely),
    credits,
    redis,
    speech,
    voices,
    synthesis,
    moderation,
    jobs,
    history,
    studio,
    queues: { settings: queueSettings, remote, jobs: jobQueue, probe: queueProbe },
    keyGate: { keys: apiKeys, rate: limiter, concurrency, plans },
    limiter,
    products,
    plans,
    wordsReload: parts.wordsReload,
    provenance,
    pronunciation,
    broadcast: parts.broadcast,
    settings,
    providers,
    providerSync,
    audit,
    operators: new OperatorsService({ db: db.kysely, audit, clock: operatorClock }),
    protectedVoices,
    withheldVoices,
  };
  return { ctx, core: { secret, engines, library, designRepo, samples, ownVoiceLookup, realName, apiKeys, operatorClock } };
}

/** One moderation step before anything is planned to be spoken, held or charged (moderation/, docs/moderation.md). */
function buildModeration(config: Config, parts: ServiceParts, settings: WorkerContext['settings']): ModerationService {
  return new ModerationService({
    db: parts.db.kysely,
    words: parts.words,
    provider: moderationProviderOf(config),
    timeoutMs: config.MODERATION_TIMEOUT_MS,
    settings: () => {
      const s = settings.current();
      return {
        keepDays: s.MODERATION_KEEP_DAYS,
        onTimeout: { synthesis: s.MODERATION_FAIL_SYNTHESIS, design: s.MODERATION_FAIL_DESIGN },
      };
    },
    onProviderError: (err, decision, context) =>
      parts.log.warn(
        { err, route: context.route, purpose: context.purpose, decision },
        decision === 'open'
          ? 'moderation provider did not answer; the text goes on (fail-open)'
          : 'moderation provider did not answer; the text is refused (fail-closed)',
      ),
  });
}

/** What `/readyz` checks: the database, Redis, storage, warm engines (ROLE=all) and the queues. */
function readinessOf(config: Config, parts: ServiceParts): Readiness {
  const { db, redis, storage, speech } = parts;
  const { probe: queueProbe } = parts.queues;
  const readiness = new Readiness();
  readiness.add('database', () => db.kysely.selectFrom('accounts').select('id').limit(1).execute());
  if (redis) readiness.add('redis', () => redis.ping());
  readiness.add('storage', () => storage.check());
  // A process that synthesizes itself is ready once its engines are warm (the first request then costs what any does);
  // a worker takes no work before that either (its /readyz waits for it), and an API process starts no engine.
  if (config.ROLE === 'all' && config.SPEECH_WARMUP)
    readiness.add('speech', async () => {
      if (!speech.ready()) throw new Error('speech engines are warming up');
    });
  // Scale-out: a process that cannot count the queues' depth (for /metrics) cannot use them either.
  if (queueProbe) readiness.add('queue', () => queueProbe.depth());
  return readiness;
}

/** Stops and drains what the core started: the settings' and providers' refreshes, the jobs, synthesis in flight. */
export async function closeCoreServices(ctx: WorkerContext): Promise<void> {
  ctx.settings.stop();
  ctx.providerSync.stop();
  await ctx.jobs.drain();
  await ctx.synthesis.drain();
}
