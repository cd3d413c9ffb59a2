import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody, STUDIO_LIMITS, StudioBlock, StudioChapter, StudioDeleted, StudioParagraphEdit } from '@polyvox/contracts';
import { callerOf } from '../http/auth.js';
import { requestLocale } from '../http/locale.js';
import { blockOut, chapterOut } from './shapes.js';
import type { StudioStructure } from './structure.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const ProjectParams = z.object({ project_id: z.string().min(1).max(64) });
const ChapterParams = ProjectParams.extend({ chapter_id: z.string().min(1).max(64) });
const ParagraphParams = ProjectParams.extend({ paragraph_id: z.string().min(1).max(64) });
const Position = z.number().int().min(0).max(STUDIO_LIMITS.maxParagraphs);
const NewParagraph = StudioParagraphEdit.extend({
  text: z.string().trim().min(1, 'must not be empty').max(STUDIO_LIMITS.paragraphMaxLength),
  position: Position.optional().meta({ description: 'Its place in the chapter, from 0; absent: the end' }),
}).strict();

/** Adding, removing and reordering chapters (ElevenLabs' add and delete) and paragraphs (Polyvox's), owner only. */
export function studioStructureRoutes(deps: { structure: StudioStructure }): FastifyPluginAsyncZod {
  const { structure } = deps;
  return async (app) => {
    const route = { config: { auth: 'caller' as const } };
    const tags = ['studio'];

    app.post(
      '/v1/studio/projects/:project_id/chapters',
      {
        ...route,
        schema: {
          tags,
          summary: 'Add an empty chapter at the end of the project',
          description: `A project holds at most ${STUDIO_LIMITS.maxChapters} chapters (400 VALIDATION_FAILED).`,
          params: ProjectParams,
          body: z.object({ name: z.string().trim().min(1).max(200), from_url: z.string().optional() }),
          response: { 200: z.object({ chapter: StudioChapter }), ...errors },
        },
      },
      async (request) => {
        const { accountId } = callerOf(request);
        const chapter = await structure.addChapter(accountId, request.params.project_id, request.body.name);
        const project = await structure.projectOf(accountId, request.params.project_id);
        return { chapter: chapterOut(chapter, [], project, { locale: requestLocale(request) }) };
      },
    );

    app.delete(
      '/v1/studio/projects/:project_id/chapters/:chapter_id',
      {
        ...route,
        schema: {
          tags,
          summary: 'Delete a chapter and its paragraphs (their audio stays while a snapshot keeps it)',
          params: ChapterParams,
          response: { 200: StudioDeleted, ...errors },
        },
      },
      async (request) => {
        await structure.deleteChapter(callerOf(request).accountId, request.params.project_id, request.params.chapter_id);
        return { status: 'ok' as const };
      },
    );

    app.post(
      '/v1/studio/projects/:project_id/chapters/:chapter_id/move',
      {
        ...route,
        schema: {
          tags,
          summary: 'Polyvox: move a chapter to `position` (from 0) in the project',
          params: ChapterParams,
          body: z.object({ position: Position }).strict(),
          response: { 200: StudioDeleted, ...errors },
        },
      },
      async (request) => {
        const { project_id, chapter_id } = request.params;
        await structure.moveChapter(callerOf(request).accountId, project_id, chapter_id, request.body.position);
        return { status: 'ok' as const };
      },
    );

    app.post(
      '/v1/studio/projects/:project_id/chapters/:chapter_id/paragraphs',
      {
        ...route,
        schema: {
          tags,
          summary: 'Polyvox: add a paragraph to a chapter (at `position`, else at its end); answers its block',
          description: `Its speaker defaults to the project's narrator; at most ${STUDIO_LIMITS.maxParagraphs} paragraphs a project (400 VALIDATION_FAILED).`,
          params: ChapterParams,
          body: NewParagraph,
          response: { 200: StudioBlock, ...errors },
        },
      },
      async (request) => {
        const { project_id, chapter_id } = request.params;
        const { project, paragraph } = await structure.addParagraph(
          callerOf(request).accountId,
          project_id,
          chapter_id,
          request.body,
        );
        return blockOut(paragraph, project, requestLocale(request));
      },
    );

    app.delete(
      '/v1/studio/projects/:project_id/paragraphs/:paragraph_id',
      {
        ...route,
        schema: {
          tags,
          summary: 'Polyvox: delete a paragraph (its audio stays while a snapshot keeps it)',
          params: ParagraphParams,
          response: { 200: StudioDeleted, ...errors },
        },
      },
      async (request) => {
        await structure.deleteParagraph(callerOf(request).accountId, request.params.project_id, request.params.paragraph_id);
        return { status: 'ok' as const };
      },
    );

    app.post(
      '/v1/studio/projects/:project_id/paragraphs/:paragraph_id/move',
      {
        ...route,
        schema: {
          tags,
          summary: 'Polyvox: move a paragraph to `position` (from 0) in its chapter, or in another (`chapter_id`)',
          description: 'Its content hash and audio stay: where a paragraph stands is not what it sounds like.',
          params: ParagraphParams,
          body: z.object({ position: Position, chapter_id: z.string().min(1).max(64).optional() }).strict(),
          response: { 200: StudioBlock, ...errors },
        },
      },
      async (request) => {
        const { project_id, paragraph_id } = request.params;
        const { project, paragraph } = await structure.moveParagraph(
          callerOf(request).accountId,
          project_id,
          paragraph_id,
          request.body.position,
          request.body.chapter_id,
        );
        return blockOut(paragraph, project, requestLocale(request));
      },
    );
  };
}
