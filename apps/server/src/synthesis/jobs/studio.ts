import { z } from 'zod';
import type { Progress } from '../types.js';
import { defineJob } from './definition.js';

/**
 * What the job layer gives a kind whose row holds nothing: its handler takes and closes its own holds (a Studio
 * conversion takes one per paragraph), so a run that stops leaves only what it closed itself.
 */
export interface OwnHoldsContext {
  id: string;
  accountId: string;
  /** Which run of the job this is (1 the first; more after a process died or a worker handed it back). */
  attempt: number;
  signal: AbortSignal;
  onProgress: Progress;
  reqId?: string;
}

/**
 * A Studio project's conversion (studio/convert.ts): the whole project, or one chapter of it. A whole project's is a
 * group: its row (the one the API answers) and a part per chapter (`parentId` naming it), which any process taking
 * jobs may run, so the chapters spread over the workers; the group's row runs the parts no one took and waits for
 * the rest.
 */
export interface StudioConvertPayload {
  projectId: string;
  chapterId: string | null;
  apiKeyId: string | null;
  recordType: string;
  /** A part of a whole project's conversion: the group's job. */
  parentId?: string;
}

/** The group a job row's stored payload names, if it is a part of one (any kind's payload may be given). */
export function parentOf(request: string | null | undefined): string | null {
  const m = request ? /"parentId":"([^"]+)"/.exec(request) : null;
  return m ? m[1]! : null;
}

/** What the payloads of a group's parts contain (a LIKE pattern's middle). */
export const partsNeedle = (parentId: string) => `"parentId":"${parentId}"`;

export const studioConvertJob = defineJob<StudioConvertPayload, OwnHoldsContext, void>(
  'studio_convert',
  z.object({
    projectId: z.string().min(1),
    chapterId: z.string().min(1).nullable(),
    apiKeyId: z.string().min(1).nullable(),
    recordType: z.string().min(1),
    parentId: z.string().min(1).optional(),
  }),
);
