import { z } from 'zod';
import { DialogueInputs } from './dialogue.js';
import { LIMITS, PAUSE_BUDGET_TEXT } from './limits.js';
import { PronunciationLocators } from './pronunciation.js';

export const AUDIO_FORMATS = ['mp3', 'wav', 'opus', 'pcm'] as const;
export const VOICE_TYPES = ['preset', 'mix', 'prompt', 'clone'] as const;
export const GENDERS = ['male', 'female', 'neutral'] as const;
/** The explicit labels a request may ask for (GB 45438-2025 offers both for audio), and where they are heard. */
export const AI_LABEL_KINDS = ['rhythm', 'speech'] as const;
export const AI_LABEL_POSITIONS = ['start', 'end'] as const;

export const VoiceSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    gender: z.enum(GENDERS),
    model: z.string(),
    languages: z.array(z.string()),
    source: z.enum(['official', 'mine']),
    type: z.enum(VOICE_TYPES),
    mix: z.array(z.object({ voice_id: z.string(), weight: z.number() })).nullable(),
    avatar: z.string(),
    preview_url: z.string().nullable(),
    status: z.string(),
    created_at: z.string(),
    engine: z.string().optional(),
    variant: z.string().optional(),
    description: z.string().optional(),
    mixable: z.boolean().optional(),
    neural: z
      .boolean()
      .optional()
      .describe('a neural voice (sherpa-onnx models, remote neural services); the library lists the best first'),
    licence: z.string().optional().describe("the licence of the voice's model, where it was installed from the model catalogue"),
    non_commercial: z.boolean().optional().describe("true where the model's licence forbids commercial use"),
  })
  .meta({ id: 'Voice' });
export type Voice = z.infer<typeof VoiceSchema>;

export const VoiceListQuery = z
  .object({
    id: z.string().optional(),
    source: z.enum(['official', 'mine']).optional(),
    page: z.coerce.number().int().min(1).default(1),
    page_size: z.coerce.number().int().min(1).max(100).default(20),
    model: z.string().optional(),
    languages: z.string().optional(),
    gender: z.enum(GENDERS).optional(),
    name: z.string().max(100).optional(),
    mix: z.enum(['true', 'false']).optional(),
    neural: z.enum(['true', 'false']).optional(),
  })
  .passthrough();

export const VoiceListResponse = z.object({
  items: z.array(VoiceSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});

export const TtsConfigResponse = z.object({
  models: z.array(
    z.object({
      model: z.string(),
      model_name: z.string(),
      type: z.array(z.string()),
      url: z.string(),
      icon: z.string(),
      description: z.string(),
      languages: z.array(z.string()),
      sexs: z.array(z.object({ sex: z.string(), icon: z.string() })),
      voice_count: z.number().int(),
      credits_per_character: z.number(),
      reference_text: z
        .enum(['required', 'optional'])
        .optional()
        .describe("a zero-shot cloning model (type `cloning`): whether a clone preview needs the sample's `transcript`"),
      neural: z.boolean().optional().describe('a neural model'),
      licence: z.string().optional().describe('its licence, where it was installed from the model catalogue'),
      non_commercial: z.boolean().optional().describe('true where its licence forbids commercial use'),
    }),
  ),
  limits: z.object({
    max_text_length: z.number().int(),
    mix_max: z.number().int(),
    preview_versions: z.number().int(),
    job_threshold: z.number().int(),
  }),
  activation_fees: z
    .object({ text_to_voice: z.number().int(), clone: z.number().int() })
    .describe('credits charged once when a voice designed from a prompt (text_to_voice) or cloned (clone) is activated'),
  ai_label_explicit: z
    .enum(['off', 'rhythm', 'speech'])
    .optional()
    .describe(
      "the operator's explicit AI label (`AI_LABEL_EXPLICIT`): a spoken notice or the rhythm cue that every download carries",
    ),
  ai_label_position: z
    .enum(AI_LABEL_POSITIONS)
    .optional()
    .describe('where the explicit label is heard (`AI_LABEL_POSITION`): before the speech or after it'),
});
/**
 * A request's explicit AI label: it only adds one (the operator's stands when it is as strong or stronger, a spoken
 * notice being the strongest), so there is no "off": a request cannot remove what the operator requires, and asking
 * for it is refused.
 */
export const AiLabelField = z
  .enum(AI_LABEL_KINDS)
  .optional()
  .describe(
    "adds an explicit AI label to the audio: `rhythm` (the GB 45438-2025 cue, short–long–short–short tones) or `speech` (a notice read in the text's language); never weakens the operator's (`speech` wins over `rhythm`); the notice's characters are not charged",
  );

/** ElevenLabs' `apply_text_normalization`. */
export const TEXT_NORMALIZATIONS = ['auto', 'on', 'off'] as const;
export const ApplyTextNormalization = z
  .enum(TEXT_NORMALIZATIONS)
  .optional()
  .describe(
    '`auto` (the default) and `on`: numbers, dates, times, money, units, abbreviations, URLs and e-mail addresses are read as words (English and Chinese; other languages keep their digits); `off`: the text is spoken as written (whitespace cleaned, sentences split), for text already written out',
  );
/** `text`: plain text (the default); `ssml`: SSML markup. */
export const TextType = z
  .enum(['text', 'ssml'])
  .optional()
  .describe(
    '`text` (the default) or `ssml`: the SSML subset of docs/pronunciation.md; text that begins with `<speak>` is SSML either way, and ElevenLabs\' `<break time="1.5s" />` is read in plain text too. Only the spoken characters are priced. ' +
      PAUSE_BUDGET_TEXT,
  );

export const TtsRequest = z.object({
  text: z.string(),
  voice_id: z.string(),
  language: z.string().max(35).optional(),
  format: z.enum(AUDIO_FORMATS).default('mp3'),
  speed: z.number().min(0.5).max(2).default(1),
  pitch: z.number().min(-12).max(12).default(0),
  stream: z.boolean().default(false),
  ai_label: AiLabelField,
  /** A whole file as JSON with its alignment (`audio_base64`, `alignment`, `normalized_alignment`, `words`). */
  timestamps: z.boolean().default(false),
  /** With `timestamps`: the subtitles too, in this format. */
  subtitles: z.enum(['srt', 'vtt']).optional(),
  text_type: TextType,
  pronunciation_dictionary_locators: PronunciationLocators,
  apply_text_normalization: ApplyTextNormalization,
});

export const EstimateRequest = z
  .object({
    text: z.string().optional().describe('The text to price (required without `inputs`)'),
    voice_id: z.string().optional().describe('Its voice (required without `inputs`)'),
    inputs: DialogueInputs.optional().describe(
      "A dialogue's turns (`POST /v1/text-to-dialogue`'s `inputs`) instead of `text` and `voice_id`: priced as the dialogue is, each turn by its voice, summed",
    ),
    text_type: TextType,
    pronunciation_dictionary_locators: PronunciationLocators,
    /** Accepted as synthesis takes it: the price counts the text as sent either way. */
    apply_text_normalization: ApplyTextNormalization,
  })
  .superRefine((body, ctx) => {
    if (body.inputs) return;
    // Without a dialogue's turns, the text and its voice are needed (a missing field is PARAMETERS_NEEDED).
    for (const field of ['text', 'voice_id'] as const)
      if (body[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'required' });
  });

/** `POST /tts/normalize`: the text exactly as it will be spoken, nothing charged. */
export const NormalizeRequest = z.object({
  text: z.string(),
  voice_id: z.string(),
  text_type: TextType,
  pronunciation_dictionary_locators: PronunciationLocators,
  apply_text_normalization: ApplyTextNormalization,
});
export const NormalizeResponse = z.object({
  text: z.string().describe('What the voice will speak: its sentences joined'),
  sentences: z.array(z.string()).describe('The same text as the sentences the engine receives one at a time'),
  language: z.string().describe('The language it is read in'),
  characters: z
    .number()
    .int()
    .describe("The characters a synthesis of this text is priced by (the text as sent; SSML's spoken characters alone)"),
});
export const EstimateResponse = z.object({
  credits: z.number().int(),
  characters: z.number().int(),
  language: z.string().optional(),
  language_supported: z.boolean().optional(),
  max_text_length: z.number().int().optional(),
});

/** OpenAI's formats that the platform encodes (aac and flac are refused with VALIDATION_FAILED). */
export const OPENAI_RESPONSE_FORMATS = ['mp3', 'opus', 'wav', 'pcm'] as const;
export const OpenAISpeechRequest = z.object({
  model: z.string(),
  input: z
    .string()
    .max(LIMITS.maxTextLength * 2)
    .refine((s) => s.trim() !== '', 'must not be empty'),
  voice: z.union([z.string(), z.object({ id: z.string() })]),
  response_format: z.enum(OPENAI_RESPONSE_FORMATS).default('mp3'),
  speed: z.number().min(0.25).max(4).default(1),
  instructions: z.string().max(4096).optional(),
  stream_format: z.enum(['audio', 'sse']).optional(),
  /** An extension of Polyvox's: OpenAI's own fields are as OpenAI defines them. */
  ai_label: AiLabelField,
  /** An extension of Polyvox's (ElevenLabs' field): pronunciation dictionaries to apply. */
  pronunciation_dictionary_locators: PronunciationLocators,
});

export const RandomTextResponse = z.object({ name: z.string(), prompt: z.string(), previewText: z.string(), lang: z.string() });

export const TtsJobRequest = TtsRequest.omit({ stream: true });
export const TtsJobSchema = z
  .object({
    id: z.string(),
    status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']),
    progress: z.object({ done: z.number().int(), total: z.number().int() }),
    credits: z.number().int(),
    characters: z.number().int(),
    audio_url: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'TtsJob' });
