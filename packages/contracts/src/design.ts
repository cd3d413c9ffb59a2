import { z } from 'zod';
import { LIMITS } from './limits.js';

/** Voice design: uploaded samples, previews (numbered versions) and the account's own voices. */

/** A language tag as the previews take it (`en`, `zh-CN`, `en-029`). */
const LanguageTag = z
  .string()
  .max(35)
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as en or zh-CN');

export const VoiceName = z.string().trim().min(1).max(LIMITS.nameMaxLength);

export const MixEntry = z.object({
  voice_id: z.string().max(200),
  weight: z.number().positive().max(100),
});

/** What the analysis measured on a sample, for display (all optional: an analysis may not measure everything). */
export const SampleMeasures = z
  .object({
    f0_median_hz: z.number().nullable(),
    snr_db: z.number().nullable(),
    noisy: z.boolean(),
    speech_seconds: z.number().nullable(),
  })
  .meta({ id: 'SampleMeasures' });

export const SampleUploadResponse = z
  .object({
    id: z.string(),
    index: z.number().int(),
    format: z.enum(['mp3', 'm4a', 'wav']),
    size: z.number().int(),
    duration: z.number(),
    sample_rate: z.number().int(),
    measures: SampleMeasures,
    noisy: z.boolean(),
    synthetic: z
      .boolean()
      .describe("the sample carries this platform's watermark or AIGC label: a voice it made, not a person's recording"),
    created_at: z.string(),
    audio_url: z.string().describe('the sample as uploaded, for its owner (`GET /files/{id}/audio`)'),
  })
  .meta({ id: 'Sample' });

export const SampleListQuery = z.object({
  type: z.enum(['clone']),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
});

export const SampleListResponse = z.object({
  items: z.array(SampleUploadResponse),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});

export const PREVIEW_TYPES = ['mix', 'prompt', 'clone'] as const;

export const PreviewRequest = z
  .object({
    type: z.enum(PREVIEW_TYPES),
    model: z.string().max(100),
    models: z
      .array(z.string().max(100))
      .min(1)
      .max(3)
      .optional()
      .describe('up to 3 models to preview the same prompt, sample or mix on side by side; each is its own version and charge'),
    language: LanguageTag,
    preview_text: z.string().max(LIMITS.previewTextMaxLength),
    prompt: z.string().max(LIMITS.promptMaxLength).optional(),
    file_id: z.string().max(100).optional(),
    transcript: z
      .string()
      .max(LIMITS.transcriptMaxLength)
      .optional()
      .describe(
        'type clone: what the sample says, for a zero-shot cloning model (`/tts/config` names it with `reference_text`: required or optional); kept with the version and the voice activated from it',
      ),
    mix: z.array(MixEntry).optional(),
  })
  .describe('`prompt` for type prompt, `file_id` (an uploaded sample) for type clone, `mix` for type mix');

export const PreviewVersion = z.object({
  id: z.string(),
  version: z.number().int(),
  model: z.string(),
  audio_url: z.string(),
  duration: z.number(),
  credits: z.number().int(),
  activation_credits: z.number().int().describe('what activating this version as a voice costs (a mix: 0)'),
});

export const PreviewResponse = PreviewVersion.extend({
  items: z.array(PreviewVersion).describe('every version this request made, one per model, in the order of `models`'),
});

export const PreviewEstimateResponse = z
  .object({
    credits: z.number().int().describe('what the request will charge in all: the sum of `items`'),
    characters: z.number().int(),
    items: z.array(z.object({ model: z.string(), credits: z.number().int(), characters: z.number().int() })),
    activation_credits: z.number().int().describe('what activating one of its versions as a voice costs (a mix: 0)'),
    own_voices: z
      .object({ limit: z.number().int(), used: z.number().int() })
      .describe("the plan's number of own voices and how many the account has: at the limit, a version cannot be saved"),
  })
  .meta({ id: 'PreviewEstimate' });

export const PreviewSchema = z
  .object({
    id: z.string(),
    version: z.number().int(),
    type: z.enum(PREVIEW_TYPES),
    model: z.string(),
    language: z.string(),
    preview_text: z.string(),
    prompt: z.string().nullable(),
    file_id: z.string().nullable(),
    sample_index: z.number().int().nullable(),
    mix: z.array(MixEntry).nullable(),
    credits: z.number().int(),
    activation_credits: z.number().int(),
    duration: z.number(),
    audio_url: z.string(),
    voice_id: z.string().nullable().describe('the voice activated from this version, if any'),
    created_at: z.string(),
  })
  .meta({ id: 'VoicePreview' });

export const PreviewListQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
});

export const PreviewListResponse = z.object({
  items: z.array(PreviewSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});

export const CreateVoiceRequest = z
  .object({
    type: z.enum(PREVIEW_TYPES),
    name: VoiceName,
    model: z.string().max(100).optional(),
    mix: z.array(MixEntry).optional(),
    preview_id: z.string().max(100).optional(),
  })
  .describe('type mix: `model` and `mix` (1 to 3 voices); type prompt or clone: `preview_id` of one of your previews');

export const PatchVoiceRequest = z.object({
  id: z.string().max(200),
  name: VoiceName.optional(),
  prompt: z.string().max(LIMITS.promptMaxLength).optional(),
  file_id: z.string().max(100).optional(),
  mix: z.array(MixEntry).optional(),
});

export const VoiceIdQuery = z.object({ id: z.string().max(200).optional() });
