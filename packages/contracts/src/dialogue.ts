import { z } from 'zod';
import { LIMITS } from './limits.js';

/** ElevenLabs' text-to-dialogue limits as Polyvox serves them. */
export const DIALOGUE_LIMITS = {
  /** Distinct voices in one dialogue (ElevenLabs' limit). */
  maxVoices: 10,
  /** Turns in one dialogue. */
  maxInputs: 100,
} as const;

/** The rule an 11th distinct voice breaks (the message catalogue translates it). */
export const DIALOGUE_VOICES_RULE = `at most ${DIALOGUE_LIMITS.maxVoices} distinct voices`;

export const DialogueInput = z.object({
  text: z
    .string()
    .max(LIMITS.maxTextLength * 2)
    .refine((s) => s.trim() !== '', 'must not be empty'),
  voice_id: z.string().min(1).max(128),
});

/** A dialogue's turns: each a text and the voice that speaks it, at most ten distinct voices. */
export const DialogueInputs = z
  .array(DialogueInput)
  .min(1)
  .max(DIALOGUE_LIMITS.maxInputs)
  .refine((inputs) => new Set(inputs.map((i) => i.voice_id)).size <= DIALOGUE_LIMITS.maxVoices, DIALOGUE_VOICES_RULE)
  .meta({
    description:
      "The dialogue's turns in order, each `{text, voice_id}` (any voice id: official, designed, cloned or mixed, on any engine); at most 10 distinct voices and 100 turns; all texts together are held to the plan's text limit",
  });
export type DialogueInputs = z.infer<typeof DialogueInputs>;
