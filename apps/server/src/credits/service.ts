import { metrics } from '../platform/metrics.js';
import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Database } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/database.js';
import { applyEntry, type EntryDetails } from './ledger.js';
import type { CreditsConfig } from './credits-config.js';
import { reserveKeyCredits, returnKeyCredits } from '../api-keys/usage.js';

type Executor = Kysely<Database> | Transaction<Database>;

export interface Hold {
  id: string;
  accountId: string;
  amount: number;
  apiKeyId?: string | null;
}

/** Credits move only here: grants, holds and their settlement or release, purchases and refunds. */
export class CreditsService {
  constructor(
    private readonly db: Kysely<Database>,
    readonly config: CreditsConfig,
  ) {}

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

  async purchase(trx: Executor, accountId: string, amount: number, orderId: string): Promise<number> {
    return applyEntry(trx, accountId, 'purchase', amount, { order_id: orderId, record_type: 'purchase' });
  }

  async refund(trx: Executor, accountId: string, amount: number, orderId: string): Promise<number> {
    return applyEntry(trx, accountId, 'refund', -amount, { order_id: orderId, record_type: 'refund' });
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
}
