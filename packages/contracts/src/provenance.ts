import { z } from 'zod';

/**
 * Provenance: what `POST /provenance/verify` answers about a file. The `AIGC` record is the implicit
 * label of GB 45438-2025 (its keys are the standard's, hence not snake_case).
 */

import type { AigcKey } from './aigc-keys.js';

export { AIGC_KEYS, type AigcKey } from './aigc-keys.js';

export const AigcRecord = z
  .object({
    Label: z.string().describe('the content is AI-generated (the standard\'s value for "yes")'),
    ContentProducer: z.string().describe("the operator's name or code (`AIGC_CONTENT_PRODUCER`)"),
    ProduceID: z.string().describe("this platform's unique id of the piece of content"),
    ReservedCode1: z.string().describe('an integrity code over the other fields, keyed by the server secret'),
    ContentPropagator: z.string().describe('who spread the content, when a platform other than the producer did'),
    PropagateID: z.string().describe("the propagator's id of the content"),
    ReservedCode2: z.string().describe('reserved'),
    // The keys are AIGC_KEYS' (the one list): a key missing or added here fails the typecheck.
  } satisfies Record<AigcKey, z.ZodString>)
  .meta({ id: 'AigcRecord' });

/** The reference reader's (c2pa-rs) validation states: Invalid < Valid (signature and hashes) < Trusted (a known signer). */
export const C2PA_VALIDATION_STATES = ['Invalid', 'Valid', 'Trusted'] as const;

export const ProvenanceVerifyUrlRequest = z.object({
  url: z.string().min(1).max(2048).describe("an address of this server's own audio (a job's or a preview's `audio_url`)"),
});

export const ProvenanceWatermark = z
  .object({
    detected: z.boolean().describe("the score is above the threshold: the audio carries this server's watermark"),
    score: z.number().describe('the detector score; higher is stronger evidence of the mark'),
    false_alarm_rate: z.number().min(0).max(1).describe('the chance that audio without the mark scores at least this high'),
    payload_found: z.boolean().describe('the payload (which record) was recovered, not only the "made here" mark'),
  })
  .meta({ id: 'ProvenanceWatermark' });

export const ProvenanceC2pa = z
  .object({
    present: z.boolean(),
    valid: z.boolean().describe('the signature and the hash binding to the audio check out'),
    validation_state: z.enum(C2PA_VALIDATION_STATES),
    claim_generator: z.string().nullable().describe("the manifest's claim generator, e.g. `Polyvox/0.1.0`"),
  })
  .meta({ id: 'ProvenanceC2pa' });

export const ProvenanceRecord = z
  .object({
    produce_id: z.string(),
    created_at: z.string(),
    voice_id: z.string().nullable(),
    type: z.string().describe('the kind of request that made the audio (tts, job, openai, elevenlabs, preview…)'),
    api_key_id: z.string().nullable().describe('the API key the request used; null for the console'),
  })
  .meta({ id: 'ProvenanceRecord' });

export const ProvenanceVerifyResponse = z
  .object({
    ai_generated: z.boolean().describe('the server judges the audio was made by this platform'),
    watermark: ProvenanceWatermark,
    aigc: AigcRecord.nullable().describe('the `AIGC` metadata field, when the file carries one'),
    aigc_valid: z
      .boolean()
      .describe(
        "the record's integrity code (ReservedCode1) checks out with this server's secret, and the label is this file's: its record holds the hash of this sound, or this server's valid C2PA manifest names it (false for a label copied from other audio)",
      ),
    c2pa: ProvenanceC2pa.nullable(),
    record: ProvenanceRecord.optional().describe('which synthesis made the audio: only for the account that made it'),
  })
  .meta({ id: 'ProvenanceVerification' });
