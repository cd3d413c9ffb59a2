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

/** A new job's row: running here at once when `owner` is this process, else queued for a worker. */
export function newJobRow(p: {
  kind: string;
  accountId: string;
  price: OwnJobPrice;
  holdId: string;
  request: string;
  owner: string | null;
  reqId: string | undefined;
}): SynthesisJobsTable {
  const now = new Date().toISOString();
  const here = p.owner !== null;
  return {
    id: newId('job'),
    kind: p.kind,
    account_id: p.accountId,
    status: here ? 'running' : 'queued',
    progress_done: 0,
    progress_total: 0,
    credits: p.price.credits,
    characters: p.price.characters,
    content_type: p.price.contentType,
    hold_id: p.holdId,
    storage_key: null,
    error_code: null,
    error_params: null,
    created_at: now,
    finished_at: null,
    expires_at: null,
    request: p.request,
    attempts: here ? 1 : 0,
    owner: p.owner,
    heartbeat_at: here ? now : null,
    request_id: p.reqId ?? null,
  };
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
  const row = newJobRow({
    kind: definition.name,
    accountId,
    price,
    holdId: '',
    request: writePayload(definition, payload),
    owner: queue ? null : parts.owner,
    reqId,
  });
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

/**
 * Records a group of such jobs: the group's row (`parent`, what the caller is answered) and its parts, each made from
 * the group's id, in one transaction. Through a queue every row waits for a worker (the parts first); in the database
 * alone the group's row runs here at once and its parts wait for it (or for a process whose rounds take them).
 */
export async function recordOwnGroup<P>(
  parts: { db: Kysely<Database>; layer: JobLayer; owner: string; runner: DatabaseJobRunner },
  definition: JobDefinition<P, OwnHoldsContext, void>,
  accountId: string,
  parent: { payload: P; price: OwnJobPrice },
  children: (parentId: string) => { payload: P; price: OwnJobPrice }[],
  reqId?: string,
): Promise<Job> {
  const provider = parts.layer.provider;
  const queue = !provider.runsHere;
  const row = newJobRow({
    kind: definition.name,
    accountId,
    price: parent.price,
    holdId: '',
    request: writePayload(definition, parent.payload),
    owner: queue ? null : parts.owner,
    reqId,
  });
  const rows = children(row.id).map((c) =>
    newJobRow({
      kind: definition.name,
      accountId,
      price: c.price,
      holdId: '',
      request: writePayload(definition, c.payload),
      owner: null,
      reqId,
    }),
  );
  await parts.db.transaction().execute(async (trx) => {
    await trx.insertInto('synthesis_jobs').values(row).execute();
    if (rows.length > 0) await trx.insertInto('synthesis_jobs').values(rows).execute();
  });
  try {
    if (queue) for (const part of rows) await provider.submit(definition.name, part.id, reqId);
    await provider.submit(definition.name, row.id, reqId);
  } catch (e) {
    await parts.db
      .deleteFrom('synthesis_jobs')
      .where(
        'id',
        'in',
        [row, ...rows].map((r) => r.id),
      )
      .execute()
      .catch(() => {});
    throw e;
  }
  return toJob(row, queue ? undefined : parts.runner.startOwn(row));
}
