/** Row types of every table. Times are ISO-8601 UTC strings; booleans are 0/1 in both dialects. */
export interface AccountsTable {
  id: string;
  email: string | null;
  name: string | null;
  avatar: string | null;
  mobile: string | null;
  referral_code: string;
  anonymous: number;
  vip_level: string;
  vip_expire: string | null;
  credits: number;
  /** The balance as the records show it: `credits` plus what open holds keep (changed by records only). */
  records_balance: number;
  /** When the account's last ledger entry was applied (ms): entries get strictly later times, in the order applied. */
  entry_ms: number;
  channel: string;
  referrer: string | null;
  created_at: string;
  updated_at: string;
  /** `active` or `disabled` (by an operator, migration 0016). */
  status?: string;
  disabled_at?: string | null;
  disabled_reason?: string | null;
}

export interface DevicesTable {
  id: string;
  account_id: string;
  udid: string;
  model: string;
  brand: string;
  os: string;
  created_at: string;
}

export interface SessionsTable {
  id_hash: string;
  account_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  user_agent: string | null;
}

export interface VerificationCodesTable {
  id: string;
  email: string;
  code_hash: string;
  attempts: number;
  /** Wrong tries from other addresses than the requester's. */
  foreign_attempts: number;
  /** The client address (IPv6: its /64) that asked for the code; null for codes from before 0004. */
  requester: string | null;
  created_at: string;
  expires_at: string;
  consumed_at: string | null;
}

export interface LedgerTable {
  id: string;
  account_id: string;
  kind: string;
  amount: number;
  balance_after: number;
  hold_id: string | null;
  record_type: string | null;
  characters: number | null;
  voice_id: string | null;
  api_key_id: string | null;
  order_id: string | null;
  note: string | null;
  /** On a settle entry: the credits the settled work cost (the hold minus what the settlement returned). */
  charge: number | null;
  created_at: string;
  /** The operator's reason on a grant or deduction (migration 0016), shown to the user with the record. */
  reason?: string | null;
}

export interface HoldsTable {
  id: string;
  account_id: string;
  amount: number;
  status: string;
  record_type: string;
  deadline: string;
  created_at: string;
  closed_at: string | null;
  api_key_id: string | null;
}

export interface GrantsTable {
  grant_key: string;
  account_id: string;
  amount: number;
  created_at: string;
}

export interface UploadsTable {
  id: string;
  account_id: string;
  type: string;
  mime: string;
  size: number;
  storage_key: string;
  created_at: string;
}

export interface SynthesisJobsTable {
  id: string;
  account_id: string;
  status: string;
  progress_done: number;
  progress_total: number;
  credits: number;
  characters: number;
  content_type: string;
  hold_id: string;
  storage_key: string | null;
  error_code: string | null;
  /** JSON of the error's message parameters. */
  error_params: string | null;
  created_at: string;
  finished_at: string | null;
  expires_at: string | null;
  /** The job's synthesis request and charge (synthesis/jobs/synthesis.ts, checked against its schema when read); null for jobs made before 0009. */
  request?: string | null;
  attempts?: number;
  /** The process running the job (embedded) or null while it waits. */
  owner?: string | null;
  heartbeat_at?: string | null;
  request_id?: string | null;
  /** The job's kind (migration 0027): `synthesis`, or `studio_convert` (its paragraphs hold their own; hold_id ''). */
  kind?: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** SHA-256 of the secret; the secret itself is never stored. */
  secret_hash: string;
  prefix: string;
  credit_limit: number | null;
  /** Credits spent through the key, held work included. */
  used: number;
  requests_per_minute: number;
  concurrency: number;
  /** JSON array of the voice ids the key may use; null: any. */
  voices: string | null;
  created_at: string;
  last_used_at: string | null;
  deleted_at: string | null;
}

export interface RecordDaysTable {
  account_id: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** The record type (`record_type`, else the entry's kind). */
  type: string;
  /** The key of the records, '' for none. */
  api_key_id: string;
  records: number;
  /** Settled charges among them. */
  calls: number;
  /** What those charges cost. */
  credits: number;
}

export interface ClientEventsTable {
  id: string;
  type: string;
  event: string;
  os: string;
  account_id: string | null;
  channel: string | null;
  detail: string | null;
  created_at: string;
}

export interface OrdersTable {
  id: string;
  account_id: string;
  product_id: string;
  product_kind: string;
  plan: string | null;
  vip_level: string | null;
  period_days: number | null;
  credits: number;
  /** Minor units of `currency`; the paid amount once successful. */
  amount: number;
  currency: string;
  /** JSON of the product's price in every currency when the order was made: `{"CNY": …, "USD": …}`. */
  prices: string;
  status: string;
  method: string | null;
  /** The provider's id of the payment that settled the order (transaction, session or trade number). */
  provider_ref: string | null;
  created_at: string;
  expires_at: string;
  paid_at: string | null;
  refunded_at: string | null;
  refund_credits: number | null;
  refund_amount: number | null;
  /** The provider's id of the refund that returned the money (null: nothing to return, or before 0008). */
  refund_ref: string | null;
  /** The currency refund_amount is in: the paying attempt's (Alipay and WeChat Pay take CNY for a USD order). */
  refund_currency: string | null;
  /** Set while a refund command has the order's money with the provider; cleared when it ends either way. */
  refund_claim: string | null;
  refund_claimed_at: string | null;
  updated_at: string;
}

/** One checkout started for an order: what that provider was asked to take, and where it returns. */
export interface PaymentsTable {
  id: string;
  order_id: string;
  method: string;
  amount: number;
  currency: string;
  return_url: string;
  provider_ref: string | null;
  /**
   * started; paid (it settled the order); closed (given up once another payment settled the order); failed;
   * duplicate (paid after another payment settled the order: return it).
   */
  status: string;
  paid_at: string | null;
  created_at: string;
  /** The provider's last word on the attempt (a verified notification or a query, 0018): paid, unpaid, closed … */
  provider_state: string | null;
  provider_checked_at: string | null;
}

export interface AccountCountersTable {
  account_id: string;
  /** `sample`, `preview`. */
  name: string;
  value: number;
}

export interface VoiceSamplesTable {
  id: string;
  account_id: string;
  /** 1, 2, … per account, in upload order. */
  idx: number;
  format: string;
  size: number;
  duration: number;
  sample_rate: number;
  /** JSON of the analysis' measures. */
  measures: string;
  noisy: number;
  storage_key: string;
  /** The uploader's consent to clone this voice: the account is the row's, with the time and client address. */
  consent_at: string;
  consent_ip: string;
  /** SHA-256 of the uploaded bytes (hex); null for samples uploaded before provenance records. */
  sha256: string | null;
  /** JSON of what marked the sample as made by this platform (watermark, AIGC label), or null when nothing did. */
  synthetic: string | null;
  created_at: string;
}

export interface VoicePreviewsTable {
  id: string;
  account_id: string;
  /** 1, 2, … per account; only the newest 50 are kept. */
  version: number;
  type: string;
  model: string;
  language: string;
  preview_text: string;
  prompt: string | null;
  file_id: string | null;
  /** What the clone sample says, as the user typed it (a zero-shot cloning model reads it). */
  transcript: string | null;
  /** The voice this version activated (set in the activation's transaction); such a version is never pruned. */
  voice_id: string | null;
  /** JSON of the mix entries. */
  mix: string | null;
  /** The engine voice the profile is applied to. */
  base_voice: string;
  /** JSON of the voice profile. */
  profile: string;
  gender: string;
  credits: number;
  duration: number;
  storage_key: string;
  created_at: string;
}

export interface OwnVoicesTable {
  id: string;
  account_id: string;
  name: string;
  type: string;
  model: string;
  gender: string;
  /** JSON array of BCP-47 tags. */
  languages: string;
  base_voice: string;
  profile: string;
  mix: string | null;
  prompt: string | null;
  file_id: string | null;
  /** What the clone sample says (copied from the activating preview). */
  transcript: string | null;
  preview_id: string | null;
  audio_key: string | null;
  status: string;
  created_at: string;
  updated_at: string;
  /** Set when the operator took the voice down after a report (migration 0023): then it answers 404 everywhere. */
  taken_down_at?: string | null;
}

/** A voice no clone sample may match (migration 0023). */
export interface ProtectedVoicesTable {
  id: string;
  name: string;
  /** public_figure, library, taken_down, other. */
  category: string;
  /** JSON of the sample's voiceprint (`@polyvox/speech` `voiceprint`). */
  voiceprint: string;
  /** The sample it was made from, kept for the operator (null when it came from a voice's own sample). */
  storage_key: string | null;
  source_voice_id: string | null;
  report_id: string | null;
  created_by: string;
  created_at: string;
}

/** A report of misuse (migration 0023). */
export interface MisuseReportsTable {
  id: string;
  /** new, in_review, actioned, rejected. */
  status: string;
  reason: string;
  details: string | null;
  contact: string;
  /** The reporter agreed to be contacted (the outcome is mailed only then). */
  consent: number;
  /** The reporter's language: the outcome mail is written in it. */
  locale: string;
  voice_id: string | null;
  url: string | null;
  file_key: string | null;
  file_sha256: string | null;
  /** JSON voiceprint of the reported audio, when it had enough speech. */
  file_voiceprint: string | null;
  /** JSON of the provenance check on the file: what it found and the records it is bound to. */
  provenance: string | null;
  /** The account the report points at (the voice's owner, or the account that made the file). */
  account_id: string | null;
  ip: string;
  /** JSON {action, note} of the last step taken. */
  outcome: string | null;
  handled_by: string | null;
  created_at: string;
  updated_at: string;
}

/** A piece of audio that left the platform, by the ProduceID in its AIGC label (see migration 0012). */
export interface ContentMarksTable {
  produce_id: string;
  /** The 32-bit watermark payload in its sound (content-derived: a cached replay carries its first rendering's). */
  payload: number | null;
  account_id: string | null;
  api_key_id: string | null;
  hold_id: string | null;
  request_id: string | null;
  record_type: string;
  voice_id: string;
  /** library, mix, designed or clone. */
  voice_kind: string;
  engine: string;
  format: string;
  /** For a clone: its sample, the sample's SHA-256 and when its uploader consented. */
  sample_id: string | null;
  sample_sha256: string | null;
  consent_at: string | null;
  created_at: string;
  /**
   * SHA-256 (hex) of the sound as it left (`AudioPayload`: the bytes without labels or manifests), which binds the
   * file's AIGC label to it; written with the row for a whole file, when a stream ends for a stream; null for raw
   * samples and for records older than migration 0014.
   */
  audio_sha256: string | null;
}

/** A pronunciation dictionary (see migration 0013): an account's, or the operator's shared one (`account_id` null). */
export interface PronunciationDictionariesTable {
  id: string;
  account_id: string | null;
  name: string;
  description: string | null;
  latest_version_id: string;
  latest_rules_num: number;
  /** 1: the account's default dictionary. */
  is_default: number;
  created_at: string;
  archived_at: string | null;
}

/** One version of a dictionary: its rules as JSON (the contract's rule shapes). */
export interface PronunciationVersionsTable {
  id: string;
  dictionary_id: string;
  rules: string;
  rules_num: number;
  created_at: string;
}

/** 0019: settings an operator changes while running, one versioned JSON document per name. */
/** Text messages the service sent on a UTC day (migration 0021): the daily cap's counter. */
export interface PhoneSmsDaysTable {
  day: string;
  sent: number;
}

/** A fixed window of a rate limit kept in the database (migration 0024). */
export interface RateWindowsTable {
  key: string;
  start_ms: number | string;
  window_ms: number | string;
  count: number;
}

/** An official library voice taken down after a report (migration 0024). */
export interface VoiceTakedownsTable {
  voice_id: string;
  report_id: string | null;
  taken_down_by: string;
  taken_down_at: string;
}

/** A cloned voice its owner deleted, kept with its sample and consent for the operator (migration 0024). */
export interface RetainedVoicesTable {
  id: string;
  account_id: string;
  name: string;
  type: string;
  model: string;
  created_at: string;
  deleted_at: string;
  sample_id: string;
  sample_key: string;
  sample_format: string;
  sample_size: number | string;
  sample_duration: number;
  sample_sha256: string | null;
  sample_created_at: string;
  consent_at: string;
  consent_ip: string;
}

export interface RuntimeSettingsTable {
  name: string;
  value: string;
  version: number;
  updated_at: string;
  updated_by: string | null;
}

/** 0019: remote speech providers added in the console; the key sealed with the server secret. */
export interface RemoteProvidersTable {
  id: string;
  kind: string;
  name: string;
  url: string;
  model: string | null;
  key_sealed: string;
  key_hint: string;
  enabled: number;
  last_test_at: string | null;
  last_test_ok: number | null;
  last_test_message: string | null;
  created_at: string;
  updated_at: string;
}

/** 0020: the speech routes' answers per UTC hour (`2030-01-01T13`), summed over every process. */
export interface SpeechRouteHoursTable {
  hour: string;
  requests: number;
  client_errors: number;
  server_errors: number;
  lat_0: number;
  lat_1: number;
  lat_2: number;
  lat_3: number;
  lat_4: number;
  lat_5: number;
  lat_6: number;
  lat_7: number;
  lat_8: number;
  lat_9: number;
  lat_10: number;
  lat_11: number;
  lat_12: number;
}

/** 0019: model installs started from the console, with their progress. */
export interface ModelInstallsTable {
  id: string;
  model: string;
  status: string;
  bytes_done: number;
  bytes_total: number;
  error: string | null;
  started_by: string;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface OperatorsTable {
  account_id: string;
  role: string;
  created_at: string;
  /** The operator who named this one; null when the command line did. */
  created_by: string | null;
}

export interface OperatorTotpTable {
  account_id: string;
  /** The TOTP secret sealed with the server secret (platform/crypto.ts `seal`). */
  secret_sealed: string;
  confirmed_at: string | null;
  /** The last TOTP time step accepted: a code is accepted once. */
  last_step: number;
  created_at: string;
}

export interface OperatorRecoveryCodesTable {
  id: string;
  account_id: string;
  code_hash: string;
  active: number;
  used_at: string | null;
  created_at: string;
}

export interface OperatorPasskeysTable {
  /** The credential id (base64url). */
  id: string;
  account_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  counter: number;
  transports: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface OperatorChallengesTable {
  session_hash: string;
  kind: string;
  challenge: string;
  expires_at: string;
}

export interface OperatorElevationsTable {
  session_hash: string;
  account_id: string;
  method: string;
  passed_at: string;
  expires_at: string;
  ended_at: string | null;
}

/** The audit trail: append-only (the database's triggers refuse UPDATE and DELETE). */
export interface AuditLogTable {
  id: string;
  at: string;
  operator_id: string;
  operator_role: string;
  action: string;
  target_type: string;
  target_id: string;
  before: string | null;
  after: string | null;
  reason: string | null;
  request_id: string;
  ip: string;
}

/** 0017: the products on sale (seeded from products.json, edited by operators). */
export interface CatalogProductsTable {
  id: string;
  kind: string;
  plan: string | null;
  vip_level: string | null;
  rank: number;
  credits: number;
  period_days: number | null;
  price_cny: number;
  price_usd: number;
  /** JSON: {max_text_length, own_voices, api_access}. */
  privileges: string;
  /** JSON: {en, zh-CN, zh-TW}. */
  name: string;
  description: string;
  hidden: number;
  /** 0020: retired (deleted from sale); orders keep naming it. */
  retired_at: string | null;
  position: number;
  updated_at: string;
  updated_by: string | null;
}

/** 0017: one row (id 1): the catalogue's version, bumped by every edit, and the basic plan. */
export interface CatalogStateTable {
  id: number;
  version: number;
  basic_plan: string;
  updated_at: string;
}

export interface CodeBatchesTable {
  id: string;
  name: string;
  /** credits | plan */
  kind: string;
  credits: number;
  product_id: string | null;
  plan: string | null;
  vip_level: string | null;
  period_days: number | null;
  count: number;
  uses_per_code: number;
  prefix: string;
  expires_at: string | null;
  revoked_at: string | null;
  revoked_by: string | null;
  created_at: string;
  created_by: string;
}

export interface RedemptionCodesTable {
  id: string;
  batch_id: string;
  /** SHA-256 of the normalised code (unique). */
  code_hash: string;
  /** The code, AES-256-GCM with a key derived from the server secret (for the CSV export). */
  code_cipher: string;
  /** The code with all but its prefix and last four characters masked. */
  code_hint: string;
  uses: number;
  max_uses: number;
  position: number;
  created_at: string;
}

export interface CodeRedemptionsTable {
  id: string;
  code_id: string;
  batch_id: string;
  account_id: string;
  credits: number;
  plan: string | null;
  created_at: string;
}

/** A payment notification received, or a provider's answer when asked about a payment (0018). */
export interface OrderEventsTable {
  id: string;
  /** Null when the notification could not be tied to an order (a forged or unknown one). */
  order_id: string | null;
  payment_id: string | null;
  method: string;
  /** notification | query | sandbox */
  kind: string;
  /** verified | forged: whether the signature (or the answer's) checked out */
  verification: string;
  /** applied | already | duplicate | failed | ignored | rejected | unknown_payment | error | consistent | settled */
  outcome: string;
  /** What the provider says of the payment: paid | unpaid | closed | refunded | failed */
  provider_state: string | null;
  amount: number | null;
  currency: string | null;
  provider_ref: string | null;
  /** JSON: why it was rejected, what differed. */
  detail: string | null;
  /** The operator who asked the provider (a re-query). */
  operator_id: string | null;
  created_at: string;
}

/** 发票 requests (0018). */
export interface InvoiceRequestsTable {
  id: string;
  order_id: string;
  account_id: string;
  /** normal (普通发票) | special (专用发票) */
  type: string;
  title: string;
  tax_number: string | null;
  email: string;
  locale: string;
  /** requested | issued | rejected */
  status: string;
  file_key: string | null;
  invoice_number: string | null;
  note: string | null;
  handled_by: string | null;
  handled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** 0022: the operator's own moderation list. */
export interface ModerationTermsTable {
  id: string;
  term: string;
  category: string;
  created_at: string;
  created_by: string | null;
}

/** 0022: texts refused before synthesis, kept for the operator's retention period. */
export interface ModerationHitsTable {
  id: string;
  account_id: string | null;
  route: string;
  /** `synthesis` or `design` (cloning and designing). */
  purpose: string;
  /** `words` (the built-in lists), `operator` (the operator's list) or the provider's name. */
  source: string;
  category: string;
  text: string;
  created_at: string;
}

export interface Database {
  operators: OperatorsTable;
  operator_totp: OperatorTotpTable;
  operator_recovery_codes: OperatorRecoveryCodesTable;
  operator_passkeys: OperatorPasskeysTable;
  operator_challenges: OperatorChallengesTable;
  operator_elevations: OperatorElevationsTable;
  audit_log: AuditLogTable;
  accounts: AccountsTable;
  devices: DevicesTable;
  sessions: SessionsTable;
  verification_codes: VerificationCodesTable;
  credit_ledger: LedgerTable;
  credit_holds: HoldsTable;
  credit_grants: GrantsTable;
  uploads: UploadsTable;
  synthesis_jobs: SynthesisJobsTable;
  api_keys: ApiKeysTable;
  record_days: RecordDaysTable;
  client_events: ClientEventsTable;
  orders: OrdersTable;
  payments: PaymentsTable;
  account_counters: AccountCountersTable;
  voice_samples: VoiceSamplesTable;
  voice_previews: VoicePreviewsTable;
  own_voices: OwnVoicesTable;
  protected_voices: ProtectedVoicesTable;
  misuse_reports: MisuseReportsTable;
  content_marks: ContentMarksTable;
  pronunciation_dictionaries: PronunciationDictionariesTable;
  pronunciation_versions: PronunciationVersionsTable;
  runtime_settings: RuntimeSettingsTable;
  remote_providers: RemoteProvidersTable;
  model_installs: ModelInstallsTable;
  catalog_products: CatalogProductsTable;
  catalog_state: CatalogStateTable;
  code_batches: CodeBatchesTable;
  redemption_codes: RedemptionCodesTable;
  code_redemptions: CodeRedemptionsTable;
  order_events: OrderEventsTable;
  invoice_requests: InvoiceRequestsTable;
  moderation_terms: ModerationTermsTable;
  moderation_hits: ModerationHitsTable;
  phone_sms_days: PhoneSmsDaysTable;
  rate_windows: RateWindowsTable;
  voice_takedowns: VoiceTakedownsTable;
  retained_voices: RetainedVoicesTable;
  speech_route_hours: SpeechRouteHoursTable;
  studio_projects: StudioProjectsTable;
  studio_chapters: StudioChaptersTable;
  studio_paragraphs: StudioParagraphsTable;
  history_items: HistoryItemsTable;
  studio_snapshots: StudioSnapshotsTable;
}

/** A generation that delivered audio (migration 0029), kept HISTORY_RETENTION_DAYS with its stored audio. */
export interface HistoryItemsTable {
  id: string;
  account_id: string;
  api_key_id: string | null;
  request_id: string | null;
  hold_id: string | null;
  /** The route it came by (`POST /v1/text-to-speech/{voice_id}/stream`). */
  route: string;
  /** ElevenLabs' `source` (TTS for every speech route). */
  source: string;
  text: string;
  voice_id: string | null;
  voice_name: string | null;
  voice_category: string | null;
  model_id: string | null;
  /** JSON: the request's settings (format, speed, pitch, voice settings …). */
  settings: string;
  /** JSON `[{text, voice_id, voice_name}]` for a dialogue, else null. */
  dialogue: string | null;
  output_format: string;
  content_type: string;
  characters: number;
  /** The credits charged (the settle entry's charge). */
  credits: number;
  balance_before: number | null;
  balance_after: number | null;
  /** The stored audio (`history/<id>`); null once it is gone. */
  audio_key: string | null;
  audio_bytes: number;
  created_at: string;
}

/** A Studio project (migration 0026): its owner, metadata, default voices and model, speakers' voices. */
export interface StudioProjectsTable {
  id: string;
  account_id: string;
  name: string;
  title: string | null;
  author: string | null;
  description: string | null;
  language: string | null;
  /** The cover image in storage, and its media type. */
  cover_key: string | null;
  cover_type: string | null;
  /** blank (pasted text) or book (a document). */
  source_type: string;
  default_title_voice_id: string;
  default_paragraph_voice_id: string;
  default_model_id: string;
  apply_text_normalization: string;
  /** JSON [{pronunciation_dictionary_id, version_id?}]. */
  pronunciation_locators: string;
  default_speaker: string;
  /** JSON [{name, voice_id|null}], in the order the speakers were found. */
  speakers: string;
  created_at: string;
  updated_at: string;
}

export interface StudioChaptersTable {
  id: string;
  project_id: string;
  position: number;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface StudioParagraphsTable {
  id: string;
  project_id: string;
  chapter_id: string;
  position: number;
  text: string;
  speaker: string;
  /** The paragraph's own voice, over its speaker's. */
  voice_id: string | null;
  pause_after_ms: number;
  content_hash: string;
  converted_hash: string | null;
  updated_at: string;
  /** Its audio in storage (a WAV), length, sample rate and words (JSON [{text,start,end}] seconds): migration 0027. */
  audio_key?: string | null;
  audio_ms?: number | null;
  sample_rate?: number | null;
  words?: string | null;
  /** JSON of a conversion's open charge (studio/convert.ts): closed when the job runs again. */
  pending_charge?: string | null;
  /** JSON {code, params, hash} of its last failed conversion (migration 0031); null once it converts. */
  conversion_error?: string | null;
}

/** A snapshot of a finished conversion (migration 0027): the project's (chapter_id null) or a chapter's. */
export interface StudioSnapshotsTable {
  id: string;
  project_id: string;
  chapter_id: string | null;
  name: string;
  created_at: string;
  /** JSON of a SnapshotManifest (studio/snapshot.ts). */
  manifest: string;
}
