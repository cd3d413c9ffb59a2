import { z } from 'zod';
import type { Storage } from '../../platform/storage.js';
import type { HeldWork } from '../held-work.js';
import type { SynthesisService } from '../service.js';
import type { Charge, Prepared, Progress } from '../types.js';
import { chargeSchema, fromWire, wireRequestSchema, type WireRequest } from '../wire.js';
import { defineJob, type JobHandler } from './definition.js';
import type { Provenance } from '../../provenance/service.js';
import { originOf } from '../origin.js';
import type { HistoryRecorder } from '../../history/types.js';

/** Where a finished job's audio waits in storage. */
export const JOB_FOLDER = 'jobs';
/** Where a finished job's timings (its subtitles' source) wait, beside its audio. */
export const timingsKey = (storageKey: string): string => `${storageKey}.timings.json`;
/** The job a stored file belongs to (`jobs/<id>` or `jobs/<id>.timings.json`). */
export const jobOfKey = (key: string): string => key.slice(JOB_FOLDER.length + 1).split('.')[0]!;

/** Deletes a job's stored files: its audio and its timings. */
export async function deleteJobFiles(storage: Storage, storageKey: string): Promise<void> {
  await storage.delete(timingsKey(storageKey));
  await storage.delete(storageKey);
}

/** What a long synthesis job's row keeps so that any process can run it again: the request, its voice and its charge. */
export interface SynthesisJobPayload {
  request: WireRequest;
  voiceId: string;
  charge: Charge;
  /** The voice's type and a clone's sample, for the provenance record (absent from payloads of older releases). */
  origin?: Prepared['origin'];
}

/** What the job's row and the job layer give its handler beside the payload. */
export interface SynthesisJobContext {
  id: string;
  prepared: Prepared;
  charge: Charge;
  /** The job's hold, kept alive while it runs; the layer settles or releases it. */
  work: HeldWork;
  reqId?: string;
  onProgress: Progress;
}

export const synthesisJob = defineJob<SynthesisJobPayload, SynthesisJobContext, { storageKey: string }>(
  'synthesis',
  z.object({
    // A job's request always carries its resolved voice (a saved or designed voice is in no library).
    request: wireRequestSchema.refine((r) => r.voice !== undefined, {
      message: 'a job request carries its voice',
      path: ['voice'],
    }),
    voiceId: z.string().min(1),
    charge: chargeSchema,
    origin: z.object({ voiceType: z.string().min(1), sampleId: z.string().min(1).optional() }).optional(),
  }),
);

/** The prepared request a job row carries: its payload, and the price the row recorded. */
export function preparedOf(
  payload: SynthesisJobPayload,
  row: { characters: number | string; credits: number | string; content_type: string },
): { prepared: Prepared; charge: Charge } {
  const request = fromWire(payload.request);
  return {
    prepared: {
      request,
      // The payload's schema has checked it is there.
      voice: request.voice!,
      voiceId: payload.voiceId,
      characters: Number(row.characters),
      credits: Number(row.credits),
      contentType: row.content_type,
      origin: payload.origin ?? { voiceType: 'preset' },
    },
    charge: payload.charge,
  };
}

/** Synthesizes the job's text on its hold and puts the audio in storage; returns where. */
export function synthesisJobHandler(deps: {
  synthesis: SynthesisService;
  storage: Storage;
  provenance: Provenance;
  /** Where each finished job is kept too (absent: nowhere). */
  history?: HistoryRecorder;
}): JobHandler<SynthesisJobPayload, SynthesisJobContext, { storageKey: string }> {
  return async (_payload, { id, prepared, charge, work, reqId, onProgress }) => {
    const { result } = await deps.synthesis.render(prepared, charge, { work, onProgress, ...(reqId ? { reqId } : {}) });
    const storageKey = `${JOB_FOLDER}/${id}`;
    // The stored file is the one every download gets: labelled once, recorded with the job's hold.
    const { audio } = await deps.provenance.markFile(
      result.audio,
      prepared.contentType,
      originOf(prepared, charge, result, { holdId: work.hold.id, requestId: reqId ?? null }),
    );
    // The timings first: a job whose audio is there has its subtitles too.
    if (result.alignment)
      await deps.storage.put(timingsKey(storageKey), Buffer.from(JSON.stringify(result.alignment)), {
        contentType: 'application/json',
      });
    await deps.storage.put(storageKey, audio, { contentType: prepared.contentType });
    // Its history item: priced at the job's hold, which the layer settles once the row says succeeded (the balance
    // around the charge is read from that settlement when the item is first shown after it).
    await deps.history?.recordFile(
      {
        accountId: charge.accountId,
        apiKeyId: charge.apiKeyId ?? null,
        requestId: reqId ?? null,
        holdId: work.hold.id,
        route: 'POST /tts/jobs',
        text: prepared.request.text,
        voiceId: prepared.voiceId ?? prepared.voice.id,
        voiceName: prepared.voice.name,
        voiceType: prepared.origin.voiceType,
        modelId: prepared.voice.model,
        settings: { format: prepared.request.format, speed: prepared.request.speed, pitch: prepared.request.pitch, job_id: id },
        outputFormat: prepared.request.format ?? 'mp3',
        contentType: prepared.contentType,
        characters: prepared.characters,
        credits: prepared.credits,
      },
      audio,
    );
    return { storageKey };
  };
}
