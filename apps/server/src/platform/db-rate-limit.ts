import { sql, type Kysely } from 'kysely';
import type { Database } from './db/schema.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * Fixed-window counters in the database, for limits that must hold across processes when there is no Redis (the
 * text-message limits: each message costs money). One upsert per hit: it opens a new window when the old one has
 * lapsed, else adds one, and answers the window; PostgreSQL locks the row and SQLite has one writer, so two
 * processes counting the same key at once both count. Same semantics as the memory and Redis limiters.
 */
export function databaseRateLimiter(db: Kysely<Database>, prefix = '', now: () => number = Date.now): RateLimiter {
  return {
    async hit(key, limit, windowSeconds) {
      const t = now();
      const ms = windowSeconds * 1000;
      const lapsed = sql`(${t} - rate_windows.start_ms >= ${ms} OR ${t} < rate_windows.start_ms)`;
      const { rows } = await sql<{ start_ms: number | string; count: number | string }>`
        INSERT INTO rate_windows ("key", start_ms, window_ms, "count") VALUES (${prefix + key}, ${t}, ${ms}, 1)
        ON CONFLICT ("key") DO UPDATE SET
          start_ms = CASE WHEN ${lapsed} THEN ${t} ELSE rate_windows.start_ms END,
          window_ms = ${ms},
          "count" = CASE WHEN ${lapsed} THEN 1 ELSE rate_windows."count" + 1 END
        RETURNING start_ms, "count"`.execute(db);
      const row = rows[0]!;
      if (Number(row.count) <= limit) return 0;
      return Math.max(1, Math.ceil((Number(row.start_ms) + ms - t) / 1000));
    },
  };
}

/** Deletes the windows that have lapsed (nobody hit them since); answers how many. */
export async function sweepRateWindows(db: Kysely<Database>, now: number = Date.now()): Promise<number> {
  const result = await db
    .deleteFrom('rate_windows')
    .where(sql<boolean>`start_ms + window_ms < ${now}`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
