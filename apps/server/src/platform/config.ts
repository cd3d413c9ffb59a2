import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { repoRoot } from './paths.js';
import { parseS3Url } from './s3-url.js';

/** Every setting the server reads; nothing else looks at process.env. */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  MAIL_URL: z
    .string()
    .regex(/^(file|smtps?):\/\//, 'must start with file://, smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().default('Polyvox <no-reply@polyvox.local>'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  REDIS_PREFIX: z.string().min(1).default('polyvox:'),
  SYNTHESIS_CACHE_SECONDS: z.coerce.number().int().min(0).max(604_800).default(3600),
  /** A realtime socket whose client leaves more than this unread (bytes waiting to be sent) is closed. */
  REALTIME_MAX_UNSENT_BYTES: z.coerce.number().int().min(65_536).max(1_073_741_824).default(4_194_304),
  /** A realtime socket whose next message cannot be written for this long (its client stopped reading) is closed. */
  REALTIME_SEND_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  S3_URL: z
    .string()
    .superRefine((value, ctx) => {
      try {
        parseS3Url(value);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
      }
    })
    .optional(),
  /** Folder of neural voice models; unset: `models` in DATA_DIR (where `npm run models -- add` installs by default). */
  MODELS_DIR: z.string().optional(),
  /** Base URL `npm run models -- add` downloads from, in place of the official releases (a mirror keeps their paths). */
  MODELS_MIRROR: z.string().url().optional(),
  /** The model catalogue the console installs from (default: apps/server/content/models-catalogue.json). */
  MODELS_CATALOGUE: z.string().optional(),
  SPEECH_WORKERS: z.coerce.number().int().min(1).max(64).optional(),
  SPEECH_INTERACTIVE_LANE: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  SPEECH_WARMUP: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  PREVIEW_PRERENDER: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  OPENAI_TTS_URL: z.string().url().optional(),
  OPENAI_TTS_KEY: z.string().optional(),
  OPENAI_TTS_MODEL: z.string().optional(),
  ELEVENLABS_URL: z.string().url().optional(),
  ELEVENLABS_KEY: z.string().optional(),
  PUBLIC_URL: z
    .string()
    .url()
    .refine((v) => /^https?:\/\//i.test(v), 'must be an http:// or https:// URL')
    .optional(),
  ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const origins: string[] = [];
      for (const item of v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        let url: URL | null = null;
        try {
          url = new URL(item);
        } catch {
          url = null;
        }
        if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== item.replace(/\/+$/, '')) {
          ctx.addIssue({ code: 'custom', message: `${JSON.stringify(item)} is not an origin (scheme://host[:port])` });
          return z.NEVER;
        }
        origins.push(url.origin);
      }
      return origins;
    }),
  WEB_DIST: z.string().optional(),
  GUIDE_DIST: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  CREDITS_CONFIG: z.string().optional(),
  SENSITIVE_WORDS_FILES: z
    .string()
    .refine((v) => v.split(',').some((f) => f.trim()), 'must name at least one file')
    .optional(),
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  CODE_LIMIT_PER_IP_HOUR: z.coerce.number().int().min(1).default(30),
  CODE_LIMIT_PER_EMAIL_DAY: z.coerce.number().int().min(1).default(20),
  SIGN_IN_LIMIT_PER_IP_MINUTE: z.coerce.number().int().min(1).default(30),
  CODE_LIMIT_PER_ACCOUNT_HOUR: z.coerce.number().int().min(1).default(20),
  CODE_LIMIT_PER_EMAIL_ALL_DAY: z.coerce.number().int().min(1).default(100),
  EXISTS_LIMIT_PER_IP_MINUTE: z.coerce.number().int().min(1).default(30),
  ACCOUNT_LIMIT_PER_IP_HOUR: z.coerce.number().int().min(1).default(30),
  TRIAL_GRANTS_PER_IP_DAY: z.coerce.number().int().min(0).default(10),
  PLAN_GRANTS_PER_IP_DAY: z.coerce.number().int().min(0).default(5),
  PRODUCTS_CONFIG: z.string().optional(),
  ORDER_TTL_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
  /** How long a process trusts its copy of the catalogue before it looks at the stored version again. */
  CATALOG_REFRESH_SECONDS: z.coerce.number().min(0).max(300).default(2),
  /** Redemption attempts (right or wrong) per account and per client address per hour: guessing is this slow. */
  REDEEM_PER_ACCOUNT_HOUR: z.coerce.number().int().min(1).max(100_000).default(20),
  REDEEM_PER_IP_HOUR: z.coerce.number().int().min(1).max(100_000).default(60),
  ORDER_PENDING_LIMIT: z.coerce.number().int().min(1).default(20),
  ORDER_SWEEP_SECONDS: z.coerce.number().int().min(1).default(60),
  PAYMENT_SANDBOX: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  STRIPE_API_BASE: z.string().url().optional(),
  ALIPAY_APP_ID: z.string().optional(),
  ALIPAY_PRIVATE_KEY: z.string().optional(),
  ALIPAY_PUBLIC_KEY: z.string().optional(),
  ALIPAY_GATEWAY: z.string().url().optional(),
  WECHAT_MCH_ID: z.string().optional(),
  WECHAT_APP_ID: z.string().optional(),
  WECHAT_API_V3_KEY: z.string().length(32, 'must be the 32-character APIv3 key').optional(),
  WECHAT_PRIVATE_KEY: z.string().optional(),
  WECHAT_SERIAL_NO: z.string().optional(),
  WECHAT_PLATFORM_CERT: z.string().optional(),
  WECHAT_API_BASE: z.string().url().optional(),
  SAMPLE_UPLOADS_PER_ACCOUNT_HOUR: z.coerce.number().int().min(1).default(30),
  AVATAR_UPLOADS_PER_ACCOUNT_HOUR: z.coerce.number().int().min(1).default(10),
  AVATAR_UPLOADS_PER_IP_HOUR: z.coerce.number().int().min(1).default(30),
  AVATAR_KEEP_HOURS: z.coerce.number().min(0).max(720).default(24),
  HOLD_SWEEP_SECONDS: z.coerce.number().int().min(1).default(60),
  STATS_EVENTS_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  STATS_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  STATS_MAX_EVENTS: z.coerce.number().int().min(1).default(1_000_000),
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(3600).default(30),
  HEADERS_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(3600).default(10),
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(600).default(5),
  ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_.-]+$/, 'letters, digits, "_", "." and "-" only')
    .default('polyvox-queue'),
  QUEUE_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  QUEUE_STALLED_SECONDS: z.coerce.number().min(0.5).max(3600).default(30),
  QUEUE_WAIT_SECONDS: z.coerce.number().min(0.5).max(3600).default(60),
  QUEUE_HEARTBEAT_SECONDS: z.coerce.number().min(0.3).max(600).default(3),
  JOB_STALE_SECONDS: z.coerce.number().min(1).max(3600).default(30),
  JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  JOB_KEEP_MINUTES: z.coerce
    .number()
    .min(1)
    .max(30 * 24 * 60)
    .default(60),
  /** GB 45438-2025 `ContentProducer`: the operator's name or filing code, written into every file's AIGC label. */
  AIGC_CONTENT_PRODUCER: z.string().min(1).max(200).default('Polyvox'),
  /** The seller named on receipts: its name, tax number (统一社会信用代码 or VAT id), address and contact. */
  RECEIPT_ISSUER_NAME: z.string().min(1).max(200).default('Polyvox'),
  RECEIPT_ISSUER_TAX_ID: z.string().max(64).default(''),
  RECEIPT_ISSUER_ADDRESS: z.string().max(300).default(''),
  RECEIPT_ISSUER_EMAIL: z.string().max(200).default(''),
  /**
   * A font with Chinese glyphs for receipts (an OpenType/TrueType file or a .ttc collection); unset: the Noto CJK
   * fonts of Debian's fonts-noto-cjk when installed. Without one, receipts are written in English (docs/receipts.md).
   */
  RECEIPT_FONT: z.string().max(1000).default(''),
  /** GB 45438-2025 `ContentPropagator`: who distributes the files (empty: the same operator serves them). */
  AIGC_CONTENT_PROPAGATOR: z.string().max(200).default(''),
  /** The explicit, audible label: none, the standard's rhythm cue, or a spoken notice; and where it goes. */
  AI_LABEL_EXPLICIT: z.enum(['off', 'rhythm', 'speech']).default('off'),
  AI_LABEL_POSITION: z.enum(['start', 'end']).default('start'),
  /** An operator's C2PA signing certificate chain and key (PEM); without them the server makes its own in DATA_DIR. */
  C2PA_CERT_FILE: z.string().optional(),
  C2PA_KEY_FILE: z.string().optional(),
  /** Checks of audio by anyone (POST /provenance/verify) per client address per minute. */
  VERIFY_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(10),
  /** Reports of misuse (POST /reports) per client address per hour. */
  REPORTS_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(5),
  /**
   * Where text messages go: `file://<dir>` (default `<DATA_DIR>/sms`, one file per message), `alibaba://`, `tencent://`
   * or `twilio://` with the provider's keys (docs/phone.md).
   */
  SMS_URL: z
    .string()
    .regex(/^(file|alibaba|tencent|twilio):\/\//, 'must start with file://, alibaba://, tencent:// or twilio://')
    .optional(),
  /** The regions (ISO 3166, comma-separated) whose numbers may receive codes; `*` every region. Changed in the console too. */
  SMS_COUNTRIES: z
    .string()
    .regex(/^(\*|[A-Za-z]{2}(,[A-Za-z]{2})*)$/, 'must be * or ISO 3166 region codes separated by commas (CN,HK,US)')
    .default('*'),
  /** Text messages sent per client address per hour, per account per hour, per number and address per day, per number per day. */
  SMS_LIMIT_PER_IP_HOUR: z.coerce.number().int().min(1).max(100_000).default(10),
  SMS_LIMIT_PER_ACCOUNT_HOUR: z.coerce.number().int().min(1).max(100_000).default(5),
  SMS_LIMIT_PER_NUMBER_DAY: z.coerce.number().int().min(1).max(100_000).default(5),
  SMS_LIMIT_PER_NUMBER_ALL_DAY: z.coerce.number().int().min(1).max(100_000).default(10),
  /** Text messages the whole service sends per UTC day, counted in the database across every process. */
  SMS_DAILY_CAP: z.coerce.number().int().min(0).max(100_000_000).default(5000),
  /** Codes an address may ask for per day before each further one needs a solved proof-of-work challenge. */
  SMS_FREE_PER_IP_DAY: z.coerce.number().int().min(0).max(100_000).default(2),
  /** The proof-of-work's work: leading zero hex digits of the SHA-256 the browser must find (4: about 65,000 tries). */
  SMS_POW_DIFFICULTY: z.coerce.number().int().min(1).max(6).default(4),
  /** `phone`: cloning, designing voices, API keys and buying need a verified phone number (real-name markets). */
  REAL_NAME: z.enum(['off', 'phone']).default('off'),
  /** Whether an email nobody owns yet may sign up (false: only existing accounts sign in). Changed in the console too. */
  SIGNUP_OPEN: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** The external moderation provider every text to speak is also sent to (docs/moderation.md); none: the lists alone. */
  MODERATION_PROVIDER: z.enum(['none', 'aliyun', 'openai']).default('none'),
  /** The provider's endpoint (Alibaba Cloud: its regional green-cip host; OpenAI: the API base ending in /v1). */
  MODERATION_URL: z.string().url().optional(),
  /** Alibaba Cloud's AccessKey ID (OpenAI needs none). */
  MODERATION_KEY_ID: z.string().optional(),
  /** Alibaba Cloud's AccessKey secret, or OpenAI's API key. */
  MODERATION_KEY: z.string().optional(),
  /** How long the provider has to answer before its fail mode applies (ms). */
  MODERATION_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(2000),
  /** Days a refused text is kept for the operator (then swept). Changed in the console too. */
  MODERATION_KEEP_DAYS: z.coerce.number().int().min(1).max(3650).default(180),
  /** Days the sample and consent record of a cloned voice its owner deleted are kept for the operator. */
  VOICE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
  /** Days each generation (its text, settings, price and audio) stays in its owner's history, then swept. */
  HISTORY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** A provider that does not answer in time: plain synthesis goes on (open, logged) or is refused (closed). */
  MODERATION_FAIL_SYNTHESIS: z.enum(['open', 'closed']).default('open'),
  /** The same for cloning and designing voices (prompts, transcripts, preview texts). */
  MODERATION_FAIL_DESIGN: z.enum(['open', 'closed']).default('closed'),
});

export type RawConfig = z.infer<typeof ConfigSchema>;
export interface Config extends Omit<RawConfig, 'SENSITIVE_WORDS_FILES' | 'MODELS_DIR'> {
  DATA_DIR: string;
  MODELS_DIR: string;
  MAIL_URL: string;
  SMS_URL: string;
  PUBLIC_URL: string;
  WEB_DIST: string;
  /** The documentation site's build (docs/site/dist), served at /guide/. */
  GUIDE_DIST: string;
  CREDITS_CONFIG: string;
  PRODUCTS_CONFIG: string;
  SENSITIVE_WORDS_FILES: string[];
}

export class ConfigError extends Error {}

/** Where models live when MODELS_DIR is unset: the server reads them there, `npm run models` installs them there. */
export function defaultModelsDir(dataDir: string): string {
  return path.join(dataDir, 'models');
}

const SECRET_SETTINGS = new Set([
  'SECRET',
  'OPENAI_TTS_KEY',
  'ELEVENLABS_KEY',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'ALIPAY_PRIVATE_KEY',
  'WECHAT_API_V3_KEY',
  'WECHAT_PRIVATE_KEY',
  'MODERATION_KEY',
]);

/** A rejected value as the error shows it: secrets hidden, passwords in URLs masked. */
function shown(name: string, value: string): string {
  if (SECRET_SETTINGS.has(name)) return '"<hidden>"';
  return JSON.stringify(value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, '$1***@'));
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(ConfigSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const parsed = ConfigSchema.safeParse(picked);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (issue) =>
        `  ${issue.path.join('.') || '(root)'}=${shown(String(issue.path[0]), picked[String(issue.path[0])] ?? '')}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const raw = parsed.data;
  if (raw.MODERATION_PROVIDER !== 'none' && !raw.MODERATION_KEY) {
    throw new ConfigError(`Invalid configuration:\n  MODERATION_PROVIDER=${raw.MODERATION_PROVIDER}: needs MODERATION_KEY`);
  }
  if (raw.MODERATION_PROVIDER === 'aliyun' && !raw.MODERATION_KEY_ID) {
    throw new ConfigError('Invalid configuration:\n  MODERATION_PROVIDER=aliyun: needs MODERATION_KEY_ID');
  }
  if (raw.ROLE !== 'all' && !raw.REDIS_URL) {
    throw new ConfigError(`Invalid configuration:\n  ROLE=${JSON.stringify(raw.ROLE)}: needs REDIS_URL (its queues)`);
  }
  const dataDir = path.resolve(raw.DATA_DIR);
  return {
    ...raw,
    DATA_DIR: dataDir,
    // pathToFileURL escapes '#', '?' and '%', which would otherwise cut the path short.
    MAIL_URL: raw.MAIL_URL ?? pathToFileURL(path.join(dataDir, 'outbox')).href,
    SMS_URL: raw.SMS_URL ?? pathToFileURL(path.join(dataDir, 'sms')).href,
    MODELS_DIR: path.resolve(raw.MODELS_DIR || defaultModelsDir(dataDir)),
    PUBLIC_URL: raw.PUBLIC_URL ?? `http://${raw.HOST.includes(':') ? `[${raw.HOST}]` : raw.HOST}:${raw.PORT}`,
    WEB_DIST: path.resolve(raw.WEB_DIST ?? path.join(repoRoot, 'apps/web/dist')),
    GUIDE_DIST: path.resolve(raw.GUIDE_DIST ?? path.join(repoRoot, 'docs/site/dist')),
    CREDITS_CONFIG: path.resolve(raw.CREDITS_CONFIG ?? path.join(repoRoot, 'apps/server/config/credits.json')),
    PRODUCTS_CONFIG: path.resolve(raw.PRODUCTS_CONFIG ?? path.join(repoRoot, 'apps/server/config/products.json')),
    // The shipped lists: the platform's own (profanity, impersonation, political terms) and LDNOOBW's, imported
    // by `npm run words:import` (refused in names only).
    SENSITIVE_WORDS_FILES: (
      raw.SENSITIVE_WORDS_FILES ??
      ['sensitive-words.txt', 'sensitive-words-ldnoobw.txt'].map((f) => path.join(repoRoot, 'apps/server/config', f)).join(',')
    )
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean)
      .map((f) => path.resolve(f)),
  };
}
