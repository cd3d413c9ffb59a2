import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db/database.js';
import type { Mailer } from '../platform/mail.js';
import type { Storage } from '../platform/storage.js';
import type { AccountsService } from '../accounts/service.js';
import type { AuthService } from '../auth/service.js';
import type { PhoneAuthService } from '../auth/phone.js';
import type { SmsGuard } from '../auth/sms-guard.js';
import type { RealNameGate } from '../accounts/real-name.js';
import type { SessionService } from '../sessions/sessions.js';
import type { CreditsService } from '../credits/service.js';
import type { UploadsService } from '../uploads/service.js';
import type { SpeechHost } from '../speech/speech-host.js';
import type { SynthesisService } from '../synthesis/service.js';
import type { VoicesService } from '../voices/service.js';
import type { SynthesisJobs } from '../synthesis/jobs/service.js';
import type { HistoryService } from '../history/service.js';
import type { StudioConversion } from '../studio/convert.js';
import type { QueueSettings, QueuedSynthesizer } from '../synthesis/queue/synthesizer.js';
import type { QueueProbe } from '../synthesis/queue/redis.js';
import type { BullMqJobProvider } from '../synthesis/queue/bullmq-jobs.js';
import type { ApiKeysService } from '../api-keys/service.js';
import type { UsageService } from '../usage/service.js';
import type { KeyGate } from '../http/auth.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { OrdersService } from '../orders/service.js';
import type { PaymentsService } from '../payments/service.js';
import type { CodesService } from '../codes/service.js';
import type { CatalogueStore } from '../orders/catalogue-store.js';
import type { InvoicesService } from '../invoices/service.js';
import type { EventStore } from '../stats/store.js';
import type { SamplesService } from '../design/samples.js';
import type { PreviewsService } from '../design/previews.js';
import type { OwnVoicesService } from '../design/own-voices.js';
import type { Readiness } from '../platform/health.js';
import type { SharedAudioCache } from '../synthesis/shared-cache.js';
import type { PlanPrivileges } from '../orders/privileges.js';
import type { SensitiveWordsReload } from '../platform/sensitive-words.js';
import type { Provenance } from '../provenance/service.js';
import type { PronunciationService } from '../pronunciation/service.js';
import type { Broadcast } from '../platform/broadcast.js';
import type { AccountSockets } from '../synthesis/realtime/account-sockets.js';
import type { OperatorSettingsStore } from '../platform/settings.js';
import type { ProviderSync, ProvidersService } from '../providers/service.js';
import type { ModelInstalls } from '../models/installs.js';
import type { AuditTrail } from '../audit/trail.js';
import type { ModerationService } from '../moderation/service.js';
import type { ProtectedVoices } from '../protected-voices/service.js';
import type { WithheldVoices } from '../voices/withheld.js';
import type { OperatorsService } from '../operators/service.js';
import type { SecondFactorService } from '../operators/factor.js';
import type { SpeechStatsRecorder } from '../overview/speech-stats.js';

/** What every role builds, a synthesis worker no more (composition/core-services.ts). */
export interface WorkerContext {
  config: Config;
  db: Db;
  storage: Storage;
  sessions: SessionService;
  credits: CreditsService;
  redis: Redis | null;
  speech: SpeechHost;
  voices: VoicesService;
  synthesis: SynthesisService;
  jobs: SynthesisJobs;
  /** Every generation that delivered audio, for its owner (ElevenLabs' history routes, the console's History). */
  history: HistoryService;
  /** Studio conversions (durable jobs, a hold per paragraph), their price, snapshots and paragraphs' audio. */
  studio: StudioConversion;
  /** Scale-out (ROLE=api, worker): the queue settings and, in an API process, its ends of the queues. */
  queues: {
    settings: QueueSettings | null;
    remote: QueuedSynthesizer | null;
    jobs: BullMqJobProvider | null;
    probe: QueueProbe | null;
  };
  /** API keys with their per-minute and concurrency limits, for the public API routes. */
  keyGate: KeyGate;
  limiter: RateLimiter;
  /** The catalogue (products and plans) as operators last edited it. */
  products: CatalogueStore;
  /** What `/readyz` checks; the queue module adds its queue. */
  readiness: Readiness;
  /** The synthesis cache shared through Redis and storage, when REDIS_URL is set. */
  audioCache: SharedAudioCache | null;
  /** The privileges of each account's current plan (text length, own voices, API access). */
  plans: PlanPrivileges;
  /** Where a failed reload of the sensitive-word lists is reported, once the app's logger is there. */
  wordsReload: SensitiveWordsReload;
  /** Records and labels every file that leaves (AIGC field, C2PA manifest); checks files for the public. */
  provenance: Provenance;
  /** Pronunciation dictionaries (ElevenLabs' routes) and the rules a synthesis request applies. */
  pronunciation: PronunciationService;
  /** Tells every process of the deployment that something happened (Redis pub/sub, or this process alone). */
  broadcast: Broadcast;
  /** The settings an operator changes while running (trial credits, limits, the AI label, sign-up), read through a cache. */
  settings: OperatorSettingsStore;
  /** Remote providers added in the console, and what keeps this process's engines on those in force. */
  providers: ProvidersService;
  providerSync: ProviderSync;
  /** The moderation step of every text to speak, the operator's list and the refused texts. */
  moderation: ModerationService;
  /** The append-only audit trail every operator action writes to. */
  audit: AuditTrail;
  /** Operators and their roles (also the resolver of the `operator` auth rule). */
  operators: OperatorsService;
  /** Voices no clone sample may match (public figures, the library's speakers, voices taken down). */
  protectedVoices: ProtectedVoices;
  /** The official voices taken down after a report, left out of the library (forgotten here after a takedown). */
  withheldVoices: WithheldVoices;
}

/** Every service and resource of a process that serves the API (ROLE=all, api; composition/api-services.ts). */
export interface AppContext extends WorkerContext {
  mailer: Mailer;
  accounts: AccountsService;
  auth: AuthService;
  phone: PhoneAuthService;
  smsGuard: SmsGuard;
  realName: RealNameGate;
  uploads: UploadsService;
  apiKeys: ApiKeysService;
  usage: UsageService;
  orders: OrdersService;
  /** Redemption codes: batches, redemptions. */
  codes: CodesService;
  payments: PaymentsService;
  /** Receipts of paid orders and 发票 requests. */
  invoices: InvoicesService;
  events: EventStore;
  design: { samples: SamplesService; previews: PreviewsService; ownVoices: OwnVoicesService };
  /** The realtime sockets open here, by account (a disabled account's are closed). */
  realtimeSockets: AccountSockets;
  /** Models installed and removed from the console, in the background. */
  modelInstalls: ModelInstalls;
  /** The operators' second factor: TOTP, recovery codes, passkeys, the 12-hour elevation. */
  factor: SecondFactorService;
  /** The speech routes' answers of this process, added to the hourly counts every process shares. */
  speechStats: SpeechStatsRecorder;
}

/** A process's HTTP app and everything it was built from: the API's whole context, or a worker's. */
export type BuiltApp =
  { role: 'all' | 'api'; app: FastifyInstance; ctx: AppContext } | { role: 'worker'; app: FastifyInstance; ctx: WorkerContext };
