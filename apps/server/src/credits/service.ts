import { metrics } from '../platform/metrics.js';
import { sql, type Kysely, type Transaction } from 'kysely';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Database } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/database.js';
import { applyEntry, nextEntryMs, type EntryDetails } from './ledger.js';
import type { CreditsConfig } from './credits-config.js';
import { reserveKeyCredits, returnKeyCredits } from '../api-keys/usage.js';

type Executor = Kysely<Database> | Transaction<Database>;

/** PostgreSQL: the time `entry_ms` names, written as `toISOString` writes it (the ledger's `created_at`). */
const ENTRY_AT = sql`to_char(TIMESTAMP '1970-01-01 00:00:00' + entry_ms * INTERVAL '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export interface Hold {
  id: string;
  accountId: string;
  amount: number;
  apiKeyId?: string | null;
}

export interface CreditsOptions {
  db: Kysely<Database>;
  /** Grants, fees and hold lifetimes (credits.json). */
  config: CreditsConfig;
  /**
   * PostgreSQL: a hold and a settlement are each one statement (data-modifying CTEs), one round trip instead of
   * five or six, with the same rows written; every other change, and SQLite, goes through `applyEntry`.
   * SQLite when left out.
   */
  dialect?: 'sqlite' | 'postgres';
}

/** Credits move only here: grants, holds and their settlement or release, purchases and refunds. */
export class CreditsService {
  readonly config: CreditsConfig;
  private readonly db: Kysely<Database>;
  private readonly dialect: 'sqlite' | 'postgres';

  constructor(options: CreditsOptions) {
    this.db = options.db;
    this.config = options.config;
    this.dialect = options.dialect ?? 'sqlite';
  }

  /** Grants `amount` once per `grantKey`; returns false when that grant was already given. */
  async grantOnce(trx: Executor, accountId: string, grantKey: string, amount: number, note: string): Promise<boolean> {
    const inserted = await trx
      .insertInto('credit_grants')
      .values({ grant_key: grantKey, account_id: accountId, amount, created_at: nowIso() })
      .onConflict((oc) => oc.column('grant_key').doNothing())
      .returning('grant_key')
      .executeTakeFirst();
    if (!inserted) return false;
    if (amount > 0) await applyEntry(trx, accountId, 'grant', amount, { record_type: 'grant', note });
    return true;
  }

  /**
   * An operator's grant (`amount` > 0) or deduction (< 0), in the caller's transaction: a `grant` record carrying the
   * reason, which the user sees with it. A deduction never takes the balance below zero (INSUFFICIENT_BALANCE). The
   * command line (`npm run admin -- grant`) and the console both come here, so they leave the same entry.
   */
  async adjust(trx: Executor, accountId: string, amount: number, reason: string): Promise<number> {
    if (!Number.isInteger(amount) || amount === 0) throw new Error(`invalid adjustment ${amount}`);
    if (amount > 0)
      await trx
        .insertInto('credit_grants')
        .values({ grant_key: `admin:${newId('record')}`, account_id: accountId, amount, created_at: nowIso() })
        .execute();
    return applyEntry(trx, accountId, 'grant', amount, { record_type: 'grant', note: 'by an operator', reason });
  }

  /** Releases every open hold of the account (a disabled account's work has stopped); returns the credits freed. */
  async releaseAll(accountId: string, note: string): Promise<number> {
    const open = await this.db
      .selectFrom('credit_holds')
      .select(['id', 'amount'])
      .where('account_id', '=', accountId)
      .where('status', '=', 'held')
      .execute();
    let freed = 0;
    for (const { id, amount } of open) if (await this.release(id, note)) freed += Number(amount);
    return freed;
  }

  /** Locks `amount` credits until settled or released; throws INSUFFICIENT_BALANCE when they are not there. */
  async hold(
    accountId: string,
    amount: number,
    recordType: string,
    ttlSeconds = this.config.hold_ttl_seconds,
    opts: { apiKeyId?: string | null } = {},
  ): Promise<Hold> {
    if (!Number.isInteger(amount) || amount < 0) throw new Error(`invalid hold amount ${amount}`);
    const id = newId('hold');
    const now = new Date();
    const apiKeyId = opts.apiKeyId ?? null;
    if (this.dialect === 'postgres' && !apiKeyId) {
      await this.holdInOneStatement(id, accountId, amount, recordType, now, ttlSeconds);
      metrics.credits('held', amount);
      return { id, accountId, amount, apiKeyId };
    }
    await this.db.transaction().execute(async (trx) => {
      // The balance moves first: a missing account or a short balance fails before any hold exists.
      await applyEntry(trx, accountId, 'hold', -amount, { hold_id: id, record_type: recordType, api_key_id: apiKeyId });
      // The key's limit is counted in the same transaction, so the balance and the limit hold or fail together.
      if (apiKeyId) await reserveKeyCredits(trx, apiKeyId, amount);
      await trx
        .insertInto('credit_holds')
        .values({
          id,
          account_id: accountId,
          amount,
          status: 'held',
          record_type: recordType,
          deadline: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
          created_at: now.toISOString(),
          closed_at: null,
          api_key_id: apiKeyId,
        })
        .execute();
    });
    metrics.credits('held', amount);
    return { id, accountId, amount, apiKeyId };
  }

  /** Charges `charged` (at most the held amount) and returns the rest; a closed hold is left alone. */
  async settle(holdId: string, charged: number, details: EntryDetails = {}): Promise<boolean> {
    if (this.dialect === 'postgres') {
      const settled = await this.settleInOneStatement(holdId, charged, details);
      if (settled) {
        metrics.credits('settled', settled.taken);
        metrics.credits('released', settled.returned);
      }
      return settled !== null;
    }
    let taken = 0;
    let returned = 0;
    const settled = await this.db.transaction().execute(async (trx) => {
      const hold = await this.close(trx, holdId, 'settled');
      if (!hold) return false;
      const take = Math.min(Math.max(0, Math.round(charged)), hold.amount);
      taken = take;
      returned = hold.amount - take;
      await applyEntry(trx, hold.account_id, 'settle', hold.amount - take, {
        ...details,
        hold_id: holdId,
        record_type: details.record_type ?? hold.record_type,
        api_key_id: details.api_key_id ?? hold.api_key_id,
        charge: take,
        note: `charged ${take}`,
      });
      if (hold.api_key_id) await returnKeyCredits(trx, hold.api_key_id, hold.amount - take);
      return true;
    });
    // Counted once committed: a settlement that rolled back or found the hold closed charged nothing.
    if (settled) {
      metrics.credits('settled', taken);
      metrics.credits('released', returned);
    }
    return settled;
  }

  /** Pushes a live hold's deadline out, so work that is still running never has its hold swept. */
  async extend(holdId: string, ttlSeconds = this.config.hold_ttl_seconds): Promise<boolean> {
    const row = await this.db
      .updateTable('credit_holds')
      .set({ deadline: new Date(Date.now() + ttlSeconds * 1000).toISOString() })
      .where('id', '=', holdId)
      .where('status', '=', 'held')
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async holdStatus(holdId: string): Promise<string | null> {
    const row = await this.db.selectFrom('credit_holds').select('status').where('id', '=', holdId).executeTakeFirst();
    return row?.status ?? null;
  }

  /**
   * Takes a released hold's amount again and reopens it, for work that was delivered after its hold
   * was swept: the work is paid for, or this throws INSUFFICIENT_BALANCE and the work is not delivered.
   */
  async reclaim(holdId: string, ttlSeconds = this.config.hold_ttl_seconds): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const hold = await trx
        .updateTable('credit_holds')
        .set({ status: 'held', closed_at: null, deadline: new Date(Date.now() + ttlSeconds * 1000).toISOString() })
        .where('id', '=', holdId)
        .where('status', '=', 'released')
        .returning(['account_id', 'amount', 'record_type', 'api_key_id'])
        .executeTakeFirst();
      if (!hold) return false;
      await applyEntry(trx, hold.account_id, 'hold', -Number(hold.amount), {
        hold_id: holdId,
        record_type: hold.record_type,
        api_key_id: hold.api_key_id,
        note: 'reclaimed after release',
      });
      if (hold.api_key_id) await reserveKeyCredits(trx, hold.api_key_id, Number(hold.amount));
      metrics.credits('held', Number(hold.amount));
      return true;
    });
  }

  /** Returns the whole held amount; used on failure and by the sweeper. */
  async release(holdId: string, note = 'released'): Promise<boolean> {
    let amount = 0;
    const released = await this.db.transaction().execute(async (trx) => {
      const hold = await this.close(trx, holdId, 'released');
      if (!hold) return false;
      amount = hold.amount;
      await applyEntry(trx, hold.account_id, 'release', hold.amount, {
        hold_id: holdId,
        record_type: hold.record_type,
        api_key_id: hold.api_key_id,
        note,
      });
      if (hold.api_key_id) await returnKeyCredits(trx, hold.api_key_id, hold.amount);
      return true;
    });
    if (released) metrics.credits('released', amount);
    return released;
  }

  /**
   * Takes a fee at once, in the caller's transaction (an activation fee with the voice it creates):
   * INSUFFICIENT_BALANCE rolls the whole transaction back.
   */
  async charge(trx: Executor, accountId: string, amount: number, details: EntryDetails): Promise<number> {
    if (!Number.isInteger(amount) || amount < 0) throw new Error(`invalid charge ${amount}`);
    return applyEntry(trx, accountId, 'charge', -amount, details);
  }

  /** A redemption code's credits: a `grant` record the user sees, noting the code's batch. */
  async redeemed(trx: Executor, accountId: string, amount: number, batchId: string): Promise<number> {
    return applyEntry(trx, accountId, 'grant', amount, { record_type: 'grant', note: `redeemed a code of ${batchId}` });
  }

  async purchase(trx: Executor, accountId: string, amount: number, orderId: string): Promise<number> {
    return applyEntry(trx, accountId, 'purchase', amount, { order_id: orderId, record_type: 'purchase' });
  }

  async refund(trx: Executor, accountId: string, amount: number, orderId: string): Promise<number> {
    return applyEntry(trx, accountId, 'refund', -amount, { order_id: orderId, record_type: 'refund' });
  }

  /** A refund whose money the provider did not return gives its credits back: a positive `refund` record. */
  async refundReturned(trx: Executor, accountId: string, amount: number, orderId: string): Promise<number> {
    return applyEntry(trx, accountId, 'refund', amount, {
      order_id: orderId,
      record_type: 'refund',
      note: 'refund not paid out: credits returned',
    });
  }

  /** Releases every hold past its deadline, so a crash never leaves credits locked. */
  async sweepExpiredHolds(now = new Date()): Promise<number> {
    const expired = await this.db
      .selectFrom('credit_holds')
      .select('id')
      .where('status', '=', 'held')
      .where('deadline', '<', now.toISOString())
      .execute();
    let released = 0;
    for (const { id } of expired) if (await this.release(id, 'expired')) released += 1;
    return released;
  }

  async balance(accountId: string): Promise<number> {
    const row = await this.db.selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return Number(row.credits);
  }

  async ledgerSum(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('total'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  private async close(trx: Executor, holdId: string, status: 'settled' | 'released') {
    return trx
      .updateTable('credit_holds')
      .set({ status, closed_at: nowIso() })
      .where('id', '=', holdId)
      .where('status', '=', 'held')
      .returning(['id', 'account_id', 'amount', 'record_type', 'api_key_id'])
      .executeTakeFirst()
      .then((row) => (row ? { ...row, amount: Number(row.amount) } : undefined));
  }

  /**
   * `hold` on PostgreSQL without an API key: the balance moves (never below zero), the ledger entry and the hold row
   * are written, all in one statement, so all of it happens or none. Refused: the account is missing or short.
   */
  private async holdInOneStatement(
    id: string,
    accountId: string,
    amount: number,
    recordType: string,
    now: Date,
    ttlSeconds: number,
  ): Promise<void> {
    const at = now.toISOString();
    const deadline = new Date(now.getTime() + ttlSeconds * 1000).toISOString();
    const { rows } = await sql<{ credits: string }>`
      WITH acc AS (
        UPDATE accounts SET credits = credits - ${amount}::bigint, updated_at = ${at}::text,
          entry_ms = ${nextEntryMs(now.getTime())}
        WHERE id = ${accountId}::text AND credits - ${amount}::bigint >= 0 AND status = 'active'
        RETURNING credits, ${ENTRY_AT} AS entry_at
      ), entry AS (
        INSERT INTO credit_ledger (id, account_id, kind, amount, balance_after, hold_id, record_type, created_at)
        SELECT ${newId('record')}::text, ${accountId}::text, 'hold', ${-amount}::bigint, acc.credits, ${id}::text,
          ${recordType}::text, acc.entry_at
        FROM acc
      ), held AS (
        INSERT INTO credit_holds (id, account_id, amount, status, record_type, deadline, created_at)
        SELECT ${id}::text, ${accountId}::text, ${amount}::bigint, 'held', ${recordType}::text, ${deadline}::text, ${at}::text
        FROM acc
      )
      SELECT credits FROM acc`.execute(this.db);
    if (rows.length) return;
    const account = await this.db.selectFrom('accounts').select('status').where('id', '=', accountId).executeTakeFirst();
    if (!account) throw new AppError('NOT_FOUND');
    throw new AppError(account.status === 'active' ? 'INSUFFICIENT_BALANCE' : 'ACCOUNT_DISABLED');
  }

  /**
   * `settle` on PostgreSQL in one statement: the hold closes (only if still held), the rest of it returns to the
   * balance and to its API key's limit, and the settle entry and its day's record count are written, exactly as
   * `applyEntry` and `countRecord` write them. Null when the hold was not held (already closed).
   */
  private async settleInOneStatement(
    holdId: string,
    charged: number,
    details: EntryDetails,
  ): Promise<{ taken: number; returned: number } | null> {
    const at = nowIso();
    const want = Math.max(0, Math.round(charged));
    const { rows } = await sql<{ amount: string; take: string }>`
      WITH h AS (
        UPDATE credit_holds SET status = 'settled', closed_at = ${at}::text
        WHERE id = ${holdId}::text AND status = 'held'
        RETURNING account_id, amount, record_type, api_key_id
      ), t AS (
        SELECT account_id, amount, LEAST(${want}::bigint, amount) AS take,
          COALESCE(${details.record_type ?? null}::text, record_type) AS record_type,
          COALESCE(${details.api_key_id ?? null}::text, api_key_id) AS entry_key, api_key_id AS hold_key
        FROM h
      ), acc AS (
        UPDATE accounts SET credits = accounts.credits + (t.amount - t.take),
          records_balance = accounts.records_balance - t.take, updated_at = ${at}::text,
          entry_ms = ${nextEntryMs(Date.parse(at))}
        FROM t WHERE accounts.id = t.account_id
        RETURNING accounts.records_balance, ${ENTRY_AT} AS entry_at
      ), entry AS (
        INSERT INTO credit_ledger (id, account_id, kind, amount, balance_after, hold_id, record_type, characters, voice_id,
          api_key_id, order_id, note, charge, created_at)
        SELECT ${newId('record')}::text, t.account_id, 'settle', t.amount - t.take, acc.records_balance, ${holdId}::text,
          t.record_type, ${details.characters ?? null}::integer, ${details.voice_id ?? null}::text, t.entry_key,
          ${details.order_id ?? null}::text, 'charged ' || t.take, t.take, acc.entry_at
        FROM t, acc
      ), days AS (
        INSERT INTO record_days (account_id, day, type, api_key_id, records, calls, credits)
        SELECT t.account_id, substr(acc.entry_at, 1, 10), COALESCE(t.record_type, 'settle'), COALESCE(t.entry_key, ''), 1,
          CASE WHEN t.entry_key IS NULL THEN 0 ELSE 1 END, t.take
        FROM t, acc
        ON CONFLICT (account_id, day, type, api_key_id) DO UPDATE SET
          records = record_days.records + 1, calls = record_days.calls + EXCLUDED.calls, credits = record_days.credits + EXCLUDED.credits
      ), key_back AS (
        UPDATE api_keys SET used = api_keys.used - (t.amount - t.take)
        FROM t WHERE api_keys.id = t.hold_key AND t.amount - t.take > 0 AND api_keys.used >= t.amount - t.take
      )
      SELECT t.amount, t.take FROM t, acc`.execute(this.db);
    const row = rows[0];
    if (!row) return null;
    const taken = Number(row.take);
    return { taken, returned: Number(row.amount) - taken };
  }
}
