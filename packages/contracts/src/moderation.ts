import { z } from 'zod';

/** A word or phrase of the operator's own moderation list (matched as the sensitive-word lists are). */
export const ModerationTerm = z.object({
  id: z.string(),
  term: z.string(),
  category: z.string(),
  created_at: z.string(),
  created_by: z.string().nullable(),
});
export const ModerationTerms = z.object({ items: z.array(ModerationTerm) });

export const AddModerationTerm = z.object({
  /** One word or phrase; `word*`, `*word`, `*word*` as in the lists' files. Not a comment (`#`) or a section (`[`). */
  term: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^#[\r\n]/u, 'a word or phrase, not starting with # or ['),
  category: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[\p{L}\p{N}_-]+$/u, 'letters, digits, _ and -')
    .transform((c) => c.toLowerCase()),
});

/** A text moderation refused, kept for the operator's retention period. */
export const ModerationHit = z.object({
  id: z.string(),
  account_id: z.string().nullable(),
  route: z.string(),
  purpose: z.string(),
  /** `words` (built-in lists), `operator` (the operator's list), or the provider (`aliyun`, `openai`). */
  source: z.string(),
  category: z.string(),
  text: z.string(),
  created_at: z.string(),
});
export const ModerationHitsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** The last id of the page before (newest first). */
  before: z.string().max(64).optional(),
  account_id: z.string().max(64).optional(),
});
export const ModerationHits = z.object({ items: z.array(ModerationHit), next: z.string().nullable() });
