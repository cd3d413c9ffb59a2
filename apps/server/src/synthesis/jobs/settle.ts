import type { Kysely } from 'kysely';
import { isAppError } from '../../platform/errors.js';
import type { Storage } from '../../platform/storage.js';
import type { Database, SynthesisJobsTable } from '../../platform/db/schema.js';
import type { CreditsService } from '../../credits/service.js';
import { deleteJobFiles, synthesisJob } from './synthesis.js';
import { safeJson } from './view.js';

/** What settling finished jobs needs: the rows, the holds, the audio, and which jobs run in this process. */
interface SettleDeps {
  db: Kysely<Database>;
  credits: CreditsService;
  storage: Storage;
  runner: { isRunning(id: string): boolean };
}

/**
 * A job recorded as succeeded whose hold is still open (its process died between the two) is settled;
 * one whose hold was swept meanwhile is paid again or withdrawn. `graceMs` leaves a live process the
 * moment between its two writes. Returns how many were closed.
 */
export async function settleFinishedJobs(deps: SettleDeps, graceMs: number): Promise<number> {
  const { db, credits, runner } = deps;
  const rows = await db
    .selectFrom('synthesis_jobs as j')
    .innerJoin('credit_holds as h', 'h.id', 'j.hold_id')
    .selectAll('j')
    .where('j.status', '=', 'succeeded')
    .where('h.status', 'in', ['held', 'released'])
    .where('j.finished_at', '<', new Date(Date.now() - graceMs).toISOString())
    .limit(100)
    .execute();
  let closed = 0;
  for (const row of rows) {
    if (runner.isRunning(row.id)) continue;
    const hold = await credits.holdStatus(row.hold_id);
    if (hold === 'released' && !(await reclaimOrWithdraw(deps, row))) continue;
    // Its payload only names the charge's details: a payload that is not valid settles with the row's alone.
    const checked = row.request ? synthesisJob.payload.safeParse(safeJson(row.request)) : null;
    const charge = checked?.success ? checked.data : null;
    const details = {
      characters: Number(row.characters),
      record_type: charge?.charge.recordType ?? 'tts',
      ...(charge ? { voice_id: charge.voiceId, api_key_id: charge.charge.apiKeyId ?? null } : {}),
    };
    if (await credits.settle(row.hold_id, Number(row.credits), details)) closed += 1;
  }
  return closed;
}

/** Audio whose hold was swept is paid for again, or withdrawn: never reachable for free. */
async function reclaimOrWithdraw(deps: SettleDeps, row: SynthesisJobsTable): Promise<boolean> {
  const { db, credits, storage } = deps;
  try {
    return await credits.reclaim(row.hold_id);
  } catch (e) {
    if (!isAppError(e) || e.code !== 'INSUFFICIENT_BALANCE') throw e;
    if (row.storage_key) await deleteJobFiles(storage, row.storage_key);
    await db
      .updateTable('synthesis_jobs')
      .set({ status: 'failed', storage_key: null, error_code: 'INSUFFICIENT_BALANCE', error_params: '{}' })
      .where('id', '=', row.id)
      .execute();
    return false;
  }
}
