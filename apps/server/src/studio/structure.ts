import { STUDIO_LIMITS } from '@polyvox/contracts';
import type { Kysely, Transaction } from 'kysely';
import type { Database, StudioChaptersTable, StudioParagraphsTable, StudioProjectsTable } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Storage } from '../platform/storage.js';
import { dropAudio } from './paragraph-audio.js';
import type { StudioRepository } from './repository.js';
import type { ParagraphEdit, StudioService } from './service.js';

export interface NewParagraph extends ParagraphEdit {
  text: string;
  /** Its place in the chapter, from 0 (absent: the end). */
  position?: number;
}

type Trx = Transaction<Database>;
const tooMany = (field: string, max: number) => new AppError('VALIDATION_FAILED', { field, rule: `at most ${max}` });

/** Gives `rows` the positions 0…n-1 in their order (writing only those that moved). */
async function renumber(trx: Trx, table: 'studio_chapters' | 'studio_paragraphs', rows: { id: string; position: number }[]) {
  for (const [position, row] of rows.entries())
    if (Number(row.position) !== position) await trx.updateTable(table).set({ position }).where('id', '=', row.id).execute();
}

const place = <T>(list: T[], item: T, position: number | undefined) =>
  list.splice(Math.max(0, Math.min(position ?? list.length, list.length)), 0, item);

/**
 * Adding, removing and reordering a project's chapters and paragraphs, its owner's only. A new paragraph is hashed as
 * any (content_hash); moving one leaves its hash and audio as they are (its place is not in what it sounds like);
 * removed audio goes unless a snapshot keeps it.
 */
export class StudioStructure {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly repo: StudioRepository,
    private readonly studio: StudioService,
    private readonly storage: Storage,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private async owned(trx: Trx, accountId: string, projectId: string): Promise<StudioProjectsTable> {
    const project = await this.repo.project(accountId, projectId, trx);
    if (!project) throw new AppError('NOT_FOUND');
    return project;
  }

  private async chapterIn(trx: Trx, projectId: string, chapterId: string): Promise<StudioChaptersTable> {
    const chapter = await trx
      .selectFrom('studio_chapters')
      .selectAll()
      .where('id', '=', chapterId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    if (!chapter) throw new AppError('NOT_FOUND');
    return chapter;
  }

  private siblings(trx: Trx, chapterId: string) {
    return trx
      .selectFrom('studio_paragraphs')
      .select(['id', 'position'])
      .where('chapter_id', '=', chapterId)
      .orderBy('position')
      .execute();
  }

  /** The account's project (NOT_FOUND for another's). */
  projectOf(accountId: string, projectId: string): Promise<StudioProjectsTable> {
    return this.studio.project(accountId, projectId);
  }

  async addChapter(accountId: string, projectId: string, name: string): Promise<StudioChaptersTable> {
    return this.repo.transaction(async (trx) => {
      const project = await this.owned(trx, accountId, projectId);
      const chapters = await this.repo.chapters(project.id, trx);
      if (chapters.length >= STUDIO_LIMITS.maxChapters) throw tooMany('chapters', STUDIO_LIMITS.maxChapters);
      const at = this.now().toISOString();
      const chapter = {
        id: newId('studioChapter'),
        project_id: project.id,
        position: chapters.length,
        title: name,
        created_at: at,
        updated_at: at,
      };
      await trx.insertInto('studio_chapters').values(chapter).execute();
      return chapter;
    });
  }

  async deleteChapter(accountId: string, projectId: string, chapterId: string): Promise<void> {
    const keys = await this.repo.transaction(async (trx) => {
      const project = await this.owned(trx, accountId, projectId);
      await this.chapterIn(trx, project.id, chapterId);
      const gone = await trx.selectFrom('studio_paragraphs').select('audio_key').where('chapter_id', '=', chapterId).execute();
      await trx.deleteFrom('studio_paragraphs').where('chapter_id', '=', chapterId).execute();
      await trx.deleteFrom('studio_chapters').where('id', '=', chapterId).execute();
      await renumber(trx, 'studio_chapters', await this.repo.chapters(project.id, trx));
      return gone.flatMap((p) => (p.audio_key ? [p.audio_key] : []));
    });
    for (const key of keys) await dropAudio({ db: this.db, storage: this.storage }, projectId, key);
  }

  async moveChapter(accountId: string, projectId: string, chapterId: string, position: number): Promise<void> {
    await this.repo.transaction(async (trx) => {
      const project = await this.owned(trx, accountId, projectId);
      const chapter = await this.chapterIn(trx, project.id, chapterId);
      const rest = (await this.repo.chapters(project.id, trx)).filter((c) => c.id !== chapter.id);
      place(rest, chapter, position);
      await renumber(trx, 'studio_chapters', rest);
    });
  }

  /** A new paragraph in a chapter: its speaker (a new one joins the project's), voice and pause as an edit gives them. */
  async addParagraph(accountId: string, projectId: string, chapterId: string, input: NewParagraph) {
    const id = newId('studioParagraph');
    await this.repo.transaction(async (trx) => {
      const project = await this.owned(trx, accountId, projectId);
      await this.chapterIn(trx, project.id, chapterId);
      const count = await trx
        .selectFrom('studio_paragraphs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', project.id)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= STUDIO_LIMITS.maxParagraphs) throw tooMany('paragraphs', STUDIO_LIMITS.maxParagraphs);
      const siblings = await this.siblings(trx, chapterId);
      const row: StudioParagraphsTable = {
        id,
        project_id: project.id,
        chapter_id: chapterId,
        position: siblings.length,
        text: input.text.trim(),
        speaker: project.default_speaker,
        voice_id: null,
        pause_after_ms: 0,
        content_hash: '',
        converted_hash: null,
        updated_at: this.now().toISOString(),
      };
      await trx.insertInto('studio_paragraphs').values(row).execute();
      place(siblings, { id, position: row.position }, input.position);
      await renumber(trx, 'studio_paragraphs', siblings);
    });
    // The edit sets its speaker, voice and pause (each checked) and its content hash.
    const { text: _text, position: _position, ...edit } = input;
    return this.studio.editParagraph(accountId, projectId, id, { ...edit, text: input.text });
  }

  async deleteParagraph(accountId: string, projectId: string, paragraphId: string): Promise<void> {
    const key = await this.repo.transaction(async (trx) => {
      const project = await this.owned(trx, accountId, projectId);
      const paragraph = await this.repo.paragraph(project.id, paragraphId, trx);
      if (!paragraph) throw new AppError('NOT_FOUND');
      await trx.deleteFrom('studio_paragraphs').where('id', '=', paragraph.id).execute();
      await renumber(trx, 'studio_paragraphs', await this.siblings(trx, paragraph.chapter_id));
      return paragraph.audio_key;
    });
    if (key) await dropAudio({ db: this.db, storage: this.storage }, projectId, key);
  }

  /** Moves a paragraph to `position` in its chapter or in another of the project's (`chapterId`). */
  async moveParagraph(accountId: string, projectId: string, paragraphId: string, position: number, chapterId?: string) {
    return this.repo.transaction(async (trx) => {
      const project = await this.owned(trx, accountId, projectId);
      const paragraph = await this.repo.paragraph(project.id, paragraphId, trx);
      if (!paragraph) throw new AppError('NOT_FOUND');
      const target = chapterId ?? paragraph.chapter_id;
      if (target !== paragraph.chapter_id) {
        await this.chapterIn(trx, project.id, target);
        await trx.updateTable('studio_paragraphs').set({ chapter_id: target }).where('id', '=', paragraph.id).execute();
        await renumber(trx, 'studio_paragraphs', await this.siblings(trx, paragraph.chapter_id));
      }
      const rest = (await this.siblings(trx, target)).filter((p) => p.id !== paragraph.id);
      place(rest, { id: paragraph.id, position: -1 }, position);
      await renumber(trx, 'studio_paragraphs', rest);
      return { project, paragraph: { ...paragraph, chapter_id: target } };
    });
  }
}
