import type { SynthesisJobsTable } from '../../platform/db/schema.js';
import { JobPayloadError } from './definition.js';
import type { JobLayer } from './layer.js';
import type { OwnHoldsContext } from './studio.js';

/** Runs a job row of a kind whose handler takes its own holds: its stored payload checked, then its handler. */
export async function runOwnHolds(layer: JobLayer, row: SynthesisJobsTable, context: OwnHoldsContext): Promise<void> {
  const kind = row.kind ?? '';
  const definition = layer.kind(kind);
  if (!definition) throw new JobPayloadError(kind, row.id, 'no such kind of job in this release');
  const payload: unknown = layer.read(definition, row.id, row.request);
  await layer.handler(definition)(payload, context);
}
