import type { Kysely } from 'kysely';
import type { Database, SynthesisJobsTable } from '../../platform/db/schema.js';
import { newId } from '../../platform/ids.js';
import type { DatabaseJobRunner } from './database.js';
import { writePayload, type JobDefinition } from './definition.js';
import { toJob, type Job } from './job-view.js';
import type { JobLayer } from './layer.js';
import type { OwnHoldsContext } from './studio.js';

/** What a job of such a kind is expected to cost, for its row. */
export interface OwnJobPrice {
  credits: number;
  characters: number;
  contentType: string;
}

/**
 * Records a job of a kind whose handler takes and closes its own holds (a Studio conversion, a hold per paragraph):
 * its row holds nothing (hold_id ''); it runs here at once (database provider) or in a worker (queue), and after a
 * crash as any job does.
 */
export async function recordOwnJob<P>(
  parts: { db: Kysely<Database>; layer: JobLayer; owner: string; runner: DatabaseJobRunner },
  definition: JobDefinition<P, OwnHoldsContext, void>,
  accountId: string,
  payload: P,
  price: OwnJobPrice,
  reqId?: string,
): Promise<Job> {
  const provider = parts.layer.provider;
  const queue = !provider.runsHere;
  const now = new Date().toISOString();
  const row: SynthesisJobsTable = {
    id: newId('job'),
    kind: definition.name,
    account_id: accountId,
    status: queue ? 'queued' : 'running',
    progress_done: 0,
    progress_total: 0,
    credits: price.credits,
    characters: price.characters,
    content_type: price.contentType,
    hold_id: '',
    storage_key: null,
    error_code: null,
    error_params: null,
    created_at: now,
    finished_at: null,
    expires_at: null,
    request: writePayload(definition, payload),
    attempts: queue ? 0 : 1,
    owner: queue ? null : parts.owner,
    heartbeat_at: queue ? null : now,
    request_id: reqId ?? null,
  };
  await parts.db.insertInto('synthesis_jobs').values(row).execute();
  try {
    await provider.submit(definition.name, row.id, reqId);
  } catch (e) {
    await parts.db
      .deleteFrom('synthesis_jobs')
      .where('id', '=', row.id)
      .execute()
      .catch(() => {});
    throw e;
  }
  return toJob(row, queue ? undefined : parts.runner.startOwn(row));
}
