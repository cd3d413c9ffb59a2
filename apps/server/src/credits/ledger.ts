import { sql, type Kysely, type Transaction } from 'kysely';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Database } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/database.js';

export type LedgerKind = 'grant' | 'hold' | 'settle' | 'release' | 'purchase' | 'refund' | 'charge';
type Executor = Kysely<Database> | Transaction<Database>;

/**
 * The entries a user sees as records: settled charges, activation fees (`charge`), grants, purchases, refunds.
 * Holds and releases are internal. Each record is also counted in `record_days` here, in its own transaction.
 */
export const RECORD_KINDS: ReadonlySet<string> = new Set(['settle', 'charge', 'grant', 'purchase', 'refund']);

/** What an entry changes in the balance the records show: a settlement its charge, a hold or release nothing. */
export function recordDelta(kind: LedgerKind, amount: number, charge: number | null | undefined): number {
  if (kind === 'settle') return -(charge ?? 0);
  return RECORD_KINDS.has(kind) ? amount : 0;
}

/**
 * The time of an account's next entry, in the UPDATE that applies it: now, or 1 ms after the account's last entry,
 * so the account's entries sort by time in the order the ledger applied them, even when they come in one millisecond.
 */
export const nextEntryMs = (ms: number) =>
  sql<number>`CASE WHEN entry_ms + 1 > CAST(${ms} AS bigint) THEN entry_ms + 1 ELSE CAST(${ms} AS bigint) END`;

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
  /** An operator's grant or deduction: the reason, which the user sees with the record. */
  reason?: string | null;
}

/**
 * The only code that changes a balance: one conditional UPDATE (never below zero) and one appended
 * ledger entry, always inside the caller's transaction, so the balance is the sum of the entries.
 * A record's `balance_after` is the account's records balance after it (`records_balance`: the balance with
 * open holds counted back in), so each record's balance is the one before it plus its own amount, in the order
 * the ledger applied them, however many holds were open at the time; a hold or release keeps the real balance.
 */
export async function applyEntry(
  trx: Executor,
  accountId: string,
  kind: LedgerKind,
  amount: number,
  details: EntryDetails = {},
): Promise<number> {
  const delta = recordDelta(kind, amount, details.charge);
  const updated = await trx
    .updateTable('accounts')
    .set((eb) => ({
      credits: eb('credits', '+', amount),
      records_balance: eb('records_balance', '+', delta),
      entry_ms: nextEntryMs(Date.now()),
      updated_at: nowIso(),
    }))
    .where('id', '=', accountId)
    .where((eb) => eb(eb('credits', '+', amount), '>=', 0))
    // A disabled account takes no new hold (nor a swept one again): its work stops, its credits stay free.
    .$if(kind === 'hold', (q) => q.where('status', '=', 'active'))
    .returning(['credits', 'records_balance', 'entry_ms'])
    .executeTakeFirst();
  if (!updated) {
    const account = await trx.selectFrom('accounts').select('status').where('id', '=', accountId).executeTakeFirst();
    if (!account) throw new AppError('NOT_FOUND');
    throw new AppError(kind === 'hold' && account.status !== 'active' ? 'ACCOUNT_DISABLED' : 'INSUFFICIENT_BALANCE');
  }
  const balance = Number(updated.credits);
  const isRecord = RECORD_KINDS.has(kind);
  const createdAt = new Date(Number(updated.entry_ms)).toISOString();
  await trx
    .insertInto('credit_ledger')
    .values({
      id: newId('record'),
      account_id: accountId,
      kind,
      amount,
      balance_after: isRecord ? Number(updated.records_balance) : balance,
      hold_id: details.hold_id ?? null,
      record_type: details.record_type ?? null,
      characters: details.characters ?? null,
      voice_id: details.voice_id ?? null,
      api_key_id: details.api_key_id ?? null,
      order_id: details.order_id ?? null,
      note: details.note ?? null,
      charge: details.charge ?? null,
      created_at: createdAt,
      reason: details.reason ?? null,
    })
    .execute();
  if (isRecord) {
    const charged = kind === 'settle' ? (details.charge ?? 0) : kind === 'charge' ? -amount : 0;
    const apiKeyId = details.api_key_id ?? '';
    await countRecord(
      trx,
      accountId,
      createdAt.slice(0, 10),
      details.record_type ?? kind,
      apiKeyId,
      // A call is work done through an API key; the console's own use is charged but is no API call.
      kind === 'settle' && apiKeyId !== '',
      charged,
    );
  }
  return balance;
}
