import { z } from 'zod';
import { LIMITS, MB } from './limits.js';

/**
 * Studio projects: ElevenLabs' `/v1/studio/projects` shapes (its field names, so its SDK reads them unchanged), with
 * Polyvox's own fields beside them (speakers, each paragraph's speaker, voice override, pause and content hash).
 */

/** What one project may hold, checked before (file, text) and while (the rest) a document is read. */
export const STUDIO_LIMITS = {
  /** A document sent as `from_document`. */
  fileMaxBytes: 20 * MB,
  /** What an EPUB or DOCX may expand to, all its entries together (a zip bomb is refused before it is inflated). */
  unzippedMaxBytes: 100 * MB,
  /** Entries in an EPUB or DOCX. */
  zipMaxEntries: 5000,
  /** Characters of a whole project (a long novel); more is TEXT_TOO_LONG. */
  maxCharacters: 1_000_000,
  maxChapters: 500,
  maxParagraphs: 20_000,
  /** A paragraph is spoken in one request: a longer one is split at sentence ends on import. */
  paragraphMaxLength: LIMITS.maxTextLength,
  /** A cover image kept with the project. */
  coverMaxBytes: 5 * MB,
  nameMaxLength: 200,
  speakerMaxLength: 60,
  /** Distinct speakers of a project. */
  maxSpeakers: 200,
  pauseMaxMs: 10_000,
} as const;

/** The document types an import reads. */
export const STUDIO_DOCUMENT_TYPES = ['txt', 'md', 'epub', 'docx'] as const;
export type StudioDocumentType = (typeof STUDIO_DOCUMENT_TYPES)[number];

const ProjectFields = {
  project_id: z.string(),
  name: z.string(),
  create_date_unix: z.number().int(),
  created_by_user_id: z.string().optional(),
  default_title_voice_ref_id: z.string(),
  default_paragraph_voice_ref_id: z.string(),
  default_model_id: z.string(),
  last_conversion_date_unix: z.number().int().optional(),
  can_be_downloaded: z.boolean(),
  title: z.string().optional(),
  author: z.string().optional(),
  description: z.string().optional(),
  cover_image_url: z.string().optional().meta({ description: 'Polyvox: the cover found in the document (owner only)' }),
  language: z.string().optional(),
  volume_normalization: z.boolean(),
  state: z.enum(['creating', 'default', 'converting', 'in_queue']).meta({
    description: '`in_queue`: a conversion waits for a worker; `converting`: one is running; `default` otherwise',
  }),
  /** Polyvox: while a conversion is queued or running, the share of its paragraphs spoken (0 to 1). */
  conversion_progress: z.number().min(0).max(1).optional(),
  access_level: z.enum(['admin', 'editor', 'commenter', 'viewer']),
  quality_check_on: z.boolean(),
  quality_check_on_when_bulk_convert: z.boolean(),
  source_type: z.enum(['blank', 'book', 'article', 'genfm', 'video', 'screenplay']).optional(),
  chapters_enabled: z.boolean().optional(),
  default_title_voice_id: z.string().optional(),
  default_paragraph_voice_id: z.string().optional(),
  /** Polyvox: when the project last changed. */
  updated_at: z.string(),
};

/** A project as listed and as created (ElevenLabs' `ProjectResponse`). */
export const StudioProject = z.object(ProjectFields).meta({ id: 'StudioProject' });
export type StudioProject = z.infer<typeof StudioProject>;

/** Polyvox: why a paragraph's last conversion failed: an error code of the contract, its message in the request's language. */
export const StudioConversionError = z.object({ code: z.string(), message: z.string() });

export const StudioChapterStatistics = z.object({
  characters_unconverted: z.number().int(),
  characters_converted: z.number().int(),
  paragraphs_converted: z.number().int(),
  paragraphs_unconverted: z.number().int(),
});

/** A chapter as listed (ElevenLabs' `ChapterResponse`). */
export const StudioChapter = z
  .object({
    chapter_id: z.string(),
    name: z.string(),
    last_conversion_date_unix: z.number().int().optional(),
    conversion_progress: z.number().optional(),
    can_be_downloaded: z.boolean(),
    state: z.enum(['default', 'converting']),
    voice_ids: z.array(z.string()),
    statistics: StudioChapterStatistics,
    /** Polyvox: the chapter's place in the project, from 0. */
    position: z.number().int(),
    /** Polyvox: its paragraphs whose last conversion failed (absent when none), each to retry. */
    failed_paragraphs: z.array(StudioConversionError.extend({ block_id: z.string() })).optional(),
  })
  .meta({ id: 'StudioChapter' });

/** A speaker of the project and the voice that speaks for it (null: the project's default paragraph voice). */
export const StudioSpeaker = z.object({
  name: z.string(),
  voice_id: z.string().nullable(),
  /** Paragraphs this speaker has. */
  paragraphs: z.number().int(),
});

/** ElevenLabs' `ProjectVoiceResponseModel`: a voice the project uses. */
export const StudioProjectVoice = z.object({
  project_voice_ref_id: z.string(),
  voice_id: z.string(),
  alias: z.string(),
  stability: z.number(),
  similarity_boost: z.number(),
  style: z.number(),
  is_pinned: z.boolean(),
  use_speaker_boost: z.boolean(),
  volume_gain: z.number(),
  speed: z.number(),
});

/** A project with its chapters and voices (ElevenLabs' `ProjectExtendedResponse`), and Polyvox's speakers. */
export const StudioProjectExtended = StudioProject.extend({
  quality_preset: z.enum(['standard', 'high', 'ultra', 'ultra_lossless']),
  chapters: z.array(StudioChapter),
  /** Always empty here (the locators say which versions apply). */
  pronunciation_dictionary_versions: z.array(z.never()),
  pronunciation_dictionary_locators: z.array(
    z.object({ pronunciation_dictionary_id: z.string(), version_id: z.string().optional() }),
  ),
  apply_text_normalization: z.enum(['auto', 'on', 'off', 'apply_english']),
  assets: z.array(z.never()),
  voices: z.array(StudioProjectVoice),
  /** Polyvox: the speakers found in the document (and added since), each mapped to a voice once. */
  speakers: z.array(StudioSpeaker),
  /** Polyvox: the speaker of a paragraph no speaker line claims ("Narrator", "旁白"). */
  default_speaker: z.string(),
  /**
   * Polyvox: the last conversion failed (wholly or in part) and the project is not fully converted: the job, the
   * first failure's code and message, and how many paragraphs failed (each named in its chapter).
   */
  conversion_error: StudioConversionError.extend({ job_id: z.string(), paragraphs_failed: z.number().int() }).optional(),
}).meta({ id: 'StudioProjectExtended' });

/** One paragraph of a chapter: ElevenLabs' block of one `tts_node`, with Polyvox's fields. */
export const StudioBlock = z.object({
  block_id: z.string(),
  sub_type: z.literal('p'),
  nodes: z.array(
    z.object({
      type: z.literal('tts_node'),
      text: z.string(),
      /** The voice that speaks it: its override, else its speaker's voice, else the project's default. */
      voice_id: z.string(),
      project_voice_ref_id: z.string(),
    }),
  ),
  /** Polyvox fields. */
  speaker: z.string(),
  voice_override: z.string().nullable(),
  pause_after_ms: z.number().int(),
  /** sha256 of what the paragraph's audio depends on (text, voice, model, normalisation, dictionaries). */
  content_hash: z.string(),
  /** Whether audio made for this content exists (a later conversion skips such paragraphs). */
  converted: z.boolean(),
  /** Why its last conversion failed, while its content is what failed (absent otherwise); nothing was charged for it. */
  conversion_error: StudioConversionError.optional(),
});
export type StudioBlock = z.infer<typeof StudioBlock>;

export const StudioChapterWithContent = StudioChapter.extend({
  content: z.object({ blocks: z.array(StudioBlock) }),
}).meta({ id: 'StudioChapterWithContent' });

export const StudioProjectList = z.object({ projects: z.array(StudioProject) });
export const StudioChapterList = z.object({ chapters: z.array(StudioChapter) });
export const StudioCreated = z.object({ project: StudioProject });
export const StudioDeleted = z.object({ status: z.literal('ok') });

/** Polyvox: change a paragraph (each field optional; `voice_id: null` removes the override). */
export const StudioParagraphEdit = z
  .object({
    text: z.string().min(1, 'must not be empty').max(STUDIO_LIMITS.paragraphMaxLength).optional(),
    speaker: z.string().trim().min(1, 'must not be empty').max(STUDIO_LIMITS.speakerMaxLength).optional(),
    voice_id: z.string().min(1).max(64).nullable().optional(),
    pause_after_ms: z.number().int().min(0).max(STUDIO_LIMITS.pauseMaxMs).optional(),
  })
  .strict();

/** Polyvox: map a speaker to a voice for the whole project (`voice_id: null`: the project's default voice). */
export const StudioSpeakerVoice = z
  .object({
    speaker: z.string().trim().min(1, 'must not be empty').max(STUDIO_LIMITS.speakerMaxLength),
    voice_id: z.string().min(1).max(64).nullable(),
  })
  .strict();
