import { createHash } from 'node:crypto';
import type { StudioParagraphsTable, StudioProjectsTable } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Storage } from '../platform/storage.js';
import type { ImportedDocument } from './document.js';
import type { StudioRepository } from './repository.js';

/** The voices a project may name: one the account can use, and the library's first in a language for a default. */
export interface StudioVoices {
  usable(accountId: string, voiceId: string): Promise<boolean>;
  fallback(language: string): Promise<string | null>;
}

export interface CreateProject {
  name: string;
  document: ImportedDocument;
  sourceType: 'blank' | 'book';
  defaultTitleVoiceId?: string;
  defaultParagraphVoiceId?: string;
  defaultModelId?: string;
  title?: string;
  author?: string;
  description?: string;
  language?: string;
  applyTextNormalization?: 'auto' | 'on' | 'off' | 'apply_english';
  locators: { pronunciation_dictionary_id: string; version_id?: string }[];
}

export interface ParagraphEdit {
  text?: string;
  speaker?: string;
  voice_id?: string | null;
  pause_after_ms?: number;
}

export type Speakers = { name: string; voice_id: string | null }[];

/** The model a project names when the request names none (ElevenLabs' default; the engine follows the voice). */
export const DEFAULT_MODEL = 'eleven_multilingual_v2';

/**
 * The hash of what a paragraph's audio depends on: its text, the voice that speaks it, the model, the text
 * normalisation and the pronunciation dictionaries. A conversion skips a paragraph whose audio was made from the
 * same hash. The pause after it is not in it: silence is added between paragraphs, not spoken.
 */
export function contentHash(
  p: Pick<StudioParagraphsTable, 'text' | 'speaker' | 'voice_id'>,
  project: Pick<
    StudioProjectsTable,
    'default_paragraph_voice_id' | 'default_model_id' | 'apply_text_normalization' | 'pronunciation_locators' | 'speakers'
  >,
): string {
  const voice = voiceOf(p, project);
  const parts = [p.text, voice, project.default_model_id, project.apply_text_normalization, project.pronunciation_locators];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The voice that speaks a paragraph: its own, else its speaker's, else the project's default paragraph voice. */
export function voiceOf(
  p: Pick<StudioParagraphsTable, 'speaker' | 'voice_id'>,
  project: Pick<StudioProjectsTable, 'default_paragraph_voice_id' | 'speakers'>,
): string {
  if (p.voice_id) return p.voice_id;
  const speakers = JSON.parse(project.speakers) as Speakers;
  return speakers.find((s) => s.name === p.speaker)?.voice_id ?? project.default_paragraph_voice_id;
}

const voiceRefused = (field: string) => new AppError('VALIDATION_FAILED', { field, rule: 'must be a voice you can use' });

/** Studio projects of an account: made from a document, read, edited and deleted by their owner only. */
export class StudioService {
  constructor(
    private readonly repo: StudioRepository,
    private readonly voices: StudioVoices,
    private readonly storage: Storage,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private async checkVoice(accountId: string, voiceId: string, field: string): Promise<void> {
    if (!(await this.voices.usable(accountId, voiceId))) throw voiceRefused(field);
  }

  async create(accountId: string, input: CreateProject): Promise<StudioProjectsTable> {
    const { document } = input;
    const language = input.language ?? (document.narrator === '旁白' ? 'zh' : 'en');
    for (const [field, id] of [
      ['default_paragraph_voice_id', input.defaultParagraphVoiceId],
      ['default_title_voice_id', input.defaultTitleVoiceId],
    ] as const)
      if (id) await this.checkVoice(accountId, id, field);
    const paragraphVoice = input.defaultParagraphVoiceId ?? input.defaultTitleVoiceId ?? (await this.voices.fallback(language));
    if (!paragraphVoice) throw new AppError('PARAMETERS_NEEDED', { field: 'default_paragraph_voice_id' });
    const at = this.now().toISOString();
    const id = newId('studioProject');
    let coverKey: string | null = null;
    if (document.cover) {
      coverKey = `studio/${accountId}/${id}/cover`;
      await this.storage.put(coverKey, document.cover.data, { contentType: document.cover.type });
    }
    const project: StudioProjectsTable = {
      id,
      account_id: accountId,
      name: input.name,
      title: input.title ?? document.title,
      author: input.author ?? document.author,
      description: input.description ?? null,
      language,
      cover_key: coverKey,
      cover_type: document.cover?.type ?? null,
      source_type: input.sourceType,
      default_title_voice_id: input.defaultTitleVoiceId ?? paragraphVoice,
      default_paragraph_voice_id: paragraphVoice,
      default_model_id: input.defaultModelId ?? DEFAULT_MODEL,
      apply_text_normalization: input.applyTextNormalization ?? 'auto',
      pronunciation_locators: JSON.stringify(input.locators),
      default_speaker: document.narrator,
      speakers: JSON.stringify(document.speakers.map((name) => ({ name, voice_id: null }))),
      created_at: at,
      updated_at: at,
    };
    const chapters = document.chapters.map((c, position) => ({
      id: newId('studioChapter'),
      project_id: id,
      position,
      title: c.title,
      created_at: at,
      updated_at: at,
    }));
    const paragraphs = document.chapters.flatMap((c, i) =>
      c.paragraphs.map((p, position) => {
        const row = { text: p.text, speaker: p.speaker, voice_id: null };
        return {
          id: newId('studioParagraph'),
          project_id: id,
          chapter_id: chapters[i]!.id,
          position,
          ...row,
          pause_after_ms: 0,
          content_hash: contentHash(row, project),
          converted_hash: null,
          updated_at: at,
        };
      }),
    );
    try {
      await this.repo.transaction((trx) => this.repo.insert(trx, project, chapters, paragraphs));
    } catch (e) {
      if (coverKey) await this.storage.delete(coverKey).catch(() => {});
      throw e;
    }
    return project;
  }

  async project(accountId: string, id: string): Promise<StudioProjectsTable> {
    const project = await this.repo.project(accountId, id);
    if (!project) throw new AppError('NOT_FOUND');
    return project;
  }

  list(accountId: string): Promise<StudioProjectsTable[]> {
    return this.repo.projects(accountId);
  }

  async delete(accountId: string, id: string): Promise<void> {
    const project = await this.project(accountId, id);
    await this.repo.delete(project.id);
    // Its cover, its paragraphs' audio and what its snapshots kept: everything under the project's folder.
    for (const key of await this.storage.list(`studio/${accountId}/${project.id}`))
      await this.storage.delete(key).catch(() => {});
  }

  async cover(accountId: string, id: string): Promise<{ data: Buffer; type: string }> {
    const project = await this.project(accountId, id);
    const data = project.cover_key ? await this.storage.get(project.cover_key) : null;
    if (!data) throw new AppError('NOT_FOUND');
    return { data, type: project.cover_type ?? 'application/octet-stream' };
  }

  async chapter(accountId: string, projectId: string, chapterId: string) {
    const project = await this.project(accountId, projectId);
    const chapter = await this.repo.chapter(project.id, chapterId);
    if (!chapter) throw new AppError('NOT_FOUND');
    return { project, chapter, paragraphs: await this.repo.paragraphs(chapter.id) };
  }

  /** Changes a paragraph: its text, speaker (a new one joins the project's speakers), own voice or pause. */
  async editParagraph(accountId: string, projectId: string, paragraphId: string, edit: ParagraphEdit) {
    if (edit.voice_id) await this.checkVoice(accountId, edit.voice_id, 'voice_id');
    return this.repo.transaction(async (trx) => {
      const project = await this.repo.project(accountId, projectId, trx);
      const paragraph = project && (await this.repo.paragraph(project.id, paragraphId, trx));
      if (!project || !paragraph) throw new AppError('NOT_FOUND');
      const at = this.now().toISOString();
      const speakers = JSON.parse(project.speakers) as Speakers;
      if (edit.speaker !== undefined && !speakers.some((s) => s.name === edit.speaker)) {
        speakers.push({ name: edit.speaker, voice_id: null });
        project.speakers = JSON.stringify(speakers);
        await this.repo.updateProject(trx, project.id, { speakers: project.speakers, updated_at: at });
      }
      const next = {
        ...paragraph,
        ...(edit.text !== undefined && { text: edit.text.trim() }),
        ...(edit.speaker !== undefined && { speaker: edit.speaker }),
        ...(edit.voice_id !== undefined && { voice_id: edit.voice_id }),
        ...(edit.pause_after_ms !== undefined && { pause_after_ms: edit.pause_after_ms }),
        updated_at: at,
      };
      next.content_hash = contentHash(next, project);
      const { text, speaker, voice_id, pause_after_ms, content_hash, updated_at } = next;
      await this.repo.updateParagraph(trx, paragraph.id, { text, speaker, voice_id, pause_after_ms, content_hash, updated_at });
      return { project, paragraph: next };
    });
  }

  /** Maps a speaker to a voice for the whole project (null: the default voice); the paragraphs it changes are hashed again. */
  async mapSpeaker(accountId: string, projectId: string, speaker: string, voiceId: string | null): Promise<StudioProjectsTable> {
    if (voiceId) await this.checkVoice(accountId, voiceId, 'voice_id');
    return this.repo.transaction(async (trx) => {
      const project = await this.repo.project(accountId, projectId, trx);
      if (!project) throw new AppError('NOT_FOUND');
      const speakers = JSON.parse(project.speakers) as Speakers;
      const found = speakers.find((s) => s.name === speaker);
      if (found) found.voice_id = voiceId;
      else speakers.push({ name: speaker, voice_id: voiceId });
      project.speakers = JSON.stringify(speakers);
      project.updated_at = this.now().toISOString();
      await this.repo.updateProject(trx, project.id, { speakers: project.speakers, updated_at: project.updated_at });
      for (const p of await this.repo.projectParagraphs(project.id, trx)) {
        if (p.speaker !== speaker || p.voice_id) continue;
        const hash = contentHash(p, project);
        if (hash !== p.content_hash) await this.repo.updateParagraph(trx, p.id, { content_hash: hash });
      }
      return project;
    });
  }
}
