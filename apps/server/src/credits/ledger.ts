import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Database } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/database.js';

export type LedgerKind = 'grant' | 'hold' | 'settle' | 'release' | 'purchase' | 'refund' | 'charge';
type Executor = Kysely<Database> | Transaction<Database>;

/**
 * The entries a user sees as records: settled charges, grants, purchases, refunds. Holds and releases
 * are internal. Each record is also counted in `record_days` here, in its own transaction.
 */
export const RECORD_KINDS: ReadonlySet<string> = new Set(['settle', 'grant', 'purchase', 'refund']);

async function countRecord(
  trx: Executor,
  accountId: string,
  day: string,
  type: string,
  apiKeyId: string,
  call: boolean,
  credits: number,
): Promise<void> {
  const calls = call ? 1 : 0;
  await trx
    .insertInto('record_days')
    .values({ account_id: accountId, day, type, api_key_id: apiKeyId, records: 1, calls, credits })
    .onConflict((oc) =>
      oc.columns(['account_id', 'day', 'type', 'api_key_id']).doUpdateSet((eb) => ({
        records: eb('record_days.records', '+', 1),
        calls: eb('record_days.calls', '+', calls),
        credits: eb('record_days.credits', '+', credits),
      })),
    )
    .execute();
}

export interface EntryDetails {
  record_type?: string | null;
  characters?: number | null;
  voice_id?: string | null;
  api_key_id?: string | null;
  order_id?: string | null;
  hold_id?: string | null;
  note?: string | null;
  /** On a settle entry: what the settled work cost. */
  charge?: number | null;
}

/**
 * The only code that changes a balance: one conditional UPDATE (never below zero) and one appended
 * ledger entry, always inside the caller's transaction, so the balance is the sum of the entries.
 */
export async function applyEntry(
  trx: Executor,
  accountId: string,
  kind: LedgerKind,
  amount: number,
  details: EntryDetails = {},
): Promise<number> {
  const updated = await trx
    .updateTable('accounts')
    .set((eb) => ({ credits: eb('credits', '+', amount), updated_at: nowIso() }))
    .where('id', '=', accountId)
    .where((eb) => eb(eb('credits', '+', amount), '>=', 0))
    .returning('credits')
    .executeTakeFirst();
  if (!updated) {
    const exists = await trx.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
    throw new AppError(exists ? 'INSUFFICIENT_BALANCE' : 'NOT_FOUND');
  }
  const balance = Number(updated.credits);
  const createdAt = nowIso();
  await trx
    .insertInto('credit_ledger')
    .values({
      id: newId('record'),
      account_id: accountId,
      kind,
      amount,
      balance_after: balance,
      hold_id: details.hold_id ?? null,
      record_type: details.record_type ?? null,
      characters: details.characters ?? null,
      voice_id: details.voice_id ?? null,
      api_key_id: details.api_key_id ?? null,
      order_id: details.order_id ?? null,
      note: details.note ?? null,
      charge: details.charge ?? null,
      created_at: createdAt,
    })
    .execute();
  if (RECORD_KINDS.has(kind)) {
    const charged = kind === 'settle' ? (details.charge ?? 0) : 0;
    await countRecord(
      trx,
      accountId,
      createdAt.slice(0, 10),
      details.record_type ?? kind,
      details.api_key_id ?? '',
      kind === 'settle',
      charged,
    );
  }
  return balance;
}
