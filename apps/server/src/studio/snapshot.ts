import type { Kysely } from 'kysely';
import type { Database, StudioSnapshotsTable } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { voiceOf } from './service.js';

/** What a snapshot keeps of a conversion: everything an export needs, its audio by storage key. */
// prettier-ignore
export interface SnapshotManifest { project: { id: string; name: string; title: string | null; author: string | null; language: string | null; cover_key: string | null; cover_type: string | null }; chapters: { id: string; title: string; paragraphs: { id: string; text: string; speaker: string; voice_id: string; audio_key: string; audio_ms: number; sample_rate: number; pause_after_ms: number; words: { text: string; start: number; end: number }[] }[] }[] }

type Db = Kysely<Database>;
type Chapter = SnapshotManifest['chapters'][number];

/**
 * The project as converted now: every chapter, each with its paragraphs whose audio is that of their current content
 * (a paragraph changed since, or never converted, is left out: a snapshot holds only what was made).
 */
export async function currentManifest(db: Db, accountId: string, projectId: string): Promise<SnapshotManifest> {
  const project = await db
    .selectFrom('studio_projects')
    .selectAll()
    .where('id', '=', projectId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!project) throw new AppError('NOT_FOUND');
  const chapters = await db
    .selectFrom('studio_chapters')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('position')
    .execute();
  const rows = await db
    .selectFrom('studio_paragraphs')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('chapter_id')
    .orderBy('position')
    .execute();
  const byChapter = new Map<string, Chapter['paragraphs']>();
  for (const p of rows) {
    if (!p.audio_key || p.converted_hash !== p.content_hash) continue;
    const list = byChapter.get(p.chapter_id) ?? [];
    byChapter.set(p.chapter_id, list);
    list.push({
      id: p.id,
      text: p.text,
      speaker: p.speaker,
      voice_id: voiceOf(p, project),
      audio_key: p.audio_key,
      audio_ms: Number(p.audio_ms ?? 0),
      sample_rate: Number(p.sample_rate ?? 0),
      pause_after_ms: Number(p.pause_after_ms),
      words: p.words ? (JSON.parse(p.words) as Chapter['paragraphs'][number]['words']) : [],
    });
  }
  return {
    project: {
      id: project.id,
      name: project.name,
      title: project.title,
      author: project.author,
      language: project.language,
      cover_key: project.cover_key,
      cover_type: project.cover_type,
    },
    chapters: chapters.map((c) => ({ id: c.id, title: c.title, paragraphs: byChapter.get(c.id) ?? [] })),
  };
}

/** Records the project's snapshot and one for each of `chapterIds` (the chapters a conversion made). */
export async function recordSnapshots(
  db: Db,
  accountId: string,
  projectId: string,
  chapterIds: readonly string[],
  at: Date = new Date(),
): Promise<StudioSnapshotsTable[]> {
  const manifest = await currentManifest(db, accountId, projectId);
  const created_at = at.toISOString();
  const stamp = created_at.slice(0, 16).replace('T', ' ');
  const rows: StudioSnapshotsTable[] = [
    {
      id: newId('studioSnapshot'),
      project_id: projectId,
      chapter_id: null,
      name: `${manifest.project.name} ${stamp}`,
      created_at,
      manifest: JSON.stringify(manifest),
    },
  ];
  for (const chapter of manifest.chapters) {
    if (!chapterIds.includes(chapter.id)) continue;
    const one: SnapshotManifest = { project: manifest.project, chapters: [chapter] };
    rows.push({
      id: newId('studioSnapshot'),
      project_id: projectId,
      chapter_id: chapter.id,
      name: `${chapter.title} ${stamp}`,
      created_at,
      manifest: JSON.stringify(one),
    });
  }
  await db.insertInto('studio_snapshots').values(rows).execute();
  return rows;
}

/** The snapshots of a project (chapter_id null: the project's own) or of one chapter, newest first; the owner's only. */
export async function listSnapshots(db: Db, accountId: string, projectId: string, chapterId: string | null) {
  await owned(db, accountId, projectId);
  return db
    .selectFrom('studio_snapshots')
    .select(['id', 'project_id', 'chapter_id', 'name', 'created_at'])
    .where('project_id', '=', projectId)
    .$if(chapterId === null, (q) => q.where('chapter_id', 'is', null))
    .$if(chapterId !== null, (q) => q.where('chapter_id', '=', chapterId!))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** One snapshot's row (NOT_FOUND for another owner's, or one of another project or chapter). */
export async function snapshotRow(
  db: Db,
  accountId: string,
  projectId: string,
  snapshotId: string,
  chapterId: string | null = null,
) {
  await owned(db, accountId, projectId);
  const row = await db
    .selectFrom('studio_snapshots')
    .selectAll()
    .where('id', '=', snapshotId)
    .where('project_id', '=', projectId)
    .$if(chapterId !== null, (q) => q.where('chapter_id', '=', chapterId!))
    .executeTakeFirst();
  if (!row) throw new AppError('NOT_FOUND');
  return row;
}

/** A snapshot's manifest: what an export reads. NOT_FOUND for another owner's. */
export async function loadSnapshot(db: Db, accountId: string, projectId: string, snapshotId: string): Promise<SnapshotManifest> {
  return JSON.parse((await snapshotRow(db, accountId, projectId, snapshotId)).manifest) as SnapshotManifest;
}

/** Whether a snapshot of the project still needs this stored audio (it stays while one does). */
export async function keptBySnapshot(db: Db, projectId: string, audioKey: string): Promise<boolean> {
  const row = await db
    .selectFrom('studio_snapshots')
    .select('id')
    .where('project_id', '=', projectId)
    .where('manifest', 'like', `%"${audioKey}"%`)
    .executeTakeFirst();
  return row !== undefined;
}

async function owned(db: Db, accountId: string, projectId: string): Promise<void> {
  const project = await db
    .selectFrom('studio_projects')
    .select('id')
    .where('id', '=', projectId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!project) throw new AppError('NOT_FOUND');
}
