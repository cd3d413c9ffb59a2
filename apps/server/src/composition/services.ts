import { SpeechStatsRecorder } from '../overview/speech-stats.js';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { ModerationService } from '../moderation/service.js';
import { moderationProviderOf } from '../moderation/providers.js';
import type { Redis } from 'ioredis';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db/database.js';
import { createMailer, type Mailer } from '../platform/mail.js';
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
import { SessionService } from '../sessions/sessions.js';
import { CodeService } from '../auth/codes.js';
import { AuthService } from '../auth/service.js';
import { AccountsService } from '../accounts/service.js';
import { CreditsService } from '../credits/service.js';
import { loadCreditsConfig } from '../credits/credits-config.js';
import { UploadsService } from '../uploads/service.js';
import { SynthesisService } from '../synthesis/service.js';
import { VoicesService } from '../voices/service.js';
import { SynthesisJobs } from '../synthesis/jobs/service.js';
import { ApiKeysService } from '../api-keys/service.js';
import { UsageService } from '../usage/service.js';
import { OrdersService } from '../orders/service.js';
import type { CatalogueStore } from '../orders/catalogue-store.js';
import { PlanPrivileges } from '../orders/privileges.js';
import { PaymentsService } from '../payments/service.js';
import { CodesService } from '../codes/service.js';
import { createProviders } from '../payments/providers.js';
import { InvoicesService } from '../invoices/service.js';
import { receiptFonts } from '../invoices/fonts.js';
import { EventStore } from '../stats/store.js';
import { DesignRepository } from '../design/repository.js';
import { Designer } from '../design/profiles.js';
import { SamplesService } from '../design/samples.js';
import { PreviewsService } from '../design/previews.js';
import { OwnVoicesService } from '../design/own-voices.js';
import { OwnVoiceLookup } from '../design/own-voice-lookup.js';
import { VoiceLibrary } from '../voices/library.js';
import { LocalSynthesizer } from '../speech/synthesizer.js';
import { DatabaseJobProvider } from '../synthesis/jobs/database.js';
import { startJobLayer } from '../synthesis/jobs/kinds.js';
import type { AppContext } from './context.js';
import { Provenance, type FileSigner } from '../provenance/service.js';
import { PronunciationService } from '../pronunciation/service.js';
import { provenanceKeys } from '../provenance/keys.js';
import { syntheticSignals, watermarkDetector } from '../provenance/verify.js';
import type { Queues, SpeechParts } from './resources.js';
import type { Broadcast } from '../platform/broadcast.js';
import { AppError } from '../platform/errors.js';
import { AccountSockets } from '../synthesis/realtime/account-sockets.js';
import { operatorSettings, startingSettings } from '../platform/settings.js';
import { liveView } from '../platform/runtime-settings.js';
import { createSmsSender, type SmsSender } from '../platform/sms.js';
import { SmsGuard } from '../auth/sms-guard.js';
import { PhoneAuthService } from '../auth/phone.js';
import { RealNameGate } from '../accounts/real-name.js';
import { ProviderSync, ProvidersService } from '../providers/service.js';
import { ModelInstalls } from '../models/installs.js';
import { loadCatalogue } from '../models/catalogue.js';
import { DatabaseAuditTrail } from '../audit/trail.js';
import { ProtectedVoices } from '../protected-voices/service.js';
import { OperatorsService, systemClock } from '../operators/service.js';
import { SecondFactorService } from '../operators/factor.js';

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

/** Builds every service of the process on its resources; what each role serves is chosen by the role. */
export function buildServices(
  config: Config,
  parts: ServiceParts,
  overrides: { mailer?: Mailer; sms?: SmsSender } = {},
): AppContext {
  const { db, storage, redis, speech, audioCache, words, wordsReload, products } = parts;
  const { settings: queueSettings, remote, jobs: jobQueue, probe: queueProbe } = parts.queues;
  const secret = loadSecret(config.SECRET, config.DATA_DIR);
  const mailer = overrides.mailer ?? createMailer(config.MAIL_URL, config.MAIL_FROM);
  const limiter = redis ? redisRateLimiter(redis, `${config.REDIS_PREFIX}rl:`) : memoryRateLimiter();
  const sessions = new SessionService(db.kysely);
  const credits = new CreditsService({
    db: db.kysely,
    config: loadCreditsConfig(config.CREDITS_CONFIG),
    dialect: db.dialect,
  });
  // The operator's runtime settings over the starting ones; each service below reads them through a live view.
  const settings = operatorSettings(db.kysely, startingSettings(config, credits.config)).start();
  const uploads = new UploadsService({
    db: db.kysely,
    storage,
    limits: {
      limiter,
      perAccountHour: config.AVATAR_UPLOADS_PER_ACCOUNT_HOUR,
      perIpHour: config.AVATAR_UPLOADS_PER_IP_HOUR,
      keepMs: config.AVATAR_KEEP_HOURS * 3_600_000,
    },
  });
  const accounts = new AccountsService({
    db: db.kysely,
    credits,
    sessions,
    words,
    avatarOwner: (url, id) => uploads.ownsAvatarUrl(url, id),
    limits: liveView(
      settings,
      {
        accountsPerIpHour: 'ACCOUNT_LIMIT_PER_IP_HOUR',
        trialsPerIpDay: 'TRIAL_GRANTS_PER_IP_DAY',
        plansPerIpDay: 'PLAN_GRANTS_PER_IP_DAY',
        anonymousTrial: 'ANONYMOUS_TRIAL_CREDITS',
        freePlanGrant: 'FREE_PLAN_CREDITS',
      },
      { limiter, existsPerIpMinute: config.EXISTS_LIMIT_PER_IP_MINUTE },
    ),
  });
  const codeStore = new CodeService({ db: db.kysely, secret, dialect: db.dialect });
  const auth = new AuthService({
    db: db.kysely,
    accounts,
    sessions,
    codes: codeStore,
    mailer,
    limiter,
    limits: liveView(
      settings,
      {
        codePerIpHour: 'CODE_LIMIT_PER_IP_HOUR',
        codePerEmailDay: 'CODE_LIMIT_PER_EMAIL_DAY',
        signInPerIpMinute: 'SIGN_IN_LIMIT_PER_IP_MINUTE',
      },
      { codePerAccountHour: config.CODE_LIMIT_PER_ACCOUNT_HOUR, codePerEmailAllDay: config.CODE_LIMIT_PER_EMAIL_ALL_DAY },
    ),
    signupOpen: () => settings.current().SIGNUP_OPEN,
  });
  // Phone sign-in: codes by SMS (SMS_URL) behind the SMS guard's countries, limits, proof-of-work and daily cap.
  const smsGuard = new SmsGuard({
    db: db.kysely,
    limiter,
    secret,
    limits: liveView(
      settings,
      {
        countries: 'SMS_COUNTRIES',
        perIpHour: 'SMS_LIMIT_PER_IP_HOUR',
        dailyCap: 'SMS_DAILY_CAP',
        freePerIpDay: 'SMS_FREE_PER_IP_DAY',
      },
      {
        perAccountHour: config.SMS_LIMIT_PER_ACCOUNT_HOUR,
        perNumberDay: config.SMS_LIMIT_PER_NUMBER_DAY,
        perNumberAllDay: config.SMS_LIMIT_PER_NUMBER_ALL_DAY,
        powDifficulty: config.SMS_POW_DIFFICULTY,
      },
    ),
  });
  const phone = new PhoneAuthService({
    db: db.kysely,
    accounts,
    sessions,
    codes: codeStore,
    sms: overrides.sms ?? createSmsSender(config.SMS_URL),
    guard: smsGuard,
    limiter,
    signInPerIpMinute: () => settings.current().SIGN_IN_LIMIT_PER_IP_MINUTE,
    signupOpen: () => settings.current().SIGNUP_OPEN,
  });
  const plans = new PlanPrivileges({ db: db.kysely, products });
  // Every file that leaves is recorded and labelled (provenance/); the watermark key reaches the engines in resources.ts.
  const provenance = new Provenance({
    db: db.kysely,
    keys: provenanceKeys(secret),
    producer: config.AIGC_CONTENT_PRODUCER,
    propagator: config.AIGC_CONTENT_PROPAGATOR,
    signer: parts.signer,
  });
  // Synthesis: SpeechHost (resources.ts, with the shared cache) and, in an API process, the queues (resources.ts).
  // ROLE=api synthesizes through the queue (in worker processes); the others on their own engines.
  const engines = new LocalSynthesizer({ host: speech });
  const library = new VoiceLibrary({ host: speech });
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
  // One moderation step before anything is planned to be spoken, held or charged (moderation/, docs/moderation.md).
  const moderation = new ModerationService({
    db: db.kysely,
    words,
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
  const synthesis = new SynthesisService({
    review: moderation,
    host: speech,
    voices,
    credits,
    pronunciation,
    synthesizer: remote ?? engines,
    aiLabel: liveView(settings, { explicit: 'AI_LABEL_EXPLICIT', position: 'AI_LABEL_POSITION' }),
  });
  const jobs = new SynthesisJobs({
    db: db.kysely,
    synthesis,
    credits,
    storage,
    layer: startJobLayer({ synthesis, storage, provenance, engines, provider: jobQueue ?? new DatabaseJobProvider() }),
    owner: newId('request').replace('req_', `${config.ROLE}_`),
    staleSeconds: config.JOB_STALE_SECONDS,
    maxAttempts: config.JOB_MAX_ATTEMPTS,
    keepMs: config.JOB_KEEP_MINUTES * 60_000,
  });
  // Real-name users where the operator requires them (REAL_NAME=phone): cloning, designing, API keys and buying.
  const realName = new RealNameGate(db.kysely, () => settings.current().REAL_NAME);
  const apiKeys = new ApiKeysService({ db: db.kysely, words, realName: () => realName.required });
  const concurrency = redis ? redisConcurrencyLimiter(redis, `${config.REDIS_PREFIX}conc:`) : memoryConcurrencyLimiter();
  const orders = new OrdersService({
    db: db.kysely,
    credits,
    products,
    ttlMinutes: config.ORDER_TTL_MINUTES,
    pendingLimit: config.ORDER_PENDING_LIMIT,
  });
  const codes = new CodesService({
    db: db.kysely,
    credits,
    plans: orders,
    products,
    limiter,
    secret,
    limits: { perAccountHour: config.REDEEM_PER_ACCOUNT_HOUR, perIpHour: config.REDEEM_PER_IP_HOUR },
  });
  const payments = new PaymentsService({
    db: db.kysely,
    orders,
    providers: createProviders(config, secret),
    secret,
    publicUrl: config.PUBLIC_URL,
  });
  const invoices = new InvoicesService({
    db: db.kysely,
    storage,
    mailer,
    orders,
    fonts: receiptFonts(config.RECEIPT_FONT),
    issuer: {
      name: config.RECEIPT_ISSUER_NAME,
      taxId: config.RECEIPT_ISSUER_TAX_ID,
      address: config.RECEIPT_ISSUER_ADDRESS,
      email: config.RECEIPT_ISSUER_EMAIL,
    },
    publicUrl: config.PUBLIC_URL,
  });
  const designer = new Designer({ host: speech, voices });
  const previews = new PreviewsService({
    repo: designRepo,
    storage,
    fees: credits.config.activation_fees,
    synthesis,
    designer,
    samples,
    words,
    provenance,
  });
  const ownVoices = new OwnVoicesService({
    repo: designRepo,
    storage,
    credits,
    library,
    lookup: ownVoiceLookup,
    designer,
    host: speech,
    words,
    samples,
    plans,
    provenance,
  });
  // A disabled account stops in every process: its work in flight (each piece releases its hold) and its realtime
  // sockets (each told why). The disable itself publishes this; every process, this one included, acts on it.
  const realtimeSockets = new AccountSockets();
  parts.broadcast.on(ACCOUNT_DISABLED_TOPIC, (accountId) => {
    synthesis.stopAccount(accountId, new AppError('ACCOUNT_DISABLED'));
    realtimeSockets.endAll(accountId, new AppError('ACCOUNT_DISABLED'));
  });
  // Remote providers: the console's (sealed keys) under the environment's, applied to this process's engines.
  const providers = new ProvidersService({ db: db.kysely, secret, env: config });
  const providerSync = new ProviderSync({
    providers,
    apply: (next) => speech.setRemote(next),
  }).start();
  const modelInstalls = new ModelInstalls({
    db: db.kysely,
    modelsDir: config.MODELS_DIR,
    catalogue: () => loadCatalogue(config.MODELS_CATALOGUE),
    mirror: config.MODELS_MIRROR,
  });
  // Operators: one clock for their rules (tests set their own), the audit trail, the second factor bound to PUBLIC_URL.
  const operatorClock = systemClock();
  const audit = new DatabaseAuditTrail(db.kysely, () => operatorClock.now());
  const protectedVoices = new ProtectedVoices({ db: db.kysely, audit, storage });
  const publicUrl = new URL(config.PUBLIC_URL);
  const factor = new SecondFactorService({
    db: db.kysely,
    secret,
    clock: operatorClock,
    limiter,
    audit,
    rp: { name: 'Polyvox', origins: [publicUrl.origin, ...config.ALLOWED_ORIGINS] },
    issuer: 'Polyvox',
  });
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
    phone,
    smsGuard,
    realName,
    credits,
    uploads,
    redis,
    speech,
    voices,
    synthesis,
    moderation,
    jobs,
    queues: { settings: queueSettings, remote, jobs: jobQueue, probe: queueProbe },
    apiKeys,
    usage: new UsageService({ db: db.kysely }),
    keyGate: { keys: apiKeys, rate: limiter, concurrency, plans },
    limiter,
    orders,
    products,
    codes,
    payments,
    invoices,
    events: new EventStore({
      db: db.kysely,
      limiter,
      limits: {
        perMinute: config.STATS_EVENTS_PER_MINUTE,
        retentionDays: config.STATS_RETENTION_DAYS,
        maxRows: config.STATS_MAX_EVENTS,
      },
    }),
    design: { samples, previews, ownVoices },
    plans,
    wordsReload,
    provenance,
    pronunciation,
    broadcast: parts.broadcast,
    realtimeSockets,
    settings,
    providers,
    providerSync,
    modelInstalls,
    audit,
    operators: new OperatorsService({ db: db.kysely, audit, clock: operatorClock }),
    factor,
    protectedVoices,
    speechStats: new SpeechStatsRecorder(db.kysely),
  };
}
