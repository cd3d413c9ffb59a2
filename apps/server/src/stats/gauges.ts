import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';

/** States a job row can be in; each is reported, 0 when no row has it, so a series never vanishes. */
const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

/** Jobs by state, read from `synthesis_jobs` when /metrics is scraped (the same in every process). */
export async function jobsByState(db: Kysely<Database>): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('synthesis_jobs')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const out: Record<string, number> = Object.fromEntries(JOB_STATES.map((s) => [s, 0]));
  for (const r of rows) out[r.status] = Number(r.n);
  return out;
}

/** Credits held right now by open holds, across all processes. */
export async function creditsOnHold(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('credit_holds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('total'))
    .where('status', '=', 'held')
    .executeTakeFirstOrThrow();
  return Number(row.total);
}
