import { sql, type Kysely } from 'kysely';
import { RECORD_TYPES, type CreditRecord, type RecordType } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';

/**
 * The ledger entries a user calls records: settled charges (shown as what the work cost), activation fees,
 * grants, purchases and refunds. A hold and its release are internal: the price held while work runs is visible
 * only in the balance, and the charge appears once, when the work is settled. Written out literally, so
 * SQLite sees the partial indexes' own condition (a bound parameter would hide it from the planner).
 */
const IS_RECORD = sql<boolean>`kind IN ('settle', 'grant', 'purchase', 'refund', 'charge')`;

const TYPES = new Set<string>(RECORD_TYPES);
const DAY_MS = 86_400_000;

export interface RecordsFilter {
  page: number;
  page_size: number;
  type?: RecordType | undefined;
  from?: string | undefined;
  to?: string | undefined;
  api_key?: string | undefined;
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

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const midnight = (day: string): string => `${day}T00:00:00.000Z`;
const nextDay = (day: string): string => utcDay(Date.parse(midnight(day)) + DAY_MS);

export interface UsageOptions {
  db: Kysely<Database>;
  /** Pages deeper than this many records start from the day they fall in, found in `record_days`; 1000 when left out. */
  seekAfter?: number;
}

/** Records and statistics: read-only views of the ledger and of the daily counts kept beside it. */
export class UsageService {
  private readonly db: Kysely<Database>;
  private readonly seekAfter: number;

  constructor(options: UsageOptions) {
    this.db = options.db;
    this.seekAfter = options.seekAfter ?? 1000;
  }

  /**
   * Where a deep page starts: OFFSET walks every record before it, so with a million records the last
   * page would read them all. The day counts tell which day the page's first record falls in; the page
   * is then read from that day's end with the small offset left. Null when the plain offset is short.
   */
  private async seek(
    accountId: string,
    f: RecordsFilter,
    lo: string | null,
    hi: string | null,
  ): Promise<{ before: string; offset: number } | null> {
    const offset = (f.page - 1) * f.page_size;
    if (offset <= this.seekAfter) return null;
    const endWhole = hi === null ? null : hi.slice(0, 10);
    // Records of the part-day before `hi` are counted exactly; the whole days before it come from the counts.
    let left = offset;
    if (hi !== null && endWhole !== null && hi !== midnight(endWhole)) {
      const tail = await this.exactCount(accountId, f, lo === null || lo < midnight(endWhole) ? midnight(endWhole) : lo, hi);
      if (left < tail) return null;
      left -= tail;
    }
    let days = this.db
      .selectFrom('record_days')
      .select((eb) => ['day', eb.fn.sum<number>('records').as('n')])
      .where('account_id', '=', accountId);
    if (f.type) days = days.where('type', '=', f.type);
    if (f.api_key) days = days.where('api_key_id', '=', f.api_key);
    if (endWhole !== null) days = days.where('day', '<', endWhole);
    if (lo !== null) days = days.where('day', '>=', lo.slice(0, 10));
    const rows = await days.groupBy('day').orderBy('day', 'desc').execute();
    for (const row of rows) {
      const n = Number(row.n);
      if (left < n) return { before: midnight(nextDay(row.day)), offset: left };
      left -= n;
    }
    return null;
  }

  private ledger(accountId: string, f: Omit<RecordsFilter, 'page' | 'page_size'>, lo: string | null, hi: string | null) {
    let q = this.db.selectFrom('credit_ledger').where('account_id', '=', accountId).where(IS_RECORD);
    if (f.type) q = q.where('record_type', '=', f.type);
    // Filtered within the account: another account's key id simply matches nothing.
    if (f.api_key) q = q.where('api_key_id', '=', f.api_key);
    if (lo !== null) q = q.where('created_at', '>=', lo);
    if (hi !== null) q = q.where('created_at', '<', hi);
    return q;
  }

  private async exactCount(accountId: string, f: RecordsFilter, lo: string | null, hi: string | null): Promise<number> {
    const row = await this.ledger(accountId, f, lo, hi)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * The number of records a filter matches, without counting them one by one: whole days come from
   * `record_days`; only the part-days at the edges of a `from`/`to` given as times are counted in the ledger.
   */
  async total(accountId: string, f: RecordsFilter): Promise<number> {
    const lo = f.from ? lowerBound(f.from) : null;
    const hi = f.to ? upperBound(f.to) : null;
    if (lo !== null && hi !== null && lo >= hi) return 0;
    const firstWhole = lo === null ? null : lo === midnight(lo.slice(0, 10)) ? lo.slice(0, 10) : nextDay(lo.slice(0, 10));
    const endWhole = hi === null ? null : hi.slice(0, 10);
    if (firstWhole !== null && endWhole !== null && firstWhole >= endWhole) return this.exactCount(accountId, f, lo, hi);
    let days = this.db
      .selectFrom('record_days')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('records'), eb.lit(0)).as('n'))
      .where('account_id', '=', accountId);
    if (f.type) days = days.where('type', '=', f.type);
    if (f.api_key) days = days.where('api_key_id', '=', f.api_key);
    if (firstWhole !== null) days = days.where('day', '>=', firstWhole);
    if (endWhole !== null) days = days.where('day', '<', endWhole);
    const [whole, head, tail] = await Promise.all([
      days.executeTakeFirstOrThrow(),
      lo !== null && firstWhole !== null && lo !== midnight(firstWhole)
        ? this.exactCount(accountId, f, lo, midnight(firstWhole))
        : 0,
      hi !== null && endWhole !== null && hi !== midnight(endWhole) ? this.exactCount(accountId, f, midnight(endWhole), hi) : 0,
    ]);
    return Number(whole.n) + head + tail;
  }

  async records(accountId: string, f: RecordsFilter): Promise<{ items: CreditRecord[]; total: number }> {
    const lo = f.from ? lowerBound(f.from) : null;
    const hi = f.to ? upperBound(f.to) : null;
    const start = await this.seek(accountId, f, lo, hi);
    const until = start && (hi === null || start.before < hi) ? start.before : hi;
    const [rows, total] = await Promise.all([
      this.ledger(accountId, f, lo, until)
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
          'reason',
        ])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(f.page_size)
        .offset(start ? start.offset : (f.page - 1) * f.page_size)
        .execute(),
      this.total(accountId, f),
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
        reason: r.reason ?? null,
      };
    });
    return { items, total };
  }

  /** Credits charged and calls per UTC day, the last `days` days up to today, missing days as zeros; oldest first. */
  async dayCredits(
    accountId: string,
    days: number,
    now = Date.now(),
  ): Promise<{ day: string; credits: number; calls: number }[]> {
    const first = utcDay(now - (days - 1) * DAY_MS);
    const rows = await this.db
      .selectFrom('record_days')
      .select((eb) => ['day', eb.fn.sum<number>('credits').as('credits'), eb.fn.sum<number>('calls').as('calls')])
      .where('account_id', '=', accountId)
      .where('day', '>=', first)
      .groupBy('day')
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
    const sums = (day?: string) => {
      let q = this.db
        .selectFrom('record_days')
        .select((eb) => [
          eb.fn.coalesce(eb.fn.sum<number>('calls'), eb.lit(0)).as('calls'),
          eb.fn.coalesce(eb.fn.sum<number>('credits'), eb.lit(0)).as('credits'),
        ])
        .where('account_id', '=', accountId);
      if (day) q = q.where('day', '=', day);
      return q.executeTakeFirstOrThrow();
    };
    const [today, all] = await Promise.all([sums(utcDay(now)), sums()]);
    return {
      calls_today: Number(today.calls),
      credits_today: Number(today.credits),
      calls_total: Number(all.calls),
    };
  }
}
