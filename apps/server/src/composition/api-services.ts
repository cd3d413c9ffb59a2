import type { Config } from '../platform/config.js';
import { createMailer, type Mailer } from '../platform/mail.js';
import { liveView } from '../platform/runtime-settings.js';
import { createSmsSender, type SmsSender } from '../platform/sms.js';
import { AppError } from '../platform/errors.js';
import { CodeService } from '../auth/codes.js';
import { AuthService } from '../auth/service.js';
import { SmsGuard } from '../auth/sms-guard.js';
import { databaseRateLimiter } from '../platform/db-rate-limit.js';
import { PhoneAuthService } from '../auth/phone.js';
import { AccountsService } from '../accounts/service.js';
import { UploadsService } from '../uploads/service.js';
import { UsageService } from '../usage/service.js';
import { OrdersService } from '../orders/service.js';
import { PaymentsService } from '../payments/service.js';
import { createProviders } from '../payments/providers.js';
import { CodesService } from '../codes/service.js';
import { InvoicesService } from '../invoices/service.js';
import { receiptFonts } from '../invoices/fonts.js';
import { EventStore } from '../stats/store.js';
import { Designer } from '../design/profiles.js';
import { PreviewsService } from '../design/previews.js';
import { OwnVoicesService } from '../design/own-voices.js';
import { AccountSockets } from '../synthesis/realtime/account-sockets.js';
import { ModelInstalls } from '../models/installs.js';
import { loadCatalogue } from '../models/catalogue.js';
import { SecondFactorService } from '../operators/factor.js';
import { SpeechStatsRecorder } from '../overview/speech-stats.js';
import type { AppContext } from './context.js';
import { ACCOUNT_DISABLED_TOPIC, buildCoreServices, closeCoreServices, type ServiceParts } from './core-services.js';

/**
 * The services of a process that serves the API (ROLE=all and api): the core every role builds (core-services.ts),
 * then accounts, sign-in by mail and SMS, uploads, orders, payments, codes, receipts, voice design, the realtime
 * sockets, model installs, the operators' second factor and the console's counts.
 */
export function buildApiServices(
  config: Config,
  parts: ServiceParts,
  overrides: { mailer?: Mailer; sms?: SmsSender } = {},
): AppContext {
  const { ctx: base, core } = buildCoreServices(config, parts);
  const { db, storage, words, products } = parts;
  const { credits, settings, limiter, sessions, provenance, synthesis, voices, plans, audit } = base;
  const { secret, samples, realName } = core;
  const mailer = overrides.mailer ?? createMailer(config.MAIL_URL, config.MAIL_FROM);
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
  // Its limits count in Redis when there is one, else in the database: a text costs money, so the limits hold
  // across every process either way (the memory limiter would give each process an allowance of its own).
  const smsGuard = new SmsGuard({
    db: db.kysely,
    limiter: parts.redis ? limiter : databaseRateLimiter(db.kysely, 'sms|'),
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
  const designer = new Designer({ host: parts.speech, voices });
  const previews = new PreviewsService({
    repo: core.designRepo,
    storage,
    fees: credits.config.activation_fees,
    synthesis,
    designer,
    samples,
    words,
    provenance,
  });
  const ownVoices = new OwnVoicesService({
    repo: core.designRepo,
    storage,
    credits,
    library: core.library,
    lookup: core.ownVoiceLookup,
    designer,
    host: parts.speech,
    words,
    samples,
    plans,
    provenance,
  });
  // A disabled account's realtime sockets here are closed, each told why (the core stops its work in flight).
  const realtimeSockets = new AccountSockets();
  parts.broadcast.on(ACCOUNT_DISABLED_TOPIC, (accountId) => {
    realtimeSockets.endAll(accountId, new AppError('ACCOUNT_DISABLED'));
  });
  const publicUrl = new URL(config.PUBLIC_URL);
  return {
    ...base,
    mailer,
    accounts,
    auth,
    phone,
    smsGuard,
    realName,
    uploads,
    apiKeys: core.apiKeys,
    usage: new UsageService({ db: db.kysely }),
    orders,
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
    realtimeSockets,
    modelInstalls: new ModelInstalls({
      db: db.kysely,
      modelsDir: config.MODELS_DIR,
      catalogue: () => loadCatalogue(config.MODELS_CATALOGUE),
      mirror: config.MODELS_MIRROR,
    }),
    // The second factor bound to PUBLIC_URL, on the operators' clock.
    factor: new SecondFactorService({
      db: db.kysely,
      secret,
      clock: core.operatorClock,
      limiter,
      audit,
      rp: { name: 'Polyvox', origins: [publicUrl.origin, ...config.ALLOWED_ORIGINS] },
      issuer: 'Polyvox',
    }),
    speechStats: new SpeechStatsRecorder(db.kysely),
  };
}

/** Closes what the API's services hold (the mail transport, installs under way), then the core's. */
export async function closeApiServices(ctx: AppContext): Promise<void> {
  ctx.mailer.close();
  await ctx.modelInstalls.drain();
  await closeCoreServices(ctx);
}
