import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody } from '@polyvox/contracts';
import { callerOf } from '../http/auth.js';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { chargeOf } from '../synthesis/route-helpers.js';
import type { StudioConversion } from './convert.js';
import { listSnapshots, snapshotRow, type SnapshotManifest } from './snapshot.js';

export interface ConvertRoutesDeps {
  db: Kysely<Database>;
  studio: StudioConversion;
}

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const ProjectParams = z.object({ project_id: z.string().min(1).max(64) });
const ChapterParams = ProjectParams.extend({ chapter_id: z.string().min(1).max(64) });
const ParagraphParams = ProjectParams.extend({ paragraph_id: z.string().min(1).max(64) });
const Converting = z.object({
  status: z.literal('ok'),
  job_id: z.string().meta({ description: 'Polyvox: the durable job converting it (progress in the project and chapter GETs)' }),
});
const EstimateOut = z.object({
  credits: z.number().int(),
  characters: z.number().int(),
  paragraphs: z.number().int().meta({ description: 'Paragraphs a conversion would speak (those changed since their audio)' }),
});
const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const ProjectSnapshot = z.object({
  project_snapshot_id: z.string(),
  project_id: z.string(),
  created_at_unix: z.number().int(),
  name: z.string(),
});
const ChapterSnapshot = z.object({
  chapter_snapshot_id: z.string(),
  project_id: z.string(),
  chapter_id: z.string(),
  created_at_unix: z.number().int(),
  name: z.string(),
});
const Alignments = { character_alignments: z.array(z.object({ characters: z.array(z.string()) }).passthrough()) };
const seconds = (m: SnapshotManifest) =>
  m.chapters.reduce((s, c) => s + c.paragraphs.reduce((t, p) => t + p.audio_ms + p.pause_after_ms, 0), 0) / 1000;

const CONVERT =
  'Converts as a durable background job: only paragraphs whose text, voice or settings changed since their audio are spoken, ' +
  'each charged as a synthesis of its own (a hold, then a settle); a crash resumes where it stopped, charging nothing twice. ' +
  'Progress is in the project list and GET (`state`: `in_queue`, then `converting`; `conversion_progress`) and per chapter ' +
  '(`state`, `conversion_progress`, `can_be_downloaded`). A paragraph that fails is charged nothing (its hold released, or never ' +
  'taken) and says why on its block (`conversion_error`: a code and a message in the request language) and its chapter ' +
  '(`failed_paragraphs`); the others are still spoken (a spent balance or key limit stops the rest), and the project says the ' +
  'conversion failed (`conversion_error`) until it is fully converted. A finished ' +
  'conversion records a project snapshot and one per converted chapter. 402 INSUFFICIENT_BALANCE when the balance does not ' +
  'cover the estimate (nothing held); a conversion of the same scope already under way is answered with its job. Each paragraph is a `tts` record in the usage history (`api` for an API key). ' +
  'The paragraphs it would speak pass moderation first: 422 CONTENT_REFUSED when one may not be spoken (no job, nothing held); ' +
  'one refused as it is spoken (its dictionaries applied) fails the job with CONTENT_REFUSED, the paragraphs before it kept.';

/** Converting Studio projects, the price first, one paragraph at once, and the snapshots conversions recorded. */
export function studioConvertRoutes(deps: ConvertRoutesDeps): FastifyPluginAsyncZod {
  const { studio, db } = deps;
  return async (app) => {
    const route = { config: { auth: 'caller' as const } };
    const tags = ['studio'];

    app.post(
      '/v1/studio/projects/:project_id/convert',
      {
        ...route,
        schema: {
          tags,
          summary: 'Convert the whole project',
          description: CONVERT,
          params: ProjectParams,
          response: { 200: Converting, ...errors, 402: ErrorBody, 422: ErrorBody },
        },
      },
      async (request) => {
        const job = await studio.start(chargeOf(callerOf(request), 'tts'), request.params.project_id, null, request.id);
        return { status: 'ok' as const, job_id: job.id };
      },
    );

    app.post(
      '/v1/studio/projects/:project_id/chapters/:chapter_id/convert',
      {
        ...route,
        schema: {
          tags,
          summary: 'Convert one chapter',
          description: CONVERT,
          params: ChapterParams,
          response: { 200: Converting, ...errors, 402: ErrorBody, 422: ErrorBody },
        },
      },
      async (request) => {
        const { project_id, chapter_id } = request.params;
        const job = await studio.start(chargeOf(callerOf(request), 'tts'), project_id, chapter_id, request.id);
        return { status: 'ok' as const, job_id: job.id };
      },
    );

    app.get(
      '/v1/studio/projects/:project_id/convert/estimate',
      {
        ...route,
        schema: {
          tags,
          summary: 'Polyvox: what converting the project (or `chapter_id` alone) would cost, nothing held',
          description:
            'Credits and characters of the paragraphs changed since their audio, each priced as its synthesis will be.',
          params: ProjectParams,
          querystring: z.object({ chapter_id: z.string().min(1).max(64).optional(), lang: z.string().optional() }).passthrough(),
          response: { 200: EstimateOut, ...errors },
        },
      },
      async (request) =>
        studio.estimate(callerOf(request).accountId, request.params.project_id, request.query.chapter_id ?? null),
    );

    app.post(
      '/v1/studio/projects/:project_id/paragraphs/:paragraph_id/convert',
      {
        ...route,
        schema: {
          tags,
          summary: 'Polyvox: regenerate one paragraph now; answers its audio (WAV) and stores it',
          description:
            'Charged as any synthesis of its text. A snapshot keeps the audio it had before. 422 CONTENT_REFUSED (nothing held) when moderation refuses its text.',
          params: ParagraphParams,
          response: { 200: z.string().meta({ description: 'WAV audio' }), ...errors, 402: ErrorBody, 422: ErrorBody },
        },
      },
      async (request, reply) => {
        const abort = new AbortController();
        request.raw.on('close', () => {
          if (!reply.sent) abort.abort(new Error('client left'));
        });
        const { project_id, paragraph_id } = request.params;
        const made = await studio.regenerate(chargeOf(callerOf(request), 'tts'), project_id, paragraph_id, abort.signal);
        return reply
          .header('content-type', 'audio/wav')
          .header('x-audio-ms', String(made.ms))
          .send(made.audio as unknown as string);
      },
    );

    app.get(
      '/v1/studio/projects/:project_id/paragraphs/:paragraph_id/audio',
      {
        ...route,
        schema: {
          tags,
          summary: "Polyvox: a paragraph's stored audio (WAV), played again without a charge (404 before its first conversion)",
          params: ParagraphParams,
          response: { 200: z.string().meta({ description: 'WAV audio' }), ...errors },
        },
      },
      async (request, reply) => {
        const audio = await studio.audio(callerOf(request).accountId, request.params.project_id, request.params.paragraph_id);
        return reply
          .header('content-type', 'audio/wav')
          .header('cache-control', 'private, no-store')
          .send(audio as unknown as string);
      },
    );

    app.get(
      '/v1/studio/projects/:project_id/snapshots',
      {
        ...route,
        schema: {
          tags,
          summary: "The project's snapshots, newest first (one per finished conversion)",
          params: ProjectParams,
          response: { 200: z.object({ snapshots: z.array(ProjectSnapshot) }), ...errors },
        },
      },
      async (request) => ({
        snapshots: (await listSnapshots(db, callerOf(request).accountId, request.params.project_id, null)).map((s) => ({
          project_snapshot_id: s.id,
          project_id: s.project_id,
          created_at_unix: unix(s.created_at),
          name: s.name,
        })),
      }),
    );

    app.get(
      '/v1/studio/projects/:project_id/snapshots/:project_snapshot_id',
      {
        ...route,
        schema: {
          tags,
          summary: 'One project snapshot',
          params: ProjectParams.extend({ project_snapshot_id: z.string().min(1).max(64) }),
          response: {
            200: ProjectSnapshot.extend({ ...Alignments, audio_duration_secs: z.number() }),
            ...errors,
          },
        },
      },
      async (request) => {
        const { project_id, project_snapshot_id } = request.params;
        const row = await snapshotRow(db, callerOf(request).accountId, project_id, project_snapshot_id);
        return {
          project_snapshot_id: row.id,
          project_id: row.project_id,
          created_at_unix: unix(row.created_at),
          name: row.name,
          character_alignments: [],
          audio_duration_secs: seconds(JSON.parse(row.manifest) as SnapshotManifest),
        };
      },
    );

    app.get(
      '/v1/studio/projects/:project_id/chapters/:chapter_id/snapshots',
      {
        ...route,
        schema: {
          tags,
          summary: "A chapter's snapshots, newest first",
          params: ChapterParams,
          response: { 200: z.object({ snapshots: z.array(ChapterSnapshot) }), ...errors },
        },
      },
      async (request) => {
        const { project_id, chapter_id } = request.params;
        return {
          snapshots: (await listSnapshots(db, callerOf(request).accountId, project_id, chapter_id)).map((s) => ({
            chapter_snapshot_id: s.id,
            project_id: s.project_id,
            chapter_id: s.chapter_id ?? chapter_id,
            created_at_unix: unix(s.created_at),
            name: s.name,
          })),
        };
      },
    );

    app.get(
      '/v1/studio/projects/:project_id/chapters/:chapter_id/snapshots/:chapter_snapshot_id',
      {
        ...route,
        schema: {
          tags,
          summary: 'One chapter snapshot',
          params: ChapterParams.extend({ chapter_snapshot_id: z.string().min(1).max(64) }),
          response: { 200: ChapterSnapshot.extend(Alignments), ...errors },
        },
      },
      async (request) => {
        const { project_id, chapter_id, chapter_snapshot_id } = request.params;
        const row = await snapshotRow(db, callerOf(request).accountId, project_id, chapter_snapshot_id, chapter_id);
        return {
          chapter_snapshot_id: row.id,
          project_id: row.project_id,
          chapter_id,
          created_at_unix: unix(row.created_at),
          name: row.name,
          character_alignments: [],
        };
      },
    );
  };
}
