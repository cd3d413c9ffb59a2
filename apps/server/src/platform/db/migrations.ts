import { PostgresAdapter, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

/** Migration 0007 fills the daily record counts from the ledger (the benchmark seeds them the same way). */
/**
 * Fills `record_days` from the ledger: every record (settled work, activation fees, grants, purchases, refunds) counted
 * under its type; `calls` are the calls made with an API key; `credits` what was charged (settlements and fees).
 */
export const RECORD_DAYS_BACKFILL = `INSERT INTO record_days (account_id, day, type, api_key_id, records, calls, credits)
  SELECT account_id, substr(created_at, 1, 10), coalesce(record_type, kind), coalesce(api_key_id, ''), count(*),
    sum(CASE WHEN kind = 'settle' AND api_key_id IS NOT NULL THEN 1 ELSE 0 END),
    coalesce(sum(CASE WHEN kind = 'settle' THEN charge WHEN kind = 'charge' THEN -amount ELSE 0 END), 0)
  FROM credit_ledger WHERE kind IN ('settle', 'grant', 'purchase', 'refund', 'charge')
  GROUP BY account_id, substr(created_at, 1, 10), coalesce(record_type, kind), coalesce(api_key_id, '')`;

/** One ordered set of migrations, written with the portable schema builder for SQLite and PostgreSQL. */
const migrations: Record<string, Migration> = {
  '0001_accounts_and_sign_in': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.unique())
        .addColumn('name', 'text')
        .addColumn('avatar', 'text')
        .addColumn('mobile', 'text')
        .addColumn('referral_code', 'text', (c) => c.notNull().unique())
        .addColumn('anonymous', 'integer', (c) => c.notNull())
        .addColumn('vip_level', 'text', (c) => c.notNull())
        .addColumn('vip_expire', 'text')
        .addColumn('credits', 'bigint', (c) =>
          c
            .notNull()
            .defaultTo(0)
            .check(sql`credits >= 0`),
        )
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('referrer', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('devices')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('udid', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('brand', 'text', (c) => c.notNull())
        .addColumn('os', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('devices_udid').on('devices').column('udid').execute();
      await db.schema.createIndex('devices_account').on('devices').column('account_id').execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .addColumn('user_agent', 'text')
        .execute();
      await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();

      await db.schema
        .createTable('verification_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('code_hash', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('consumed_at', 'text')
        .execute();
      await db.schema.createIndex('verification_codes_email').on('verification_codes').columns(['email', 'created_at']).execute();

      await db.schema
        .createTable('uploads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('mime', 'text', (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .addColumn('storage_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0002_credits_ledger': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('credit_ledger')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('balance_after', 'bigint', (c) => c.notNull())
        .addColumn('hold_id', 'text')
        .addColumn('record_type', 'text')
        .addColumn('characters', 'integer')
        .addColumn('voice_id', 'text')
        .addColumn('api_key_id', 'text')
        .addColumn('order_id', 'text')
        .addColumn('note', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('credit_ledger_account').on('credit_ledger').columns(['account_id', 'created_at']).execute();

      await db.schema
        .createTable('credit_holds')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('record_type', 'text', (c) => c.notNull())
        .addColumn('deadline', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('closed_at', 'text')
        .execute();
      await db.schema.createIndex('credit_holds_open').on('credit_holds').columns(['status', 'deadline']).execute();

      await db.schema
        .createTable('credit_grants')
        .addColumn('grant_key', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0003_synthesis_jobs': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('synthesis_jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('progress_done', 'integer', (c) => c.notNull())
        .addColumn('progress_total', 'integer', (c) => c.notNull())
        .addColumn('credits', 'bigint', (c) => c.notNull())
        .addColumn('characters', 'integer', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('hold_id', 'text', (c) => c.notNull())
        .addColumn('storage_key', 'text')
        .addColumn('error_code', 'text')
        .addColumn('error_params', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('expires_at', 'text')
        .execute();
      await db.schema.createIndex('synthesis_jobs_account').on('synthesis_jobs').columns(['account_id', 'created_at']).execute();
      await db.schema.createIndex('synthesis_jobs_expiry').on('synthesis_jobs').columns(['status', 'expires_at']).execute();
    },
  },
  '0004_code_requesters': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('verification_codes').addColumn('requester', 'text').execute();
      await db.schema
        .alterTable('verification_codes')
        .addColumn('foreign_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0005_voice_design': {
    async up(db: Kysely<unknown>) {
      // Per-account numbers (sample index, preview version): only ever go up, so a number is never given twice.
      await db.schema
        .createTable('account_counters')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('value', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('account_counters_pk', ['account_id', 'name'])
        .execute();

      // Uploaded voice samples, with the uploader's consent (account, time, address) kept beside them.
      await db.schema
        .createTable('voice_samples')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('idx', 'integer', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .addColumn('duration', 'double precision', (c) => c.notNull())
        .addColumn('sample_rate', 'integer', (c) => c.notNull())
        .addColumn('measures', 'text', (c) => c.notNull())
        .addColumn('noisy', 'integer', (c) => c.notNull())
        .addColumn('storage_key', 'text', (c) => c.notNull())
        .addColumn('consent_at', 'text', (c) => c.notNull())
        .addColumn('consent_ip', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('voice_samples_account_idx', ['account_id', 'idx'])
        .execute();

      await db.schema
        .createTable('voice_previews')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('language', 'text', (c) => c.notNull())
        .addColumn('preview_text', 'text', (c) => c.notNull())
        .addColumn('prompt', 'text')
        .addColumn('file_id', 'text')
        .addColumn('mix', 'text')
        .addColumn('base_voice', 'text', (c) => c.notNull())
        .addColumn('profile', 'text', (c) => c.notNull())
        .addColumn('gender', 'text', (c) => c.notNull())
        .addColumn('credits', 'bigint', (c) => c.notNull())
        .addColumn('duration', 'double precision', (c) => c.notNull())
        .addColumn('storage_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('voice_previews_account_version', ['account_id', 'version'])
        .execute();

      await db.schema
        .createTable('own_voices')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('gender', 'text', (c) => c.notNull())
        .addColumn('languages', 'text', (c) => c.notNull())
        .addColumn('base_voice', 'text', (c) => c.notNull())
        .addColumn('profile', 'text', (c) => c.notNull())
        .addColumn('mix', 'text')
        .addColumn('prompt', 'text')
        .addColumn('file_id', 'text')
        .addColumn('preview_id', 'text')
        .addColumn('audio_key', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('own_voices_account').on('own_voices').columns(['account_id', 'created_at']).execute();
      // One preview activates one voice at most: a repeated or concurrent activation is not charged twice.
      await db.schema.createIndex('own_voices_preview').on('own_voices').columns(['account_id', 'preview_id']).unique().execute();
    },
  },
  '0006_orders_payments': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('orders')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('product_id', 'text', (c) => c.notNull())
        .addColumn('product_kind', 'text', (c) => c.notNull())
        .addColumn('plan', 'text')
        .addColumn('vip_level', 'text')
        .addColumn('period_days', 'integer')
        .addColumn('credits', 'bigint', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('prices', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('method', 'text')
        .addColumn('provider_ref', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('paid_at', 'text')
        .addColumn('refunded_at', 'text')
        .addColumn('refund_credits', 'bigint')
        .addColumn('refund_amount', 'bigint')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('orders_account').on('orders').columns(['account_id', 'created_at']).execute();
      await db.schema.createIndex('orders_expiry').on('orders').columns(['status', 'expires_at']).execute();

      await db.schema
        .createTable('payments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id').onDelete('cascade'))
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('return_url', 'text', (c) => c.notNull())
        .addColumn('provider_ref', 'text')
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('started'))
        .addColumn('paid_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('payments_order').on('payments').columns(['order_id', 'method']).execute();
    },
  },
  '0007_api_keys_usage': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('credit_limit', 'bigint')
        .addColumn('used', 'bigint', (c) =>
          c
            .notNull()
            .defaultTo(0)
            .check(sql`used >= 0`),
        )
        .addColumn('requests_per_minute', 'integer', (c) => c.notNull())
        .addColumn('concurrency', 'integer', (c) => c.notNull())
        .addColumn('voices', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('deleted_at', 'text')
        .execute();
      await db.schema.createIndex('api_keys_account').on('api_keys').columns(['account_id', 'created_at']).execute();

      // A hold remembers the key that took it, so settling or releasing it moves that key's `used` back.
      await db.schema.alterTable('credit_holds').addColumn('api_key_id', 'text').execute();
      // What a settled charge cost (the hold minus what its settlement returned): a record's amount.
      await db.schema.alterTable('credit_ledger').addColumn('charge', 'bigint').execute();
      await sql`UPDATE credit_ledger SET charge = (SELECT h.amount FROM credit_holds h WHERE h.id = credit_ledger.hold_id) - amount
        WHERE kind = 'settle'`.execute(db);

      // Records are the settled charges and the credits that came in; holds and releases are internal.
      // Partial indexes hold only those rows, so paging and counting never walk the holds.
      await sql`CREATE INDEX credit_records_account ON credit_ledger (account_id, created_at, id)
        WHERE kind IN ('settle', 'grant', 'purchase', 'refund')`.execute(db);
      await sql`CREATE INDEX credit_records_type ON credit_ledger (account_id, record_type, created_at, id)
        WHERE kind IN ('settle', 'grant', 'purchase', 'refund')`.execute(db);
      await sql`CREATE INDEX credit_records_key ON credit_ledger (api_key_id, created_at, id)
        WHERE api_key_id IS NOT NULL AND kind IN ('settle', 'grant', 'purchase', 'refund')`.execute(db);

      // Records per account, UTC day, type and key, kept by applyEntry in the entry's own transaction:
      // totals and statistics add up days instead of counting a million records.
      await db.schema
        .createTable('record_days')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('api_key_id', 'text', (c) => c.notNull())
        .addColumn('records', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('calls', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('credits', 'bigint', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('record_days_pk', ['account_id', 'day', 'type', 'api_key_id'])
        .execute();
      await sql`${sql.raw(RECORD_DAYS_BACKFILL)}`.execute(db);

      await db.schema
        .createTable('client_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('os', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text')
        .addColumn('channel', 'text')
        .addColumn('detail', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('client_events_created').on('client_events').column('created_at').execute();
    },
  },
  '0008_plans_refunds': {
    async up(db: Kysely<unknown>) {
      // What returned a refund's money: the provider's refund id and the currency it was paid in.
      await db.schema.alterTable('orders').addColumn('refund_ref', 'text').execute();
      await db.schema.alterTable('orders').addColumn('refund_currency', 'text').execute();
      // A refund under way (its money with the provider): one command at a time, given up when stale.
      await db.schema.alterTable('orders').addColumn('refund_claim', 'text').execute();
      await db.schema.alterTable('orders').addColumn('refund_claimed_at', 'text').execute();
    },
  },
  '0009_durable_jobs': {
    async up(db: Kysely<unknown>) {
      // What the job synthesizes (the prepared request and its charge, as JSON), so a job a dead process
      // left unfinished runs again elsewhere; who runs it and when that process last said it was alive.
      await db.schema.alterTable('synthesis_jobs').addColumn('request', 'text').execute();
      await db.schema
        .alterTable('synthesis_jobs')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('synthesis_jobs').addColumn('owner', 'text').execute();
      await db.schema.alterTable('synthesis_jobs').addColumn('heartbeat_at', 'text').execute();
      await db.schema.alterTable('synthesis_jobs').addColumn('request_id', 'text').execute();
      await db.schema.createIndex('synthesis_jobs_heartbeat').on('synthesis_jobs').columns(['status', 'heartbeat_at']).execute();
    },
  },
  '0010_design_more': {
    async up(db: Kysely<unknown>) {
      // What a clone sample says, as the user typed it: a zero-shot cloning model reads it with the sample.
      await db.schema.alterTable('voice_previews').addColumn('transcript', 'text').execute();
      await db.schema.alterTable('own_voices').addColumn('transcript', 'text').execute();
      // The voice a preview activated, set in the activation's transaction: pruning never takes such a
      // preview, nor one an activation holds at that moment (the mark is a row lock until it commits).
      await db.schema.alterTable('voice_previews').addColumn('voice_id', 'text').execute();
      await sql`UPDATE voice_previews SET voice_id = (SELECT v.id FROM own_voices v
        WHERE v.account_id = voice_previews.account_id AND v.preview_id = voice_previews.id)`.execute(db);
    },
  },
  '0011_money_records': {
    async up(db: Kysely<unknown>) {
      // An activation fee (kind `charge`) is a record like any other: the partial indexes take it in.
      for (const name of ['credit_records_account', 'credit_records_type', 'credit_records_key'])
        await db.schema.dropIndex(name).execute();
      await sql`CREATE INDEX credit_records_account ON credit_ledger (account_id, created_at, id)
        WHERE kind IN ('settle', 'grant', 'purchase', 'refund', 'charge')`.execute(db);
      await sql`CREATE INDEX credit_records_type ON credit_ledger (account_id, record_type, created_at, id)
        WHERE kind IN ('settle', 'grant', 'purchase', 'refund', 'charge')`.execute(db);
      await sql`CREATE INDEX credit_records_key ON credit_ledger (api_key_id, created_at, id)
        WHERE api_key_id IS NOT NULL AND kind IN ('settle', 'grant', 'purchase', 'refund', 'charge')`.execute(db);
      // The day counts again, with the fees in them and calls counted as the calls made with a key.
      await sql`DELETE FROM record_days`.execute(db);
      await sql`${sql.raw(RECORD_DAYS_BACKFILL)}`.execute(db);
      // The balance the records add up to (the held credits are not spent yet), and the time of the last entry.
      await db.schema
        .alterTable('accounts')
        .addColumn('records_balance', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('accounts')
        .addColumn('entry_ms', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`UPDATE accounts SET records_balance = credits + coalesce((SELECT sum(h.amount) FROM credit_holds h
        WHERE h.account_id = accounts.id AND h.status = 'held'), 0)`.execute(db);
    },
  },
  '0012_provenance': {
    async up(db: Kysely<unknown>) {
      // One row per piece of audio that left the platform: the GB 45438 ProduceID in its AIGC label, the watermark
      // payload in its sound, and who made it with which voice (a clone's sample and the consent given with it), so
      // the operator can answer "who made this, with whose voice" from a file alone. `hold_id` ties it to the
      // credit record that paid for it.
      await db.schema
        .createTable('content_marks')
        .addColumn('produce_id', 'text', (c) => c.primaryKey())
        .addColumn('payload', 'bigint')
        .addColumn('account_id', 'text')
        .addColumn('api_key_id', 'text')
        .addColumn('hold_id', 'text')
        .addColumn('request_id', 'text')
        .addColumn('record_type', 'text', (c) => c.notNull())
        .addColumn('voice_id', 'text', (c) => c.notNull())
        .addColumn('voice_kind', 'text', (c) => c.notNull())
        .addColumn('engine', 'text', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('sample_id', 'text')
        .addColumn('sample_sha256', 'text')
        .addColumn('consent_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('content_marks_payload').on('content_marks').columns(['payload', 'created_at']).execute();
      await db.schema.createIndex('content_marks_account').on('content_marks').columns(['account_id', 'created_at']).execute();
      // A clone sample's hash (what a file's record points to), and whether the sample itself was synthetic.
      await db.schema.alterTable('voice_samples').addColumn('sha256', 'text').execute();
      await db.schema.alterTable('voice_samples').addColumn('synthetic', 'text').execute();
    },
  },
  '0013_pronunciation': {
    async up(db: Kysely<unknown>) {
      // Pronunciation dictionaries (ElevenLabs' shapes): an account's own, or the operator's shared with every account
      // (`account_id` null). `latest_version_id` names the version a locator without one applies; `is_default` (one
      // per account at most, kept by the service in a transaction) the one a request that names none applies.
      await db.schema
        .createTable('pronunciation_dictionaries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('latest_version_id', 'text', (c) => c.notNull())
        .addColumn('latest_rules_num', 'integer', (c) => c.notNull())
        .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('archived_at', 'text')
        .execute();
      await db.schema
        .createIndex('pronunciation_dictionaries_account')
        .on('pronunciation_dictionaries')
        .columns(['account_id', 'created_at'])
        .execute();
      // Every version's rules, kept: a locator with an old version id still applies that version.
      await db.schema
        .createTable('pronunciation_versions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('dictionary_id', 'text', (c) => c.notNull().references('pronunciation_dictionaries.id').onDelete('cascade'))
        .addColumn('rules', 'text', (c) => c.notNull())
        .addColumn('rules_num', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('pronunciation_versions_dictionary')
        .on('pronunciation_versions')
        .columns(['dictionary_id', 'created_at'])
        .execute();
    },
  },
  '0014_content_marks_audio': {
    async up(db: Kysely<unknown>) {
      // The hash of the sound a record's label was written on: a label copied onto other audio no longer binds.
      await db.schema.alterTable('content_marks').addColumn('audio_sha256', 'text').execute();
    },
  },
  '0015_operators_audit': {
    async up(db: Kysely<unknown>) {
      // Operators: an account that holds a role (owner, admin, support, finance); `created_by` is the operator who named
      // it, null when the command line did.
      await db.schema
        .createTable('operators')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .execute();
      // The second factor. TOTP: the secret sealed with the server secret; `confirmed_at` null until a first code
      // confirms it; `last_step` the last time step accepted (a code is never accepted twice).
      await db.schema
        .createTable('operator_totp')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('secret_sealed', 'text', (c) => c.notNull())
        .addColumn('confirmed_at', 'text')
        .addColumn('last_step', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      // Ten one-time recovery codes per enrolment, stored as keyed hashes; `active` once the enrolment is confirmed.
      await db.schema
        .createTable('operator_recovery_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('code_hash', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('used_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('operator_recovery_codes_account')
        .on('operator_recovery_codes')
        .columns(['account_id', 'code_hash'])
        .execute();
      // Passkeys (WebAuthn credentials): the credential id, its public key (COSE, base64url) and signature counter.
      await db.schema
        .createTable('operator_passkeys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('transports', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .execute();
      await db.schema.createIndex('operator_passkeys_account').on('operator_passkeys').column('account_id').execute();
      // The WebAuthn challenge a session was last given (registration or authentication), used once.
      await db.schema
        .createTable('operator_challenges')
        .addColumn('session_hash', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('challenge', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      // A session that passed its second factor (`session_hash` is the session's stored id hash), until `expires_at`
      // (12 hours) or until `ended_at` (a role change, a removal).
      await db.schema
        .createTable('operator_elevations')
        .addColumn('session_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('passed_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('ended_at', 'text')
        .execute();
      await db.schema.createIndex('operator_elevations_account').on('operator_elevations').column('account_id').execute();
      // The audit trail: append-only. No foreign keys: an entry outlives the operator and the target it names.
      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('operator_id', 'text', (c) => c.notNull())
        .addColumn('operator_role', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target_type', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        .addColumn('before', 'text')
        .addColumn('after', 'text')
        .addColumn('reason', 'text')
        .addColumn('request_id', 'text', (c) => c.notNull())
        .addColumn('ip', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_log_at').on('audit_log').columns(['at', 'id']).execute();
      await db.schema.createIndex('audit_log_operator').on('audit_log').columns(['operator_id', 'at']).execute();
      await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'at']).execute();
      await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target_type', 'target_id', 'at']).execute();
      // The database itself refuses to change or remove an entry, whoever asks.
      if (db.getExecutor().adapter instanceof PostgresAdapter) {
        await sql`CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP; END $$`.execute(db);
        await sql`CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
          FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`.execute(db);
        await sql`CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
          FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`.execute(db);
      } else {
        await sql`CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
          BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: UPDATE refused'); END`.execute(db);
        await sql`CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
          BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: DELETE refused'); END`.execute(db);
      }
    },
  },
  '0016_account_status': {
    async up(db: Kysely<unknown>) {
      // An operator disables an account (and enables it again): `active` or `disabled`, when and why.
      await db.schema
        .alterTable('accounts')
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
        .execute();
      await db.schema.alterTable('accounts').addColumn('disabled_at', 'text').execute();
      await db.schema.alterTable('accounts').addColumn('disabled_reason', 'text').execute();
      // The operator's reason on a grant or a deduction, shown to the user with the record.
      await db.schema.alterTable('credit_ledger').addColumn('reason', 'text').execute();
      // The console's search: a phone number, an API key's prefix.
      await db.schema.createIndex('accounts_mobile').on('accounts').column('mobile').execute();
      await db.schema.createIndex('api_keys_prefix').on('api_keys').column('prefix').execute();
      // The beginning of an email or key prefix: PostgreSQL's LIKE 'abc%' takes an index only in pattern order (SQLite
      // reads a range of the indexes above).
      if (db.getExecutor().adapter instanceof PostgresAdapter) {
        await sql`CREATE INDEX accounts_email_pattern ON accounts (email text_pattern_ops)`.execute(db);
        await sql`CREATE INDEX api_keys_prefix_pattern ON api_keys (prefix text_pattern_ops)`.execute(db);
      }
      // The overview reads days across every account: new accounts, orders made and paid, records per day,
      // the credits that came in or went out by grant, purchase or refund (few rows: a partial index), pieces of audio.
      await db.schema.createIndex('accounts_created').on('accounts').column('created_at').execute();
      await db.schema.createIndex('orders_created').on('orders').column('created_at').execute();
      await db.schema.createIndex('orders_paid').on('orders').column('paid_at').execute();
      await db.schema.createIndex('record_days_day').on('record_days').columns(['day', 'account_id']).execute();
      await sql`CREATE INDEX credit_money_days ON credit_ledger (created_at)
        WHERE kind IN ('grant', 'purchase', 'refund')`.execute(db);
      await db.schema.createIndex('content_marks_created').on('content_marks').column('created_at').execute();
      await sql`CREATE INDEX credit_settle_hold ON credit_ledger (hold_id) WHERE kind = 'settle'`.execute(db);
    },
  },
  '0017_catalog_codes': {
    async up(db: Kysely<unknown>) {
      // The products on sale, edited by operators (products.json only seeds it). Prices in minor units; privileges,
      // name and description as JSON text. `catalog_state` holds one row: the version every process compares with
      // its cached copy (bumped by each edit, in the edit's transaction) and the basic plan.
      await db.schema
        .createTable('catalog_products')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('plan', 'text')
        .addColumn('vip_level', 'text')
        .addColumn('rank', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('credits', 'bigint', (c) => c.notNull())
        .addColumn('period_days', 'integer')
        .addColumn('price_cny', 'bigint', (c) => c.notNull())
        .addColumn('price_usd', 'bigint', (c) => c.notNull())
        .addColumn('privileges', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('updated_by', 'text')
        .execute();
      await db.schema
        .createTable('catalog_state')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('version', 'bigint', (c) => c.notNull())
        .addColumn('basic_plan', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      // Redemption codes: a batch (credits or a plan, as it was when the batch was made), its codes (the SHA-256 of
      // the normalised code, unique, for lookup; the code itself AES-GCM-encrypted with a key from the server secret,
      // for the CSV export), and one row per use (an account uses a code at most once).
      await db.schema
        .createTable('code_batches')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('credits', 'bigint', (c) => c.notNull())
        .addColumn('product_id', 'text')
        .addColumn('plan', 'text')
        .addColumn('vip_level', 'text')
        .addColumn('period_days', 'integer')
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('uses_per_code', 'integer', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text')
        .addColumn('revoked_at', 'text')
        .addColumn('revoked_by', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('code_batches_created').on('code_batches').columns(['created_at', 'id']).execute();
      await db.schema
        .createTable('redemption_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('batch_id', 'text', (c) => c.notNull().references('code_batches.id').onDelete('cascade'))
        .addColumn('code_hash', 'text', (c) => c.notNull().unique())
        .addColumn('code_cipher', 'text', (c) => c.notNull())
        .addColumn('code_hint', 'text', (c) => c.notNull())
        .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_uses', 'integer', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addCheckConstraint('redemption_codes_uses', sql`uses >= 0 AND uses <= max_uses`)
        .execute();
      await db.schema.createIndex('redemption_codes_batch').on('redemption_codes').columns(['batch_id', 'position']).execute();
      await db.schema
        .createTable('code_redemptions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('code_id', 'text', (c) => c.notNull().references('redemption_codes.id').onDelete('cascade'))
        .addColumn('batch_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('credits', 'bigint', (c) => c.notNull())
        .addColumn('plan', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('code_redemptions_once', ['code_id', 'account_id'])
        .execute();
      await db.schema.createIndex('code_redemptions_batch').on('code_redemptions').columns(['batch_id', 'created_at']).execute();
      await db.schema.createIndex('code_redemptions_account').on('code_redemptions').column('account_id').execute();
    },
  },
  '0018_order_events_invoices': {
    async up(db: Kysely<unknown>) {
      // Every payment notification received (verified or not) and every answer of a provider asked about a payment.
      await db.schema
        .createTable('order_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('order_id', 'text')
        .addColumn('payment_id', 'text')
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('verification', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('provider_state', 'text')
        .addColumn('amount', 'bigint')
        .addColumn('currency', 'text')
        .addColumn('provider_ref', 'text')
        .addColumn('detail', 'text')
        .addColumn('operator_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('order_events_order').on('order_events').columns(['order_id', 'created_at']).execute();
      await db.schema.createIndex('order_events_time').on('order_events').columns(['created_at']).execute();
      // The provider's last word on each attempt, for the reconciliation view.
      await db.schema.alterTable('payments').addColumn('provider_state', 'text').execute();
      await db.schema.alterTable('payments').addColumn('provider_checked_at', 'text').execute();
      await db.schema.createIndex('payments_provider_state').on('payments').columns(['provider_state', 'status']).execute();
      await db.schema.createIndex('orders_status_created').on('orders').columns(['status', 'created_at']).execute();

      // 发票 requests: one per order; finance issues the file (kept in storage) or rejects the request.
      await db.schema
        .createTable('invoice_requests')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('order_id', 'text', (c) => c.notNull().unique().references('orders.id').onDelete('cascade'))
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('tax_number', 'text')
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('locale', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('file_key', 'text')
        .addColumn('invoice_number', 'text')
        .addColumn('note', 'text')
        .addColumn('handled_by', 'text')
        .addColumn('handled_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('invoice_requests_status').on('invoice_requests').columns(['status', 'created_at']).execute();
      await db.schema.createIndex('invoice_requests_account').on('invoice_requests').columns(['account_id']).execute();
    },
  },
  '0019_providers_settings': {
    async up(db: Kysely<unknown>) {
      // Settings an operator changes while running (platform/runtime-settings.ts): one JSON document per name, its
      // version bumped at each change, so every process sees a change at its next read past the cache's short life.
      await db.schema
        .createTable('runtime_settings')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('updated_by', 'text')
        .execute();
      // Remote speech providers added in the console; the key is sealed with the server secret (AES-256-GCM) and only
      // its last characters are kept in the clear, as a hint.
      await db.schema
        .createTable('remote_providers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('model', 'text')
        .addColumn('key_sealed', 'text', (c) => c.notNull())
        .addColumn('key_hint', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_test_at', 'text')
        .addColumn('last_test_ok', 'integer')
        .addColumn('last_test_message', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      // Model installs started from the console: the progress any process answers while the one that runs it writes it.
      await db.schema
        .createTable('model_installs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('bytes_done', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('bytes_total', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .addColumn('started_by', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema.createIndex('model_installs_started').on('model_installs').columns(['started_at']).execute();
    },
  },
  '0020_opgaps_speech_stats_catalog': {
    async up(db: Kysely<unknown>) {
      // The speech routes' answers per UTC hour, added to by every process that answers them (an upsert that adds):
      // requests, errors, and the latency histogram (counts per bucket, not cumulative; lat_12 is past 30 s), so the
      // console's overview reads any range of days whichever process answered and across restarts.
      let table = db.schema
        .createTable('speech_route_hours')
        .addColumn('hour', 'text', (c) => c.primaryKey())
        .addColumn('requests', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('client_errors', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('server_errors', 'bigint', (c) => c.notNull().defaultTo(0));
      for (let i = 0; i <= 12; i++) table = table.addColumn(`lat_${i}`, 'bigint', (c) => c.notNull().defaultTo(0));
      await table.execute();
      // A product retired from the catalogue: no longer sold nor listed to the console's editors as live; orders and
      // code batches that name it keep it as bought.
      await db.schema.alterTable('catalog_products').addColumn('retired_at', 'text').execute();
    },
  },
  '0021_phone_sign_in': {
    async up(db: Kysely<unknown>) {
      // A number signs in to one account: stored in E.164, unique (NULLs, the accounts without one, do not collide).
      await db.schema.createIndex('phone_accounts_mobile_unique').on('accounts').column('mobile').unique().execute();
      // Text messages sent per UTC day by the whole service, counted by a conditional upsert so the operator's daily
      // cap holds across every process sharing the database.
      await db.schema
        .createTable('phone_sms_days')
        .addColumn('day', 'text', (c) => c.primaryKey())
        .addColumn('sent', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
  '0022_moderation_lists_hits': {
    async up(db: Kysely<unknown>) {
      // The operator's own moderation list (moderation/): a word or phrase per row with its category, matched as the
      // sensitive-word lists are (platform/sensitive-words.ts), in force on every process within seconds of a change.
      await db.schema
        .createTable('moderation_terms')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('term', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .execute();
      await db.schema.createIndex('moderation_terms_term').on('moderation_terms').columns(['term']).unique().execute();
      // Texts refused before synthesis, kept for the operator for the retention the operator sets (then swept).
      await db.schema
        .createTable('moderation_hits')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text')
        .addColumn('route', 'text', (c) => c.notNull())
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('moderation_hits_created').on('moderation_hits').columns(['created_at']).execute();
      await db.schema
        .createIndex('moderation_hits_account')
        .on('moderation_hits')
        .columns(['account_id', 'created_at'])
        .execute();
    },
  },
  '0023_reports_protected_voices': {
    async up(db: Kysely<unknown>) {
      // A voice taken down after a report: it answers 404 everywhere (design/repository.ts reads only rows without it).
      await db.schema.alterTable('own_voices').addColumn('taken_down_at', 'text').execute();
      // Voices no sample may clone (reports/, protected-voices/): each from a sample, compared by its voiceprint.
      await db.schema
        .createTable('protected_voices')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('voiceprint', 'text', (c) => c.notNull())
        .addColumn('storage_key', 'text')
        .addColumn('source_voice_id', 'text')
        .addColumn('report_id', 'text')
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      // Reports of misuse, from anyone: the queue the operator works through (new, in_review, actioned, rejected).
      await db.schema
        .createTable('misuse_reports')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('details', 'text')
        .addColumn('contact', 'text', (c) => c.notNull())
        .addColumn('consent', 'integer', (c) => c.notNull())
        .addColumn('locale', 'text', (c) => c.notNull())
        .addColumn('voice_id', 'text')
        .addColumn('url', 'text')
        .addColumn('file_key', 'text')
        .addColumn('file_sha256', 'text')
        .addColumn('file_voiceprint', 'text')
        .addColumn('provenance', 'text')
        .addColumn('account_id', 'text')
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text')
        .addColumn('handled_by', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('misuse_reports_status_created')
        .on('misuse_reports')
        .columns(['status', 'created_at'])
        .execute();
    },
  },
  '0024_limits_takedowns_retention': {
    async up(db: Kysely<unknown>) {
      // Fixed-window counters in the database (platform/db-rate-limit.ts): the SMS limits hold across processes
      // without Redis. One row per key, its window's start and count (ms by the caller's clock); swept once lapsed.
      await db.schema
        .createTable('rate_windows')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('start_ms', 'bigint', (c) => c.notNull())
        .addColumn('window_ms', 'bigint', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .execute();
      // Voices of no account taken down after a report (the official library's): withheld from the library everywhere.
      await db.schema
        .createTable('voice_takedowns')
        .addColumn('voice_id', 'text', (c) => c.primaryKey())
        .addColumn('report_id', 'text')
        .addColumn('taken_down_by', 'text', (c) => c.notNull())
        .addColumn('taken_down_at', 'text', (c) => c.notNull())
        .execute();
      // A cloned voice its owner deleted: gone for the owner and every route, its sample and consent kept here for
      // the operator until the retention the operator sets (VOICE_RETENTION_DAYS) ends, then swept with the sample.
      await db.schema
        .createTable('retained_voices')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text', (c) => c.notNull())
        .addColumn('sample_id', 'text', (c) => c.notNull())
        .addColumn('sample_key', 'text', (c) => c.notNull())
        .addColumn('sample_format', 'text', (c) => c.notNull())
        .addColumn('sample_size', 'bigint', (c) => c.notNull())
        .addColumn('sample_duration', 'real', (c) => c.notNull())
        .addColumn('sample_sha256', 'text')
        .addColumn('sample_created_at', 'text', (c) => c.notNull())
        .addColumn('consent_at', 'text', (c) => c.notNull())
        .addColumn('consent_ip', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('retained_voices_account')
        .on('retained_voices')
        .columns(['account_id', 'deleted_at'])
        .execute();
      await db.schema.createIndex('retained_voices_deleted').on('retained_voices').columns(['deleted_at']).execute();
    },
  },
  '0026_studio_projects': {
    async up(db: Kysely<unknown>) {
      // Studio projects (studio/): a document's chapters of paragraphs, each paragraph with its speaker, a voice of its
      // own if it has one and the pause after it; the project maps each speaker to a voice once (JSON `speakers`).
      await db.schema
        .createTable('studio_projects')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('title', 'text')
        .addColumn('author', 'text')
        .addColumn('description', 'text')
        .addColumn('language', 'text')
        .addColumn('cover_key', 'text')
        .addColumn('cover_type', 'text')
        .addColumn('source_type', 'text', (c) => c.notNull())
        .addColumn('default_title_voice_id', 'text', (c) => c.notNull())
        .addColumn('default_paragraph_voice_id', 'text', (c) => c.notNull())
        .addColumn('default_model_id', 'text', (c) => c.notNull())
        .addColumn('apply_text_normalization', 'text', (c) => c.notNull())
        .addColumn('pronunciation_locators', 'text', (c) => c.notNull())
        .addColumn('default_speaker', 'text', (c) => c.notNull())
        .addColumn('speakers', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('studio_projects_account')
        .on('studio_projects')
        .columns(['account_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('studio_chapters')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('studio_chapters_project').on('studio_chapters').columns(['project_id', 'position']).execute();
      // content_hash: sha256 of what the paragraph's audio depends on (text, voice, model, normalisation, dictionaries);
      // converted_hash: the content_hash its audio was made from, set by a conversion (unchanged ones are skipped).
      await db.schema
        .createTable('studio_paragraphs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('chapter_id', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('speaker', 'text', (c) => c.notNull())
        .addColumn('voice_id', 'text')
        .addColumn('pause_after_ms', 'integer', (c) => c.notNull())
        .addColumn('content_hash', 'text', (c) => c.notNull())
        .addColumn('converted_hash', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('studio_paragraphs_chapter')
        .on('studio_paragraphs')
        .columns(['chapter_id', 'position'])
        .execute();
      await db.schema.createIndex('studio_paragraphs_project').on('studio_paragraphs').columns(['project_id']).execute();
    },
  },
  '0027_studio_conversion': {
    async up(db: Kysely<unknown>) {
      // A job row's kind: `synthesis` (a long text on one hold) or `studio_convert` (a project's conversion, whose
      // paragraphs each take and close their own hold, so its row holds nothing: hold_id '').
      await db.schema
        .alterTable('synthesis_jobs')
        .addColumn('kind', 'text', (c) => c.notNull().defaultTo('synthesis'))
        .execute();
      // A paragraph's audio (a WAV in storage), its length, rate and words ({text,start,end} seconds, JSON), and the
      // charge of its conversion while it is open (JSON: the hold, its price, the hash spoken), closed on resume.
      for (const [column, type] of [
        ['audio_key', 'text'],
        ['audio_ms', 'integer'],
        ['sample_rate', 'integer'],
        ['words', 'text'],
        ['pending_charge', 'text'],
      ] as const)
        await db.schema.alterTable('studio_paragraphs').addColumn(column, type).execute();
      // Snapshots: what a finished conversion made (the project's, chapter_id null, and one per converted chapter).
      await db.schema
        .createTable('studio_snapshots')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('chapter_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('manifest', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('studio_snapshots_project')
        .on('studio_snapshots')
        .columns(['project_id', 'created_at'])
        .execute();
    },
  },
  '0029_history': {
    async up(db: Kysely<unknown>) {
      // History (history/): every generation that delivered audio, with what made it (text, voice, settings, route, key),
      // what it cost (the settle entry's charge and the balance around it) and the key of its stored audio, kept for
      // the operator's HISTORY_RETENTION_DAYS, then swept with the file.
      await db.schema
        .createTable('history_items')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('api_key_id', 'text')
        .addColumn('request_id', 'text')
        .addColumn('hold_id', 'text')
        .addColumn('route', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('voice_id', 'text')
        .addColumn('voice_name', 'text')
        .addColumn('voice_category', 'text')
        .addColumn('model_id', 'text')
        .addColumn('settings', 'text', (c) => c.notNull())
        .addColumn('dialogue', 'text')
        .addColumn('output_format', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('characters', 'integer', (c) => c.notNull())
        .addColumn('credits', 'integer', (c) => c.notNull())
        .addColumn('balance_before', 'integer')
        .addColumn('balance_after', 'integer')
        .addColumn('audio_key', 'text')
        .addColumn('audio_bytes', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('history_items_account').on('history_items').columns(['account_id', 'created_at']).execute();
      await db.schema.createIndex('history_items_created').on('history_items').columns(['created_at']).execute();
    },
  },
  '0031_studio_failures': {
    async up(db: Kysely<unknown>) {
      // Why a paragraph's last conversion failed (JSON {code, params, hash}: an error code of the contract and the
      // content hash it failed on), shown until the paragraph converts or changes; cleared by its next audio.
      await db.schema.alterTable('studio_paragraphs').addColumn('conversion_error', 'text').execute();
    },
  },
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
