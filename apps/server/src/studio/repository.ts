import type { Kysely, Transaction } from 'kysely';
import type { Database, StudioChaptersTable, StudioParagraphsTable, StudioProjectsTable } from '../platform/db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Rows inserted in one statement: few enough parameters for either database. */
const BATCH = 400;

/** The SQL of Studio projects, chapters and paragraphs; one set of queries for SQLite and PostgreSQL. */
export class StudioRepository {
  constructor(readonly db: Kysely<Database>) {}

  transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async insert(
    trx: Db,
    project: StudioProjectsTable,
    chapters: StudioChaptersTable[],
    paragraphs: StudioParagraphsTable[],
  ): Promise<void> {
    await trx.insertInto('studio_projects').values(project).execute();
    for (let i = 0; i < chapters.length; i += BATCH)
      await trx
        .insertInto('studio_chapters')
        .values(chapters.slice(i, i + BATCH))
        .execute();
    for (let i = 0; i < paragraphs.length; i += BATCH)
      await trx
        .insertInto('studio_paragraphs')
        .values(paragraphs.slice(i, i + BATCH))
        .execute();
  }

  /** The account's project; undefined for a missing one and for another account's alike. */
  project(accountId: string, id: string, db: Db = this.db): Promise<StudioProjectsTable | undefined> {
    return db
      .selectFrom('studio_projects')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
  }

  projects(accountId: string): Promise<StudioProjectsTable[]> {
    return this.db
      .selectFrom('studio_projects')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  chapters(projectId: string, db: Db = this.db): Promise<StudioChaptersTable[]> {
    return db.selectFrom('studio_chapters').selectAll().where('project_id', '=', projectId).orderBy('position').execute();
  }

  chapter(projectId: string, chapterId: string): Promise<StudioChaptersTable | undefined> {
    return this.db
      .selectFrom('studio_chapters')
      .selectAll()
      .where('id', '=', chapterId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
  }

  paragraphs(chapterId: string): Promise<StudioParagraphsTable[]> {
    return this.db.selectFrom('studio_paragraphs').selectAll().where('chapter_id', '=', chapterId).orderBy('position').execute();
  }

  /** Every paragraph of a project, without its text (the counts and hashes of chapters and speakers). */
  paragraphSummaries(projectId: string, db: Db = this.db) {
    return db
      .selectFrom('studio_paragraphs')
      .select(['id', 'chapter_id', 'speaker', 'voice_id', 'content_hash', 'converted_hash', 'conversion_error'])
      .select((eb) => eb.fn<number>('length', ['text']).as('characters'))
      .where('project_id', '=', projectId)
      .execute();
  }

  /** Every paragraph of a project, text included: what a change of voices hashes again. */
  projectParagraphs(projectId: string, db: Db): Promise<StudioParagraphsTable[]> {
    return db.selectFrom('studio_paragraphs').selectAll().where('project_id', '=', projectId).execute();
  }

  paragraph(projectId: string, paragraphId: string, db: Db = this.db): Promise<StudioParagraphsTable | undefined> {
    return db
      .selectFrom('studio_paragraphs')
      .selectAll()
      .where('id', '=', paragraphId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
  }

  async updateParagraph(
    db: Db,
    id: string,
    values: Partial<
      Pick<StudioParagraphsTable, 'text' | 'speaker' | 'voice_id' | 'pause_after_ms' | 'content_hash' | 'updated_at'>
    >,
  ): Promise<void> {
    await db.updateTable('studio_paragraphs').set(values).where('id', '=', id).execute();
  }

  async updateProject(db: Db, id: string, values: Partial<Pick<StudioProjectsTable, 'speakers' | 'updated_at'>>): Promise<void> {
    await db.updateTable('studio_projects').set(values).where('id', '=', id).execute();
  }

  async delete(projectId: string): Promise<void> {
    await this.transaction(async (trx) => {
      await trx.deleteFrom('studio_snapshots').where('project_id', '=', projectId).execute();
      await trx.deleteFrom('studio_paragraphs').where('project_id', '=', projectId).execute();
      await trx.deleteFrom('studio_chapters').where('project_id', '=', projectId).execute();
      await trx.deleteFrom('studio_projects').where('id', '=', projectId).execute();
    });
  }
}
