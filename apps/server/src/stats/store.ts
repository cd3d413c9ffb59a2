import type { Kysely } from 'kysely';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import type { Database } from '../platform/db/schema.js';
import { requesterKey, type RateLimiter } from '../platform/rate-limit.js';

export interface ClientEvent {
  type: string;
  event: string;
  os: string;
  accountId: string | null;
  channel: string | null;
  /** A page path or an error message: at most `DETAIL_MAX` characters are kept. */
  detail: string | null;
}

export const DETAIL_MAX = 512;

export interface EventLimits {
  perMinute: number;
  retentionDays: number;
  maxRows: number;
}

export interface EventStoreOptions {
  db: Kysely<Database>;
  /** What counts the per-requester and per-account rates of `limits`. */
  limiter: RateLimiter;
  limits: EventLimits;
}

/**
 * Client events (page views, caught errors …) kept for a while: each one small, posted at a bounded rate
 * per requester and per account, and the table bounded in age and in rows by a sweeper.
 */
export class EventStore {
  private readonly db: Kysely<Database>;
  private readonly limiter: RateLimiter;
  private readonly limits: EventLimits;

  constructor(options: EventStoreOptions) {
    this.db = options.db;
    this.limiter = options.limiter;
    this.limits = options.limits;
  }

  async record(event: ClientEvent, ip: string): Promise<void> {
    for (const key of [`events:ip:${requesterKey(ip)}`, ...(event.accountId ? [`events:acc:${event.accountId}`] : [])]) {
      const wait = await this.limiter.hit(key, this.limits.perMinute, 60);
      if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
    }
    await this.db
      .insertInto('client_events')
      .values({
        id: newId('event'),
        type: event.type,
        event: event.event,
        os: event.os,
        account_id: event.accountId,
        channel: event.channel,
        detail: event.detail === null ? null : event.detail.slice(0, DETAIL_MAX),
        created_at: nowIso(),
      })
      .execute();
  }

  /** Deletes events past their retention, then the oldest beyond the row cap; returns how many went. */
  async prune(now = Date.now()): Promise<number> {
    const cutoff = new Date(now - this.limits.retentionDays * 86_400_000).toISOString();
    const old = await this.db.deleteFrom('client_events').where('created_at', '<', cutoff).executeTakeFirst();
    let removed = Number(old.numDeletedRows);
    const edge = await this.db
      .selectFrom('client_events')
      .select(['created_at', 'id'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(this.limits.maxRows)
      .limit(1)
      .executeTakeFirst();
    if (edge) {
      const over = await this.db
        .deleteFrom('client_events')
        .where((eb) =>
          eb.or([
            eb('created_at', '<', edge.created_at),
            eb.and([eb('created_at', '=', edge.created_at), eb('id', '<=', edge.id)]),
          ]),
        )
        .executeTakeFirst();
      removed += Number(over.numDeletedRows);
    }
    return removed;
  }
}
