import type { Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * Locks the account's row until the transaction ends, for an "at most N per account" rule counted and then inserted
 * in that transaction: PostgreSQL queues every other such transaction of the account (and every balance change) at
 * this statement, and each one's count then sees the rows the one before it committed; SQLite runs one transaction at
 * a time anyway. A no-op UPDATE rather than `SELECT … FOR UPDATE`, which SQLite does not parse. False: no such account.
 */
export async function lockAccount(trx: Transaction<Database>, accountId: string): Promise<boolean> {
  const row = await trx
    .updateTable('accounts')
    .set((eb) => ({ vip_level: eb.ref('vip_level') }))
    .where('id', '=', accountId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
