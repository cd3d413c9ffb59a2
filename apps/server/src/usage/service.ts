import type { Kysely } from 'kysely';
import { RECORD_TYPES, type CreditRecord, type RecordType } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';

/**
 * The ledger entries a user calls records: settled charges (shown as what the work cost), grants,
 * purchases and refunds. A hold and its release are internal: the price held while work runs is visible
 * only in the balance, and the charge appears once, when the work is settled.
 */
export const RECORD_KINDS = ['settle', 'grant', 'purchase', 'refund'] as const;

const TYPES = new Set<string>(RECORD_TYPES);
const DAY_MS = 86_400_000;

export interface RecordsFilter {
  page: number;
  page_size: number;
  type?: RecordType;
  from?: string;
  to?: string;
  api_key?: string;
}

/** A `from` bound: a day starts at its midnight (UTC). */
export function lowerBound(value: string): string {
  return new Date(value.length === 10 ? `${value}T00:00:00Z` : value).toISOString();
}
/** A `to` bound, exclusive: a day includes all of itself. */
export function upperBound(value: string): string {
  if (value.length === 10) return new Date(Date.parse(`${value}T00:00:00Z`) + DAY_MS).toISOString();
  return new Date(Date.parse(value) + 1).toISOString();
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Records and statistics: read-only views of the ledger and of the per-day usage kept beside it. */
export class UsageService {
  constructor(private readonly db: Kysely<Database>) {}

  async records(accountId: string, f: RecordsFilter): Promise<{ items: CreditRecord[]; total: number }> {
    let where = this.db
      .selectFrom('credit_ledger')
      .where('account_id', '=', accountId)
      .where('kind', 'in', [...RECORD_KINDS]);
    if (f.type) where = where.where('record_type', '=', f.type);
    if (f.from) where = where.where('created_at', '>=', lowerBound(f.from));
    if (f.to) where = where.where('created_at', '<', upperBound(f.to));
    // Filtered within the account: another account's key id simply matches nothing.
    if (f.api_key) where = where.where('api_key_id', '=', f.api_key);
    const [rows, count] = await Promise.all([
      where
        .select([
          'id',
          'kind',
          'record_type',
          'amount',
          'charge',
          'balance_after',
          'characters',
          'voice_id',
          'api_key_id',
          'order_id',
          'created_at',
        ])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(f.page_size)
        .offset((f.page - 1) * f.page_size)
        .execute(),
      where.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const items = rows.map((r) => {
      const type = (
        r.record_type && TYPES.has(r.record_type) ? r.record_type : r.kind === 'settle' ? 'tts' : r.kind
      ) as RecordType;
      return {
        id: r.id,
        type,
        amount: r.kind === 'settle' ? -Number(r.charge ?? 0) : Number(r.amount),
        balance_after: Number(r.balance_after),
        characters: r.characters === null ? null : Number(r.characters),
        voice_id: r.voice_id,
        api_key_id: r.api_key_id,
        order_id: r.order_id,
        created_at: r.created_at,
      };
    });
    return { items, total: Number(count.n) };
  }

  /** Credits charged and calls per UTC day, the last `days` days up to today, missing days as zeros; oldest first. */
  async dayCredits(
    accountId: string,
    days: number,
    now = Date.now(),
  ): Promise<{ day: string; credits: number; calls: number }[]> {
    const first = utcDay(now - (days - 1) * DAY_MS);
    const rows = await this.db
      .selectFrom('usage_daily')
      .select(['day', 'credits', 'calls'])
      .where('account_id', '=', accountId)
      .where('day', '>=', first)
      .execute();
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const items = [];
    for (let i = days - 1; i >= 0; i--) {
      const day = utcDay(now - i * DAY_MS);
      const row = byDay.get(day);
      items.push({ day, credits: Number(row?.credits ?? 0), calls: Number(row?.calls ?? 0) });
    }
    return items;
  }

  async current(
    accountId: string,
    now = Date.now(),
  ): Promise<{ calls_today: number; credits_today: number; calls_total: number }> {
    const today = utcDay(now);
    const [day, total] = await Promise.all([
      this.db
        .selectFrom('usage_daily')
        .select(['credits', 'calls'])
        .where('account_id', '=', accountId)
        .where('day', '=', today)
        .executeTakeFirst(),
      this.db
        .selectFrom('usage_daily')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('calls'), eb.lit(0)).as('calls'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      calls_today: Number(day?.calls ?? 0),
      credits_today: Number(day?.credits ?? 0),
      calls_total: Number(total.calls),
    };
  }
}
