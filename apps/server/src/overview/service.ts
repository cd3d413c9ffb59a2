import { sql, type Kysely } from 'kysely';
import type { OverviewResponse } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { speechStatsBetween } from './speech-stats.js';

const DAY_MS = 86_400_000;
/** At most this many days in one overview. */
export const MAX_DAYS = 366;

/** The routes that speak: their errors and latency are the overview's "speech routes". */
export function isSpeechRoute(method: string, route: string): boolean {
  if (method !== 'POST') return false;
  return (
    route === '/tts' ||
    route === '/tts/jobs' ||
    route === '/v1/audio/speech' ||
    route.startsWith('/v1/text-to-speech/') ||
    route.startsWith('/v1/text-to-dialogue')
  );
}

/** What the overview reads besides the database: the engines, and (ROLE=api) the queues and their workers. */
export interface EngineHealth {
  started: boolean;
  ready(): boolean;
  /** The models and what is wrong, once the catalogue is loaded; null while it is not. */
  snapshot(): Promise<Pick<OverviewResponse['engines_health'], 'models' | 'unavailable' | 'problems'> | null>;
}
export interface QueueHealth {
  depth(): Promise<Record<string, number>>;
  workers(): Promise<number>;
}

export interface OverviewOptions {
  db: Kysely<Database>;
  role: string;
  engines: EngineHealth;
  queues: QueueHealth | null;
  /** The clock (tests inject one). */
  now?: () => number;
  /** This process's speech counts not yet written: flushed before the overview reads them. */
  speechStats?: { flush(): Promise<void> };
}

const n = (v: unknown) => Number(v ?? 0);

/**
 * The business at a glance over a range of UTC days: every figure from one grouped query over an indexed range
 * (orders by `paid_at` and `created_at`, accounts by `created_at`, the daily record counts by day, the few money
 * entries of the ledger by a partial index, the provenance records by `created_at`), on either database.
 */
export class OverviewService {
  private readonly db: Kysely<Database>;
  private readonly options: OverviewOptions;
  private readonly now: () => number;

  constructor(options: OverviewOptions) {
    this.db = options.db;
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** The range asked for: `to` defaults to today, `from` to 29 days before it; at most MAX_DAYS days. */
  range(from?: string, to?: string): { from: string; to: string; lo: string; hi: string } {
    const last = to ?? new Date(this.now()).toISOString().slice(0, 10);
    const first = from ?? new Date(Date.parse(`${last}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
    const lo = Date.parse(`${first}T00:00:00Z`);
    const hi = Date.parse(`${last}T00:00:00Z`) + DAY_MS;
    if (hi <= lo) throw new AppError('VALIDATION_FAILED', { field: 'from', rule: 'must not be after `to`' });
    if ((hi - lo) / DAY_MS > MAX_DAYS)
      throw new AppError('VALIDATION_FAILED', { field: 'from', rule: `must be at most ${MAX_DAYS} days before \`to\`` });
    return { from: first, to: last, lo: new Date(lo).toISOString(), hi: new Date(hi).toISOString() };
  }

  async overview(fromDay?: string, toDay?: string): Promise<OverviewResponse> {
    const { from, to, lo, hi } = this.range(fromDay, toDay);
    const db = this.db;
    const day = (column: string) => sql<string>`substr(${sql.ref(column)}, 1, 10)`;
    const [revenue, statuses, created, active, engines, money, spent, speech, queues, health] = await Promise.all([
      db
        .selectFrom('orders')
        .select((eb) => [
          day('paid_at').as('day'),
          'currency',
          eb.fn.coalesce('method', eb.val('unknown')).as('method'),
          eb.fn.sum<number>('amount').as('amount'),
          eb.fn.countAll<number>().as('orders'),
        ])
        .where('paid_at', '>=', lo)
        .where('paid_at', '<', hi)
        .groupBy([day('paid_at'), 'currency', 'method'])
        .orderBy('day')
        .execute(),
      db
        .selectFrom('orders')
        .select((eb) => ['status', eb.fn.countAll<number>().as('orders')])
        .where('created_at', '>=', lo)
        .where('created_at', '<', hi)
        .groupBy('status')
        .orderBy('status')
        .execute(),
      db
        .selectFrom('accounts')
        .select((eb) => [
          day('created_at').as('day'),
          eb.fn.countAll<number>().as('new_accounts'),
          eb.fn.sum<number>(eb.case().when('anonymous', '=', 0).then(1).else(0).end()).as('new_registered'),
        ])
        .where('created_at', '>=', lo)
        .where('created_at', '<', hi)
        .groupBy(day('created_at'))
        .execute(),
      // Active: an account that used the service that day (any record but money coming in).
      db
        .selectFrom('record_days')
        .select((eb) => ['day', eb.fn.count<number>('account_id').distinct().as('active')])
        .where('day', '>=', from)
        .where('day', '<=', to)
        .where('type', 'not in', ['grant', 'purchase', 'refund'])
        .groupBy('day')
        .execute(),
      // Each piece of audio that left has its provenance record; the settle entry of its hold says its characters.
      sql<{ day: string; engine: string; syntheses: number; characters: number }>`
        SELECT substr(m.created_at, 1, 10) AS day, m.engine AS engine, count(*) AS syntheses,
          coalesce(sum(l.characters), 0) AS characters
        FROM content_marks m
        LEFT JOIN credit_ledger l ON l.hold_id = m.hold_id AND l.kind = 'settle'
        WHERE m.created_at >= ${lo} AND m.created_at < ${hi}
        GROUP BY substr(m.created_at, 1, 10), m.engine
        ORDER BY day, engine`.execute(db),
      // The condition written out, as the partial index states it (SQLite uses it only so).
      sql<{ day: string; kind: string; positive: number; negative: number }>`
        SELECT substr(created_at, 1, 10) AS day, kind,
          coalesce(sum(CASE WHEN amount > 0 THEN amount ELSE 0 END), 0) AS positive,
          coalesce(sum(CASE WHEN amount < 0 THEN amount ELSE 0 END), 0) AS negative
        FROM credit_ledger
        WHERE kind IN ('grant', 'purchase', 'refund') AND created_at >= ${lo} AND created_at < ${hi}
        GROUP BY substr(created_at, 1, 10), kind`.execute(db),
      db
        .selectFrom('record_days')
        .select((eb) => ['day', eb.fn.sum<number>('credits').as('spent')])
        .where('day', '>=', from)
        .where('day', '<=', to)
        .groupBy('day')
        .execute(),
      this.speech(lo, hi),
      this.queues(),
      this.health(),
    ]);

    const accounts = new Map<string, { day: string; new_accounts: number; new_registered: number; active: number }>();
    const accountDay = (d: string) => {
      let row = accounts.get(d);
      if (!row) accounts.set(d, (row = { day: d, new_accounts: 0, new_registered: 0, active: 0 }));
      return row;
    };
    for (const r of created)
      Object.assign(accountDay(r.day), { new_accounts: n(r.new_accounts), new_registered: n(r.new_registered) });
    for (const r of active) accountDay(r.day).active = n(r.active);

    const credits = new Map<
      string,
      { day: string; granted: number; deducted: number; bought: number; spent: number; refunded: number }
    >();
    const creditDay = (d: string) => {
      let row = credits.get(d);
      if (!row) credits.set(d, (row = { day: d, granted: 0, deducted: 0, bought: 0, spent: 0, refunded: 0 }));
      return row;
    };
    for (const r of money.rows) {
      const row = creditDay(r.day);
      if (r.kind === 'grant') {
        row.granted += n(r.positive);
        row.deducted += -n(r.negative);
      } else if (r.kind === 'purchase') row.bought += n(r.positive);
      // A refund takes credits back (negative); a refund whose money did not go out returns them (positive).
      else row.refunded += -n(r.negative) - n(r.positive);
    }
    for (const r of spent) if (n(r.spent) > 0) creditDay(r.day).spent = n(r.spent);

    const byDay = <T extends { day: string }>(rows: Iterable<T>) => [...rows].sort((a, b) => a.day.localeCompare(b.day));
    return {
      from,
      to,
      revenue: revenue.map((r) => ({
        day: r.day,
        currency: r.currency,
        method: String(r.method),
        amount: n(r.amount),
        orders: n(r.orders),
      })),
      orders_by_status: statuses.map((r) => ({ status: r.status, orders: n(r.orders) })),
      accounts: byDay(accounts.values()),
      engines: engines.rows.map((r) => ({
        day: r.day,
        engine: r.engine,
        syntheses: n(r.syntheses),
        characters: n(r.characters),
      })),
      credits: byDay(credits.values()),
      speech: {
        ...speech,
        error_rate: speech.requests ? speech.server_errors / speech.requests : 0,
        scope: 'range',
        since: lo,
      },
      queues,
      engines_health: health,
    };
  }

  /** The speech routes over the range, every process's hourly counts (this one's first written). */
  private async speech(lo: string, hi: string) {
    await this.options.speechStats?.flush().catch(() => undefined);
    return speechStatsBetween(this.db, lo, hi);
  }

  private async queues(): Promise<OverviewResponse['queues']> {
    const q = this.options.queues;
    if (!q) return { role: this.options.role, depth: null, workers: null };
    const [depth, workers] = await Promise.all([q.depth().catch(() => null), q.workers().catch(() => null)]);
    return { role: this.options.role, depth, workers };
  }

  private async health(): Promise<OverviewResponse['engines_health']> {
    const e = this.options.engines;
    const snapshot = e.started ? await e.snapshot().catch(() => null) : null;
    return {
      started: e.started,
      ready: e.ready(),
      models: snapshot?.models ?? [],
      unavailable: snapshot?.unavailable ?? [],
      problems: snapshot?.problems ?? [],
    };
  }
}
