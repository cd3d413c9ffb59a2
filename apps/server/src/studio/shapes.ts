import { errorMessage, type MessageLocale, type StudioBlock, type StudioProject } from '@polyvox/contracts';
import type { StudioChaptersTable, StudioParagraphsTable, StudioProjectsTable } from '../platform/db/schema.js';
import type { ConversionFailure, ProjectActivity } from './convert.js';
import { currentFailure } from './paragraph-audio.js';
import { voiceOf, type Speakers } from './service.js';

/** What an answer shows beside the rows: the request's language, the conversions under way, the last one's failure. */
export interface ConversionView {
  locale: MessageLocale;
  activity?: ProjectActivity | undefined;
  failure?: ConversionFailure | null | undefined;
}

const failureOut = (
  p: Pick<StudioParagraphsTable, 'content_hash' | 'converted_hash' | 'conversion_error'>,
  locale: MessageLocale,
) => {
  const failure = currentFailure(p);
  return failure ? { code: failure.code, message: errorMessage(failure.code, locale, failure.params) } : undefined;
};

/** Rows answered in ElevenLabs' Studio shapes (optional fields left out rather than null: its SDK reads them so). */

const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const present = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as T;

/** A project as listed: `state` says a conversion is queued (`in_queue`) or running (`converting`), with its progress. */
export function projectOut(p: StudioProjectsTable, activity?: ProjectActivity): StudioProject {
  const progress = activity?.progress;
  return present({
    project_id: p.id,
    name: p.name,
    create_date_unix: unix(p.created_at),
    created_by_user_id: p.account_id,
    default_title_voice_ref_id: p.default_title_voice_id,
    default_paragraph_voice_ref_id: p.default_paragraph_voice_id,
    default_title_voice_id: p.default_title_voice_id,
    default_paragraph_voice_id: p.default_paragraph_voice_id,
    default_model_id: p.default_model_id,
    can_be_downloaded: false,
    title: p.title ?? undefined,
    author: p.author ?? undefined,
    description: p.description ?? undefined,
    cover_image_url: p.cover_key ? `/v1/studio/projects/${p.id}/cover` : undefined,
    language: p.language ?? undefined,
    volume_normalization: false,
    state: activity?.state ?? ('default' as const),
    conversion_progress: progress ? (progress.total > 0 ? progress.done / progress.total : 0) : undefined,
    access_level: 'admin' as const,
    quality_check_on: false,
    quality_check_on_when_bulk_convert: false,
    source_type: p.source_type === 'book' ? ('book' as const) : ('blank' as const),
    chapters_enabled: true,
    updated_at: p.updated_at,
  });
}

/** What a chapter's list entry needs of its paragraphs. */
export type ParagraphSummary = Pick<
  StudioParagraphsTable,
  'id' | 'chapter_id' | 'speaker' | 'voice_id' | 'content_hash' | 'converted_hash' | 'conversion_error'
> & {
  characters: number;
};

/**
 * A chapter's list entry. While a conversion covering it runs, a chapter with paragraphs left to speak is
 * `converting`, its `conversion_progress` the share of its paragraphs done (0 to 1); it can be downloaded once every
 * paragraph has its audio. `failed_paragraphs`: those whose last conversion failed (and did not change since), each
 * with its error code and message in the request's language.
 */
export function chapterOut(
  c: StudioChaptersTable,
  paragraphs: ParagraphSummary[],
  project: StudioProjectsTable,
  view: ConversionView,
) {
  let charactersConverted = 0;
  let charactersUnconverted = 0;
  let converted = 0;
  const voices = new Set<string>();
  const failed: { block_id: string; code: string; message: string }[] = [];
  for (const p of paragraphs) {
    voices.add(voiceOf(p, project));
    if (p.converted_hash === p.content_hash) {
      converted++;
      charactersConverted += Number(p.characters);
    } else charactersUnconverted += Number(p.characters);
    const failure = failureOut(p, view.locale);
    if (failure) failed.push({ block_id: p.id, ...failure });
  }
  const left = paragraphs.length - converted;
  const activity = view.activity;
  const covered = activity !== undefined && (activity.chapters.has(null) || activity.chapters.has(c.id));
  return {
    chapter_id: c.id,
    name: c.title,
    can_be_downloaded: paragraphs.length > 0 && left === 0,
    state: covered && activity.state === 'converting' && left > 0 ? ('converting' as const) : ('default' as const),
    ...(covered && { conversion_progress: paragraphs.length ? converted / paragraphs.length : 1 }),
    voice_ids: [...voices],
    statistics: {
      characters_converted: charactersConverted,
      characters_unconverted: charactersUnconverted,
      paragraphs_converted: converted,
      paragraphs_unconverted: paragraphs.length - converted,
    },
    position: c.position,
    ...(failed.length > 0 && { failed_paragraphs: failed }),
  };
}

export function blockOut(p: StudioParagraphsTable, project: StudioProjectsTable, locale: MessageLocale): StudioBlock {
  const voice = voiceOf(p, project);
  const failure = failureOut(p, locale);
  return {
    block_id: p.id,
    sub_type: 'p',
    nodes: [{ type: 'tts_node', text: p.text, voice_id: voice, project_voice_ref_id: voice }],
    speaker: p.speaker,
    voice_override: p.voice_id,
    pause_after_ms: p.pause_after_ms,
    content_hash: p.content_hash,
    converted: p.converted_hash === p.content_hash,
    ...(failure && { conversion_error: failure }),
  };
}

/** The project with its chapters, voices and speakers (each speaker's paragraph count). */
export function projectExtendedOut(
  project: StudioProjectsTable,
  chapters: StudioChaptersTable[],
  paragraphs: ParagraphSummary[],
  view: ConversionView,
) {
  const byChapter = new Map<string, ParagraphSummary[]>();
  const counts = new Map<string, number>();
  const voices = new Set<string>([project.default_paragraph_voice_id, project.default_title_voice_id]);
  for (const p of paragraphs) {
    const list = byChapter.get(p.chapter_id);
    if (list) list.push(p);
    else byChapter.set(p.chapter_id, [p]);
    counts.set(p.speaker, (counts.get(p.speaker) ?? 0) + 1);
    voices.add(voiceOf(p, project));
  }
  const speakers = JSON.parse(project.speakers) as Speakers;
  const listed = chapters.map((c) => chapterOut(c, byChapter.get(c.id) ?? [], project, view));
  const downloadable = listed.length > 0 && listed.every((c) => c.can_be_downloaded);
  const failedParagraphs = listed.reduce((n, c) => n + (c.failed_paragraphs?.length ?? 0), 0);
  // The last conversion's failure, while it still matters: nothing under way, and not everything has its audio.
  const failure = !view.activity && !downloadable ? view.failure : null;
  return {
    ...projectOut(project, view.activity),
    can_be_downloaded: downloadable,
    ...(failure && {
      conversion_error: {
        job_id: failure.jobId,
        code: failure.error.code,
        message: errorMessage(failure.error.code, view.locale, failure.error.params),
        paragraphs_failed: failedParagraphs,
      },
    }),
    quality_preset: 'standard' as const,
    chapters: listed,
    pronunciation_dictionary_versions: [],
    pronunciation_dictionary_locators: JSON.parse(project.pronunciation_locators) as {
      pronunciation_dictionary_id: string;
      version_id?: string;
    }[],
    apply_text_normalization: project.apply_text_normalization as 'auto' | 'on' | 'off' | 'apply_english',
    assets: [],
    voices: [...voices].map((voiceId) => ({
      project_voice_ref_id: voiceId,
      voice_id: voiceId,
      alias:
        speakers
          .filter((s) => s.voice_id === voiceId)
          .map((s) => s.name)
          .join(', ') || voiceId,
      stability: 0.5,
      similarity_boost: 0.75,
      style: 0,
      is_pinned: false,
      use_speaker_boost: true,
      volume_gain: 0,
      speed: 1,
    })),
    speakers: speakers.map((s) => ({ ...s, paragraphs: counts.get(s.name) ?? 0 })),
    default_speaker: project.default_speaker,
  };
}
