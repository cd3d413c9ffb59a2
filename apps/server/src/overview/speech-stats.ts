import type { Kysely } from 'kysely';
import type { Database, SpeechRouteHoursTable } from '../platform/db/schema.js';

/** The latency buckets' upper bounds in seconds (the request histogram's); a 13th bucket holds what is past the last. */
export const LATENCY_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;
const BUCKETS = LATENCY_BOUNDS.length + 1;
type LatencyColumn = `lat_${number}` & keyof SpeechRouteHoursTable;
const latencyColumn = (i: number) => `lat_${i}` as LatencyColumn;

/** The speech routes over a range: requests, errors, and the 95th percentile of their time. */
export interface SpeechStats {
  requests: number;
  client_errors: number;
  server_errors: number;
  /** Interpolated within the histogram's buckets (as Prometheus' `histogram_quantile`); null without requests. */
  p95_seconds: number | null;
}

interface HourCounts {
  requests: number;
  client_errors: number;
  server_errors: number;
  latency: number[];
}

const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);

/**
 * Counts the speech routes' answers of this process per UTC hour in memory and adds them to `speech_route_hours` every
 * `flushMs` (and at close): an upsert that adds, so every process (and every restart) adds to the same rows. A flush
 * the database refuses keeps its counts for the next one.
 */
export class SpeechStatsRecorder {
  private pending = new Map<string, HourCounts>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  record(status: number, seconds: number): void {
    const hour = hourOf(this.now());
    let counts = this.pending.get(hour);
    if (!counts) this.pending.set(hour, (counts = newCounts()));
    counts.requests += 1;
    if (status >= 500) counts.server_errors += 1;
    else if (status >= 400) counts.client_errors += 1;
    const bucket = LATENCY_BOUNDS.findIndex((bound) => seconds <= bound);
    counts.latency[bucket === -1 ? BUCKETS - 1 : bucket]! += 1;
  }

  /** Writes what was counted since the last flush (one flush at a time). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    for (const [hour, counts] of batch) {
      try {
        await this.add(hour, counts);
      } catch (error) {
        merge(this.pending, hour, counts);
        throw error;
      }
    }
  }

  private async add(hour: string, c: HourCounts): Promise<void> {
    const latency = Object.fromEntries(c.latency.map((n, i) => [latencyColumn(i), n]));
    await this.db
      .insertInto('speech_route_hours')
      .values({
        hour,
        requests: c.requests,
        client_errors: c.client_errors,
        server_errors: c.server_errors,
        ...latency,
      } as SpeechRouteHoursTable)
      .onConflict((oc) =>
        oc.column('hour').doUpdateSet((eb) => {
          const add = (col: keyof SpeechRouteHoursTable & string) =>
            eb(
              eb.ref(`speech_route_hours.${col}` as 'speech_route_hours.requests'),
              '+',
              eb.ref(`excluded.${col}` as 'excluded.requests'),
            );
          const set: Record<string, unknown> = {
            requests: add('requests'),
            client_errors: add('client_errors'),
            server_errors: add('server_errors'),
          };
          for (let i = 0; i < BUCKETS; i++) set[latencyColumn(i)] = add(latencyColumn(i));
          return set as never;
        }),
      )
      .execute();
  }

  /** Flushes every `flushMs` until the returned function is called (which flushes once more). */
  start(flushMs: number, onError: (error: unknown) => void): () => Promise<void> {
    this.timer = setInterval(() => void this.flush().catch(onError), flushMs);
    this.timer.unref();
    return async () => {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      await this.flush().catch(onError);
    };
  }
}

function newCounts(): HourCounts {
  return { requests: 0, client_errors: 0, server_errors: 0, latency: new Array<number>(BUCKETS).fill(0) };
}

function merge(into: Map<string, HourCounts>, hour: string, c: HourCounts): void {
  let counts = into.get(hour);
  if (!counts) into.set(hour, (counts = newCounts()));
  counts.requests += c.requests;
  counts.client_errors += c.client_errors;
  counts.server_errors += c.server_errors;
  c.latency.forEach((n, i) => (counts.latency[i]! += n));
}

/** The speech routes between two ISO times (hours from `lo`'s, to `hi`'s exclusive), summed over every process. */
export async function speechStatsBetween(db: Kysely<Database>, lo: string, hi: string): Promise<SpeechStats> {
  const row = await db
    .selectFrom('speech_route_hours')
    .select((eb) => [
      eb.fn.sum<number>('requests').as('requests'),
      eb.fn.sum<number>('client_errors').as('client_errors'),
      eb.fn.sum<number>('server_errors').as('server_errors'),
      ...Array.from({ length: BUCKETS }, (_, i) => eb.fn.sum<number>(latencyColumn(i)).as(latencyColumn(i))),
    ])
    .where('hour', '>=', lo.slice(0, 13))
    .where('hour', '<', hi.slice(0, 13))
    .executeTakeFirst();
  const r = (row ?? {}) as Record<string, unknown>;
  const n = (v: unknown) => Number(v ?? 0);
  const out: SpeechStats = {
    requests: n(r.requests),
    client_errors: n(r.client_errors),
    server_errors: n(r.server_errors),
    p95_seconds: null,
  };
  if (out.requests === 0) return out;
  out.p95_seconds = quantile(
    0.95,
    Array.from({ length: BUCKETS }, (_, i) => n(r[latencyColumn(i)])),
  );
  return out;
}

/** The q-quantile of a histogram (counts per bucket of LATENCY_BOUNDS, then past them), linear within a bucket. */
export function quantile(q: number, counts: readonly number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  const rank = q * total;
  let below = 0;
  let lower = 0;
  for (let i = 0; i < LATENCY_BOUNDS.length; i++) {
    const bound = LATENCY_BOUNDS[i]!;
    const inBucket = counts[i] ?? 0;
    if (below + inBucket >= rank && inBucket > 0) return lower + ((bound - lower) * (rank - below)) / inBucket;
    below += inBucket;
    lower = bound;
  }
  // Past the largest bound: that bound is all that is known.
  return lower;
}
