import { z } from 'zod';

/** ElevenLabs' history routes as Polyvox serves them: the account's past generations, kept for the operator's retention. */
export const HISTORY_LIMITS = {
  /** Items in one page (ElevenLabs' limit; its default is 100). */
  maxPageSize: 1000,
  defaultPageSize: 100,
  /** Items in one download (several come as a zip). */
  maxDownload: 100,
  /** Characters of a search term. */
  maxSearch: 200,
} as const;

/** `GET /v1/history`'s query, ElevenLabs' names. */
export const HistoryListQuery = z.object({
  page_size: z.coerce.number().int().min(1).max(HISTORY_LIMITS.maxPageSize).default(HISTORY_LIMITS.defaultPageSize),
  start_after_history_item_id: z.string().min(1).max(128).optional(),
  voice_id: z.string().min(1).max(128).optional(),
  model_id: z.string().min(1).max(128).optional(),
  date_before_unix: z.coerce.number().int().min(0).optional(),
  date_after_unix: z.coerce.number().int().min(0).optional(),
  sort_direction: z.enum(['asc', 'desc']).default('desc'),
  search: z.string().max(HISTORY_LIMITS.maxSearch).optional(),
  source: z.enum(['TTS', 'STS', 'Flows']).optional(),
});
export type HistoryListQuery = z.infer<typeof HistoryListQuery>;

/** One line of a dialogue, as ElevenLabs' `dialogue` has it. */
export const HistoryDialogueInput = z.object({ text: z.string(), voice_id: z.string(), voice_name: z.string() });

/** ElevenLabs' `SpeechHistoryItemResponse`, with Polyvox's own fields after its. */
export const HistoryItem = z.object({
  history_item_id: z.string(),
  request_id: z.string().nullable(),
  voice_id: z.string().nullable(),
  model_id: z.string().nullable(),
  voice_name: z.string().nullable(),
  voice_category: z.enum(['premade', 'cloned', 'generated', 'professional']).nullable(),
  text: z.string().nullable(),
  date_unix: z.number().int(),
  character_count_change_from: z.number().int().meta({ description: "The account's credits before this generation was charged" }),
  character_count_change_to: z
    .number()
    .int()
    .meta({ description: "The account's credits after it: the difference is its price" }),
  content_type: z.string(),
  state: z.literal('created'),
  settings: z.record(z.string(), z.unknown()),
  share_link_id: z.null(),
  source: z.literal('TTS'),
  dialogue: z.array(HistoryDialogueInput).nullable(),
  output_format: z.string(),
  /** Polyvox: the credits charged, the characters priced, the route and key it came by, when its audio is swept. */
  credits: z.number().int(),
  characters: z.number().int(),
  route: z.string(),
  api_key_id: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
  audio_available: z.boolean(),
  /**
   * Polyvox: a voice it was made with (its own, or one of a dialogue's) was taken down after a report; its audio is no
   * longer served (404), `audio_available` is false.
   */
  voice_taken_down: z.boolean(),
});
export type HistoryItem = z.infer<typeof HistoryItem>;

export const HistoryListResponse = z.object({
  history: z.array(HistoryItem),
  last_history_item_id: z.string().nullable(),
  has_more: z.boolean(),
  scanned_until: z.number().int().nullable(),
});
export type HistoryListResponse = z.infer<typeof HistoryListResponse>;

export const HistoryDownloadBody = z.object({
  history_item_ids: z.array(z.string().min(1).max(128)).min(1).max(HISTORY_LIMITS.maxDownload),
  output_format: z
    .string()
    .max(32)
    .optional()
    .meta({ description: '`default` (or absent): each file as it was made; `wav`: only for items made as wav' }),
});

export const HistoryDeleteResponse = z.object({ status: z.literal('ok') });
