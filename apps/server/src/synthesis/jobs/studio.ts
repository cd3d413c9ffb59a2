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

/** A Studio project's conversion (studio/convert.ts): the whole project, or one chapter of it. */
export interface StudioConvertPayload {
  projectId: string;
  chapterId: string | null;
  apiKeyId: string | null;
  recordType: string;
}

export const studioConvertJob = defineJob<StudioConvertPayload, OwnHoldsContext, void>(
  'studio_convert',
  z.object({
    projectId: z.string().min(1),
    chapterId: z.string().min(1).nullable(),
    apiKeyId: z.string().min(1).nullable(),
    recordType: z.string().min(1),
  }),
);
