/**
 * `npm run bench -- --only usage`: the records page and the statistics with a million records on one
 * account and a million more across ten thousand others, on SQLite and on PostgreSQL. Rows are seeded
 * in bulk by SQL (a recursive series), the way the migration backfills the daily sums; then each query
 * of `UsageService` (the code behind the routes) is timed.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { migrate, openDatabase, type Db } from '../apps/server/src/platform/db/database.ts';
import type { Database } from '../apps/server/src/platform/db/schema.ts';
import { UsageService, type RecordsFilter } from '../apps/server/src/usage/service.ts';
import { RECORD_DAYS_BACKFILL } from '../apps/server/src/platform/db/migrations.ts';
import { median, quantile } from './stats.js';

export interface UsageRow {
  metric: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
}

const HEAVY = 'acc_heavy';
const KEY = 'key_bench1';
const RECORDS = 1_000_000;
const LIGHT_ACCOUNTS = 10_000;
const LIGHT_ROWS = 1_000_000;
const YEAR_S = 365 * 86_400;
/** A records page or a statistics answer should take no longer than this, at a million records. */
const TARGET_MS = 50;

type Dialect = Db['dialect'];

/** Dialect pieces for the seeding SQL: a zero-padded number and an ISO time `s` seconds before now. */
function sqlParts(dialect: Dialect, now: number) {
  const epoch = Math.floor(now / 1000);
  return dialect === 'sqlite'
    ? {
        pad: (e: string) => `printf('%012d', ${e})`,
        at: (s: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${epoch} - (${s}), 'unixepoch')`,
        int: (e: string) => `CAST(${e} AS INTEGER)`,
      }
    : {
        pad: (e: string) => `lpad((${e})::text, 12, '0')`,
        at: (s: string) => `to_char(to_timestamp(${epoch} - (${s})) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
        int: (e: string) => `CAST(${e} AS BIGINT)`,
      };
}

const series = (n: number) => `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n})`;

async function seed(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  const p = sqlParts(dialect, Date.now());
  const now = new Date().toISOString();
  await sql
    .raw(
      `${series(LIGHT_ACCOUNTS)} INSERT INTO accounts (id, referral_code, anonymous, vip_level, credits, channel, created_at, updated_at)
       SELECT 'acc_l' || ${p.pad('i')}, 'ref' || ${p.pad('i')}, 1, 'free', 1000000, 'bench', '${now}', '${now}' FROM s`,
    )
    .execute(db);
  await sql
    .raw(
      `INSERT INTO accounts (id, referral_code, anonymous, vip_level, credits, channel, created_at, updated_at)
       VALUES ('${HEAVY}', 'refheavy', 1, 'free', 100000000, 'bench', '${now}', '${now}')`,
    )
    .execute(db);
  await sql
    .raw(
      `INSERT INTO api_keys (id, account_id, name, secret_hash, prefix, used, requests_per_minute, concurrency, created_at)
       VALUES ('${KEY}', '${HEAVY}', 'bench', 'bench-hash', 'pvx_bench', 0, 60, 4, '${now}')`,
    )
    .execute(db);
  // The heavy account: a million records (settled charges, one in four through a key, one in five
  // hundred a purchase) over a year, each charge with the hold entry that preceded it.
  const spacing = YEAR_S / RECORDS;
  const when = (extra = '0') => p.at(`${p.int(`(${RECORDS} - i) * ${spacing}`)} - ${extra}`);
  await sql
    .raw(
      `${series(RECORDS)} INSERT INTO credit_ledger (id, account_id, kind, amount, balance_after, hold_id, record_type, characters, voice_id, api_key_id, order_id, note, charge, created_at)
       SELECT 'rec_h' || ${p.pad('i')}, '${HEAVY}', 'hold', -30, 50000000, 'hold_' || ${p.pad('i')},
         CASE WHEN i % 4 = 0 THEN 'api' ELSE 'tts' END, NULL, NULL, CASE WHEN i % 4 = 0 THEN '${KEY}' ELSE NULL END, NULL, NULL, NULL, ${when()}
       FROM s WHERE i % 500 <> 0`,
    )
    .execute(db);
  await sql
    .raw(
      `${series(RECORDS)} INSERT INTO credit_ledger (id, account_id, kind, amount, balance_after, hold_id, record_type, characters, voice_id, api_key_id, order_id, note, charge, created_at)
       SELECT 'rec_s' || ${p.pad('i')}, '${HEAVY}',
         CASE WHEN i % 500 = 0 THEN 'purchase' ELSE 'settle' END,
         CASE WHEN i % 500 = 0 THEN 100000 ELSE 5 END, 50000000,
         CASE WHEN i % 500 = 0 THEN NULL ELSE 'hold_' || ${p.pad('i')} END,
         CASE WHEN i % 500 = 0 THEN 'purchase' WHEN i % 4 = 0 THEN 'api' ELSE 'tts' END,
         25, 'voice_flite.slt', CASE WHEN i % 4 = 0 AND i % 500 <> 0 THEN '${KEY}' ELSE NULL END,
         CASE WHEN i % 500 = 0 THEN 'ord_' || ${p.pad('i')} ELSE NULL END, NULL,
         CASE WHEN i % 500 = 0 THEN NULL ELSE 25 END, ${when('1')}
       FROM s`,
    )
    .execute(db);
  // A million more across ten thousand accounts: holds and their settlements.
  await sql
    .raw(
      `${series(LIGHT_ROWS)} INSERT INTO credit_ledger (id, account_id, kind, amount, balance_after, hold_id, record_type, characters, voice_id, api_key_id, order_id, note, charge, created_at)
       SELECT 'rec_l' || ${p.pad('i')}, 'acc_l' || ${p.pad(`i % ${LIGHT_ACCOUNTS} + 1`)},
         CASE WHEN i % 2 = 0 THEN 'settle' ELSE 'hold' END, CASE WHEN i % 2 = 0 THEN 3 ELSE -12 END, 900000,
         'hold_l' || ${p.pad('(i + 1) / 2')}, 'tts', 9, 'voice_flite.slt', NULL, NULL, NULL,
         CASE WHEN i % 2 = 0 THEN 9 ELSE NULL END, ${p.at(`${p.int(`(${LIGHT_ROWS} - i) * ${YEAR_S / LIGHT_ROWS}`)}`)}
       FROM s`,
    )
    .execute(db);
  // The daily counts, as migration 0007 backfills them from the ledger.
  await sql.raw(RECORD_DAYS_BACKFILL).execute(db);
  // What autovacuum (PostgreSQL) and ANALYZE would have done on a live database.
  await sql.raw(dialect === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE').execute(db);
}

async function timed(rounds: number, fn: () => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < 2; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { median: median(ms), p95: quantile(ms, 0.95) };
}

async function openBench(dialect: Dialect): Promise<{ db: Db; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-usage-bench-'));
    const db = openDatabase({ dataDir: dir });
    return { db, drop: () => fs.rm(dir, { recursive: true, force: true }) };
  }
  const admin = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `polyvox_usage_bench_${process.pid}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name}`);
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const db = openDatabase({ databaseUrl: url.toString(), dataDir: os.tmpdir() });
  return {
    db,
    drop: async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

export async function usageRows(dialects: Dialect[] = ['sqlite', 'postgres'], rounds = 20): Promise<UsageRow[]> {
  const rows: UsageRow[] = [];
  for (const dialect of dialects) {
    const { db, drop } = await openBench(dialect);
    try {
      await migrate(db);
      const t0 = performance.now();
      await seed(db.kysely, dialect);
      const total = await db.kysely
        .selectFrom('credit_ledger')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      rows.push({ metric: `usage ${dialect}: seed ledger rows`, value: Number(total.n), unit: 'rows' });
      rows.push({ metric: `usage ${dialect}: seed time`, value: (performance.now() - t0) / 1000, unit: 's' });
      const usage = new UsageService({ db: db.kysely });
      const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
      const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
      const page = (f: Partial<RecordsFilter>): RecordsFilter => ({ page: 1, page_size: 20, ...f });
      const light = 'acc_l000000004242';
      const cases: [string, () => Promise<unknown>][] = [
        ['records, 1M on the account, page 1 (with total)', () => usage.records(HEAVY, page({}))],
        ['records, 1M, page 1000', () => usage.records(HEAVY, page({ page: 1000 }))],
        ['records, 1M, type=api', () => usage.records(HEAVY, page({ type: 'api' }))],
        ['records, 1M, api_key filter', () => usage.records(HEAVY, page({ api_key: KEY }))],
        ['records, 1M, from a month ago to a week ago', () => usage.records(HEAVY, page({ from: monthAgo, to: weekAgo }))],
        [
          'records, 1M, from/to as times (part-days counted in the ledger)',
          () => usage.records(HEAVY, page({ from: `${monthAgo}T12:34:56Z`, to: `${weekAgo}T08:00:00Z` })),
        ],
        ['records, 1M, page 50000 (the last page: offset 999,980)', () => usage.records(HEAVY, page({ page: 50_000 }))],
        ['records, 1M, from one month, type=purchase', () => usage.records(HEAVY, page({ from: monthAgo, type: 'purchase' }))],
        ['records, one of 10k accounts (1M rows across)', () => usage.records(light, page({}))],
        ['day_credits days=30, 1M account', () => usage.dayCredits(HEAVY, 30)],
        ['day_credits days=365, 1M account', () => usage.dayCredits(HEAVY, 365)],
        ['current, 1M account', () => usage.current(HEAVY)],
        ['current, one of 10k accounts', () => usage.current(light)],
      ];
      for (const [name, fn] of cases) {
        const { median: ms, p95 } = await timed(rounds, fn);
        rows.push({
          metric: `usage ${dialect}: ${name} (median; p95 ${p95.toFixed(1)} ms)`,
          value: ms,
          unit: 'ms',
          target: `≤ ${TARGET_MS} ms`,
          pass: ms <= TARGET_MS,
        });
      }
      // The answers are real: the heavy account's total is its million records.
      const check = await usage.records(HEAVY, page({}));
      if (check.total !== RECORDS) throw new Error(`expected ${RECORDS} records, found ${check.total}`);
    } finally {
      await db.close();
      await drop();
    }
  }
  return rows;
}
