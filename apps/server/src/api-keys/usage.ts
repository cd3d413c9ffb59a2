import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../platform/errors.js';
import type { Database } from '../platform/db/schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Counts `amount` against a key's credit limit, inside the caller's transaction (the one that holds
 * the balance): one conditional UPDATE, so concurrent spends through one key never pass its limit.
 * A key deleted meanwhile no longer spends anything.
 */
export async function reserveKeyCredits(trx: Executor, keyId: string, amount: number): Promise<void> {
  const row = await trx
    .updateTable('api_keys')
    .set((eb) => ({ used: eb('used', '+', amount) }))
    .where('id', '=', keyId)
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('credit_limit', 'is', null), eb(eb('used', '+', amount), '<=', eb.ref('credit_limit'))]))
    .returning('id')
    .executeTakeFirst();
  if (row) return;
  const key = await trx.selectFrom('api_keys').select('deleted_at').where('id', '=', keyId).executeTakeFirst();
  if (key && key.deleted_at === null) throw new AppError('KEY_LIMIT_REACHED');
  throw new AppError('UNAUTHENTICATED', { reason: 'invalid_key' });
}

/** Gives back credits a key had counted for work that was released or cost less than its hold. */
export async function returnKeyCredits(trx: Executor, keyId: string, amount: number): Promise<void> {
  if (amount <= 0) return;
  await trx
    .updateTable('api_keys')
    .set((eb) => ({ used: eb('used', '-', amount) }))
    .where('id', '=', keyId)
    .where('used', '>=', amount)
    .execute();
}
