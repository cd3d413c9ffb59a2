import type { Kysely } from 'kysely';
import type { Storage } from '../../platform/storage.js';
import type { Database } from '../../platform/db/schema.js';
import { deleteJobFiles, JOB_FOLDER, jobOfKey } from './synthesis.js';

/** Deletes finished jobs past their time with their audio, and any job file no row refers to. */
export async function sweepJobs(db: Kysely<Database>, storage: Storage, now = new Date()): Promise<number> {
  const expired = await db
    .selectFrom('synthesis_jobs')
    .select(['id', 'storage_key'])
    .where('status', 'in', ['succeeded', 'failed', 'cancelled'])
    .where('expires_at', '<', now.toISOString())
    .execute();
  for (const row of expired) {
    if (row.storage_key) await deleteJobFiles(storage, row.storage_key);
    await db.deleteFrom('synthesis_jobs').where('id', '=', row.id).execute();
  }
  let removed = expired.length;
  const files = (await storage.list(JOB_FOLDER)).filter((key) => !key.includes('.tmp-'));
  if (files.length > 0) {
    const ids = files.map(jobOfKey);
    const known = new Set((await db.selectFrom('synthesis_jobs').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
    for (const [i, key] of files.entries()) {
      if (known.has(ids[i]!)) continue;
      await storage.delete(key);
      removed += 1;
    }
  }
  return removed;
}
