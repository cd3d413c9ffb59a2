/**
 * Downloads of a Studio project's snapshots: ElevenLabs' routes (a project's or a chapter's snapshot as audio, a
 * project's snapshot as a zip) and Polyvox's `export` (mp3, WAV, M4B, SRT, WebVTT or zip, of the book or one
 * chapter). The account's own snapshots only (another's answer 404). Nothing is charged: the conversion paid.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody } from '@polyvox/contracts';
import { callerOf } from '../../http/auth.js';
import { clientLeaves } from '../../http/client-leaves.js';
import { addElevenLabsErrorDetail } from '../../http/error-detail.js';
import { KEY_OR_SESSION } from '../../synthesis/route-helpers.js';
import type { SnapshotManifest } from '../snapshot.js';
import { EXPORT_FORMATS, makeExport, type ExportDeps, type ExportRequest } from './exporter.js';
import { sendExport } from './send.js';

/** The manifest of an account's snapshot; another account's or a missing one throws NOT_FOUND. */
export type SnapshotLoader = (accountId: string, projectId: string, snapshotId: string) => Promise<SnapshotManifest>;

export interface StudioExportRoutesDeps extends ExportDeps {
  loadSnapshot: SnapshotLoader;
}

const Id = z.string().min(1).max(64);
const SnapshotParams = z.object({ project_id: Id, project_snapshot_id: Id });
const ChapterSnapshotParams = z.object({ project_id: Id, chapter_id: Id, chapter_snapshot_id: Id });
const StreamBody = z
  .object({
    convert_to_mpeg: z
      .boolean()
      .optional()
      .meta({ description: 'true: mp3; otherwise WAV (16-bit mono PCM at 24 kHz, as the paragraphs were made).' }),
  })
  .nullish();
const ExportQuery = z
  .object({
    format: z.enum(EXPORT_FORMATS).default('mp3').meta({ description: 'What to download.' }),
    chapter_id: Id.optional().meta({ description: 'One chapter only; without it, the whole book.' }),
    m4b: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true')
      .meta({ description: '`zip` only: the book as M4B in the zip as well.' }),
  })
  .passthrough();

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const FILE = z.string().meta({ description: 'The file, streamed as it is made.' });
const LABELLED =
  'Labelled as every Polyvox file: the AIGC field in the file (ID3 in mp3, INFO in WAV, the comment tag in M4B) and ' +
  'the watermark in the sound. An mp3 or WAV up to 32 MB (an mp3 of about 70 minutes, a WAV of about 11 minutes) is ' +
  'made whole before it is sent and also carries a signed C2PA manifest; a larger one, and an M4B, stream without ' +
  "one. Free: the snapshot's conversion paid.";
const SECURITY = KEY_OR_SESSION;

export function studioExportRoutes(deps: StudioExportRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    addElevenLabsErrorDetail(app);
    const route = { config: { auth: 'caller' as const } };
    const run = async (
      request: Parameters<typeof callerOf>[0],
      reply: Parameters<typeof sendExport>[1],
      ids: { projectId: string; snapshotId: string },
      req: Omit<ExportRequest, 'ids'>,
    ) => {
      const caller = callerOf(request);
      const manifest = await deps.loadSnapshot(caller.accountId, ids.projectId, ids.snapshotId);
      const left = clientLeaves(request, reply);
      const made = await makeExport(
        deps,
        manifest,
        { ...req, ids: { accountId: caller.accountId, apiKeyId: caller.key?.id ?? null, requestId: request.id } },
        left,
      );
      return sendExport(request, reply, left, made.chunks, made);
    };

    app.post(
      '/v1/studio/projects/:project_id/snapshots/:project_snapshot_id/stream',
      {
        ...route,
        schema: {
          tags: ['studio'],
          summary: "A project snapshot's audio",
          description: `The whole book, chapter after chapter, each paragraph followed by its pause. ${LABELLED}`,
          security: SECURITY,
          params: SnapshotParams,
          body: StreamBody,
          response: { 200: FILE, ...errors },
        },
      },
      async (request, reply) =>
        run(
          request,
          reply,
          { projectId: request.params.project_id, snapshotId: request.params.project_snapshot_id },
          { format: request.body?.convert_to_mpeg ? 'mp3' : 'wav' },
        ),
    );

    app.post(
      '/v1/studio/projects/:project_id/snapshots/:project_snapshot_id/archive',
      {
        ...route,
        schema: {
          tags: ['studio'],
          summary: "A project snapshot's chapters as a zip",
          description: `A zip of each chapter's mp3 and its subtitles (SRT). ${LABELLED}`,
          security: SECURITY,
          params: SnapshotParams,
          response: { 200: FILE, ...errors },
        },
      },
      async (request, reply) =>
        run(
          request,
          reply,
          { projectId: request.params.project_id, snapshotId: request.params.project_snapshot_id },
          { format: 'zip' },
        ),
    );

    app.post(
      '/v1/studio/projects/:project_id/chapters/:chapter_id/snapshots/:chapter_snapshot_id/stream',
      {
        ...route,
        schema: {
          tags: ['studio'],
          summary: "A chapter snapshot's audio",
          description: `One chapter as converted in the snapshot (a project snapshot's id also names its chapters' snapshots). ${LABELLED}`,
          security: SECURITY,
          params: ChapterSnapshotParams,
          body: StreamBody,
          response: { 200: FILE, ...errors },
        },
      },
      async (request, reply) =>
        run(
          request,
          reply,
          { projectId: request.params.project_id, snapshotId: request.params.chapter_snapshot_id },
          { format: request.body?.convert_to_mpeg ? 'mp3' : 'wav', chapterId: request.params.chapter_id },
        ),
    );

    app.get(
      '/v1/studio/projects/:project_id/snapshots/:project_snapshot_id/export',
      {
        ...route,
        // A HEAD would make the whole export to send none of it.
        exposeHeadRoute: false,
        schema: {
          tags: ['studio'],
          summary: 'Export a snapshot',
          description:
            'The book or one chapter as `mp3` or `wav`; as an audiobook (`m4b`: AAC with chapter marks, title, author and ' +
            'cover; made whole before its first byte); subtitles (`srt`, `vtt`) timed to the same audio; or a `zip` of ' +
            `each chapter's mp3 and SRT (with \`m4b=true\`, the M4B too). ${LABELLED}`,
          security: SECURITY,
          params: SnapshotParams,
          querystring: ExportQuery,
          response: { 200: FILE, ...errors },
        },
      },
      async (request, reply) => {
        const { format, chapter_id: chapterId, m4b } = request.query;
        return run(
          request,
          reply,
          { projectId: request.params.project_id, snapshotId: request.params.project_snapshot_id },
          { format, ...(chapterId !== undefined ? { chapterId } : {}), withM4b: m4b },
        );
      },
    );
  };
}
