import { z } from 'zod';
import {
  AI_LABEL_KINDS,
  AI_LABEL_POSITIONS,
  AUDIO_FORMATS,
  SAY_AS_KINDS,
  TEXT_NORMALIZATIONS,
  type SynthesisRequest,
  type Timings,
} from '@polyvox/speech';
import type { Charge } from './types.js';

/**
 * A synthesis request as text, for a job row and for a queue message: everything but the signal and
 * the progress callback, with a reference sample's Float32Array as base64 of its bytes.
 */
export type WireRequest = Omit<SynthesisRequest, 'signal' | 'onProgress' | 'reference'> & {
  reference?: { samples: string; sampleRate: number; text?: string };
};

export function toWire(request: SynthesisRequest): WireRequest {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- dropped: they do not cross processes
  const { signal, onProgress, reference, ...rest } = request;
  return {
    ...rest,
    ...(reference
      ? {
          reference: {
            samples: Buffer.from(reference.samples.buffer, reference.samples.byteOffset, reference.samples.byteLength).toString(
              'base64',
            ),
            sampleRate: reference.sampleRate,
            ...(reference.text !== undefined ? { text: reference.text } : {}),
          },
        }
      : {}),
  };
}

export function fromWire(wire: WireRequest): SynthesisRequest {
  const { reference, ...rest } = wire;
  if (!reference) return rest;
  const bytes = Buffer.from(reference.samples, 'base64');
  const samples = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(samples.buffer).set(bytes);
  return {
    ...rest,
    reference: { samples, sampleRate: reference.sampleRate, ...(reference.text !== undefined ? { text: reference.text } : {}) },
  };
}

const voiceProfile = z.object({
  pitchHz: z.number(),
  range: z.number(),
  rate: z.number(),
  formantScale: z.number(),
  breathiness: z.number(),
  gainDb: z.number(),
  blend: z.array(z.object({ sid: z.number(), weight: z.number() })).optional(),
  ltasDb: z.array(z.number()).optional(),
  tiltDb: z.number().optional(),
  seed: z.number().optional(),
  f0MedianHz: z.number().optional(),
});

const voiceInfo = z.object({
  id: z.string(),
  name: z.string(),
  gender: z.enum(['male', 'female', 'neutral']),
  languages: z.array(z.string()),
  model: z.string(),
  engine: z.string(),
  variant: z.string(),
  age: z.enum(['adult', 'child', 'baby']).optional(),
  profile: voiceProfile,
  previewText: z.string(),
  description: z.string().optional(),
  phonemes: z.literal('espeak').optional(),
  phonemeLanguage: z.string().optional(),
});

const lexiconRule = z.object({
  type: z.enum(['alias', 'phoneme']),
  string_to_replace: z.string(),
  case_sensitive: z.boolean().optional(),
  word_boundaries: z.boolean().optional(),
  alias: z.string().optional(),
  phoneme: z.string().optional(),
  alphabet: z.string().optional(),
});
const span = z.object({ from: z.number(), to: z.number(), spokenFrom: z.number(), spokenTo: z.number() });
const markupSchema = z.object({
  written: z.string(),
  characters: z.number(),
  spans: z.array(span),
  rules: z.array(
    z.object({
      from: z.number(),
      to: z.number(),
      rule: lexiconRule.optional(),
      sayAs: z.object({ kind: z.enum(SAY_AS_KINDS), format: z.string().optional() }).optional(),
    }),
  ),
  parts: z.array(
    z.object({
      end: z.number(),
      language: z.string().optional(),
      rate: z.number().optional(),
      pitch: z.number().optional(),
      volume: z.number().optional(),
      pauseMs: z.number().optional(),
      boundary: z.enum(['sentence', 'paragraph']).optional(),
    }),
  ),
  marks: z.array(z.object({ name: z.string(), at: z.number() })),
});

/** What a stored or queued request must look like to be run: checked whenever one is read back. */
export const wireRequestSchema: z.ZodType<WireRequest> = z.object({
  text: z.string(),
  voiceId: z.string().optional(),
  voice: voiceInfo.optional(),
  profile: voiceProfile.optional(),
  language: z.string().optional(),
  format: z.enum(AUDIO_FORMATS).optional(),
  speed: z.number().optional(),
  pitch: z.number().optional(),
  checkLanguage: z.boolean().optional(),
  timings: z.boolean().optional(),
  // A job or a queued request keeps its label: a worker renders exactly what the API process priced and keyed.
  aiLabel: z.object({ kind: z.enum(AI_LABEL_KINDS), position: z.enum(AI_LABEL_POSITIONS) }).optional(),
  // A job or a queued request keeps its pronunciation rules as resolved when it was priced.
  lexicon: z.array(lexiconRule).optional(),
  normalization: z.enum(TEXT_NORMALIZATIONS).optional(),
  // A job or a queued request keeps its markup as read when it was priced.
  markup: markupSchema.optional(),
  reference: z
    .object({
      samples: z.base64().refine((s) => Buffer.from(s, 'base64').byteLength % 4 === 0, 'whole 32-bit samples'),
      sampleRate: z.number().positive(),
      text: z.string().optional(),
    })
    .optional(),
});

export const chargeSchema: z.ZodType<Charge> = z.object({
  accountId: z.string().min(1),
  apiKeyId: z.string().nullable().optional(),
  recordType: z.string().min(1),
});

const characterAlignment = z.object({
  characters: z.array(z.string()),
  character_start_times_seconds: z.array(z.number()),
  character_end_times_seconds: z.array(z.number()),
});

/** A text's alignment to its audio as JSON (a job's stored timings, a worker's message): checked when read back. */
export const timingsSchema: z.ZodType<Timings> = z.object({
  words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number(), charStart: z.number(), charEnd: z.number() })),
  alignment: characterAlignment,
  normalizedAlignment: characterAlignment,
  durationSec: z.number(),
  marks: z.array(z.object({ name: z.string(), time_seconds: z.number() })).optional(),
  known: z.object({ characters: z.number(), normalized: z.number() }).optional(),
});
