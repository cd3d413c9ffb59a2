import type { z } from 'zod';
import type {
  StudioBlock,
  StudioChapter,
  StudioChapterWithContent,
  StudioProject,
  StudioProjectExtended,
} from '@polyvox/contracts';
import { browserUploadDeps, http } from '../api/client';
import { postForm, type UploadProgress } from '../api/upload';
import { attachmentName } from './attachment';

/**
 * Every call the Studio pages make, in one place: ElevenLabs' `/v1/studio/projects` routes (a session works as a key
 * does) and Polyvox's editing routes beside them. Types come from the contract where the server has the route today;
 * the conversion, snapshot and export routes are typed here from their agreed shapes (see `LATER`).
 */

export type Project = StudioProject;
export type ProjectDetail = z.infer<typeof StudioProjectExtended>;
export type Chapter = z.infer<typeof StudioChapter>;
export type ChapterDetail = z.infer<typeof StudioChapterWithContent>;
export type Paragraph = StudioBlock;
export type Speaker = ProjectDetail['speakers'][number];

/** `GET …/convert/estimate`: what converting the project (or one chapter) would cost. */
export interface ConvertEstimate {
  credits: number;
  characters: number;
}

/** A snapshot of a conversion (ElevenLabs' `ProjectSnapshotResponse`): its files stay downloadable. */
export interface Snapshot {
  project_snapshot_id: string;
  project_id: string;
  created_at_unix: number;
  name: string;
}

export const EXPORT_FORMATS = ['mp3', 'wav', 'm4b', 'srt', 'vtt', 'zip'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export type PasteFormat = 'plain' | 'markdown';
export type ParagraphEdit = { text?: string; speaker?: string; voice_id?: string | null; pause_after_ms?: number };

const BASE = '/v1/studio/projects';
const project = (id: string) => `${BASE}/${encodeURIComponent(id)}`;
const chapter = (id: string, chapterId: string) => `${project(id)}/chapters/${encodeURIComponent(chapterId)}`;
const paragraph = (id: string, paragraphId: string) => `${project(id)}/paragraphs/${encodeURIComponent(paragraphId)}`;

// ---- Routes the server has today (apps/server/src/studio/routes.ts). ----

export async function listProjects(signal?: AbortSignal): Promise<Project[]> {
  return (await http<{ projects: Project[] }>('GET', BASE, { signal })).projects;
}

export function fetchProject(id: string, signal?: AbortSignal): Promise<ProjectDetail> {
  return http('GET', project(id), { signal });
}

export function fetchChapter(id: string, chapterId: string, signal?: AbortSignal): Promise<ChapterDetail> {
  return http('GET', chapter(id, chapterId), { signal });
}

export async function createFromText(name: string, text: string, format: PasteFormat): Promise<Project> {
  return (await http<{ project: Project }>('POST', BASE, { json: { name, text, text_format: format } })).project;
}

/** A document (txt, md, epub, docx) sent as ElevenLabs' `from_document`, with the upload's real progress. */
export async function createFromFile(
  name: string,
  file: File,
  onProgress: (p: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<Project> {
  const form = new FormData();
  form.append('name', name);
  form.append('from_document', file, file.name);
  const answer = await postForm<{ project: Project }>(
    { path: BASE, form, size: file.size },
    onProgress,
    browserUploadDeps(),
    signal,
  );
  return answer.project;
}

export function deleteProject(id: string): Promise<{ status: 'ok' }> {
  return http('DELETE', project(id));
}

export function editParagraph(id: string, paragraphId: string, edit: ParagraphEdit): Promise<Paragraph> {
  return http('PATCH', paragraph(id, paragraphId), { json: edit });
}

/** One speaker → one voice for the whole project (`null`: the project's default paragraph voice). */
export function mapSpeaker(id: string, speaker: string, voiceId: string | null): Promise<ProjectDetail> {
  return http('PUT', `${project(id)}/speakers`, { json: { speaker, voice_id: voiceId } });
}

// ---- LATER: routes of the conversion branch (h/convert) and the export branch (h/export). ----
// Until they are merged the server answers 404 to each; the pages show the control disabled with a note
// (`isMissingRoute`), and light up once the route answers.

export function estimateConversion(id: string, chapterId?: string, signal?: AbortSignal): Promise<ConvertEstimate> {
  return http('GET', `${project(id)}/convert/estimate`, { query: { chapter_id: chapterId }, signal });
}

export function convertProject(id: string): Promise<unknown> {
  return http('POST', `${project(id)}/convert`);
}

export function convertChapter(id: string, chapterId: string): Promise<unknown> {
  return http('POST', `${chapter(id, chapterId)}/convert`);
}

/** Synthesises one paragraph again (its text, voice or pause changed) and answers its audio. */
export async function convertParagraph(id: string, paragraphId: string, signal?: AbortSignal): Promise<Blob> {
  const res = await http<Response>('POST', `${paragraph(id, paragraphId)}/convert`, { raw: true, signal });
  return res.blob();
}

/** A converted paragraph's audio, as last made. */
export async function paragraphAudio(id: string, paragraphId: string, signal?: AbortSignal): Promise<Blob> {
  const res = await http<Response>('GET', `${paragraph(id, paragraphId)}/audio`, { raw: true, signal });
  return res.blob();
}

export async function listSnapshots(id: string, signal?: AbortSignal): Promise<Snapshot[]> {
  return (await http<{ snapshots: Snapshot[] }>('GET', `${project(id)}/snapshots`, { signal })).snapshots;
}

/** A snapshot's whole book, or one chapter (`chapterId`), in a format; the file and the name the server gave it. */
export async function exportSnapshot(
  id: string,
  snapshotId: string,
  format: ExportFormat,
  chapterId?: string,
): Promise<{ blob: Blob; name: string | null }> {
  const res = await http<Response>('GET', `${project(id)}/snapshots/${encodeURIComponent(snapshotId)}/export`, {
    query: { format, chapter_id: chapterId },
    raw: true,
  });
  return { blob: await res.blob(), name: attachmentName(res.headers.get('content-disposition')) };
}

export function addChapter(id: string, name: string): Promise<{ chapter: Chapter }> {
  return http('POST', `${project(id)}/chapters`, { json: { name } });
}

export function removeChapter(id: string, chapterId: string): Promise<unknown> {
  return http('DELETE', chapter(id, chapterId));
}

/** Moves a chapter to `position` (from 0). */
export function moveChapter(id: string, chapterId: string, position: number): Promise<unknown> {
  return http('POST', `${chapter(id, chapterId)}/move`, { json: { position } });
}

/** A new paragraph after `afterId` (first in the chapter without one). */
export function addParagraph(id: string, chapterId: string, text: string, afterId?: string): Promise<Paragraph> {
  return http('POST', `${chapter(id, chapterId)}/paragraphs`, {
    json: { text, ...(afterId ? { after_paragraph_id: afterId } : {}) },
  });
}

export function removeParagraph(id: string, paragraphId: string): Promise<unknown> {
  return http('DELETE', paragraph(id, paragraphId));
}

/** Moves a paragraph to `position` (from 0) within its chapter. */
export function moveParagraph(id: string, paragraphId: string, position: number): Promise<unknown> {
  return http('POST', `${paragraph(id, paragraphId)}/move`, { json: { position } });
}
