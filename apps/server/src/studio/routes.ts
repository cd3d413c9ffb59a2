import type { Kysely } from 'kysely';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ErrorBody,
  STUDIO_LIMITS,
  StudioBlock,
  StudioChapterList,
  StudioChapterWithContent,
  StudioCreated,
  StudioDeleted,
  StudioParagraphEdit,
  StudioProjectExtended,
  StudioProjectList,
  StudioSpeakerVoice,
  sizeLimitText,
} from '@polyvox/contracts';
import { callerOf } from '../http/auth.js';
import { requestLocale } from '../http/locale.js';
import { addElevenLabsErrorDetail } from '../http/error-detail.js';
import type { Database } from '../platform/db/schema.js';
import type { Storage } from '../platform/storage.js';
import { isAppError } from '../platform/errors.js';
import type { VoicesService } from '../voices/service.js';
import { emptyDocument } from './document.js';
import { readCreateForm, parseLocators } from './form.js';
import { importFile, importPasted } from './import/index.js';
import { StudioRepository } from './repository.js';
import { StudioService, type StudioVoices } from './service.js';
import { blockOut, chapterOut, projectExtendedOut, projectOut, type ConversionView } from './shapes.js';
import type { StudioConversion } from './convert.js';
import { studioConvertRoutes } from './convert-routes.js';
import { StudioStructure } from './structure.js';
import { studioStructureRoutes } from './structure-routes.js';

export interface StudioRoutesDeps {
  db: Kysely<Database>;
  voices: VoicesService;
  storage: Storage;
  /** Conversions, their price, paragraphs' audio and snapshots. */
  conversion: StudioConversion;
}

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const ProjectParams = z.object({ project_id: z.string().min(1).max(64) });
const ChapterParams = ProjectParams.extend({ chapter_id: z.string().min(1).max(64) });
const ParagraphParams = ProjectParams.extend({ paragraph_id: z.string().min(1).max(64) });

/** The voices a project may name, from the voice library and the account's own voices. */
export function studioVoices(voices: VoicesService): StudioVoices {
  return {
    async usable(accountId, voiceId) {
      try {
        await voices.get(voiceId, accountId);
        return true;
      } catch (e) {
        if (isAppError(e) && e.code === 'NOT_FOUND') return false;
        throw e;
      }
    },
    async fallback(language) {
      const first = await voices.list({ page: 1, page_size: 1, languages: language });
      return first.items[0]?.id ?? (await voices.list({ page: 1, page_size: 1 })).items[0]?.id ?? null;
    },
  };
}

const CREATE_DESCRIPTION =
  "ElevenLabs' form (multipart): `name`, `from_document` (a `.txt`, `.md`, `.epub` or `.docx` file, at most " +
  `${sizeLimitText(STUDIO_LIMITS.fileMaxBytes)}), \`default_paragraph_voice_id\`, \`default_title_voice_id\`, \`default_model_id\`, ` +
  '`title`, `author`, `description`, `language`, `apply_text_normalization`, `pronunciation_dictionary_locators` (JSON strings, repeated); ' +
  'Polyvox: `text` (pasted text instead of a file) with `text_format` `plain` or `markdown`; the same fields as JSON also work. ' +
  "Chapters come from headings (`#`/`##` in Markdown, Heading 1/2 in Word, `Chapter 3`/`第三章` lines in text) or the EPUB's own contents; " +
  'speaker lines (`Anna: …`, `小明：…`) and attributed dialogue (`"…," said Anna`, `“……”小明说`) give each paragraph its speaker, the rest is the narrator\'s (`Narrator`, `旁白`). ' +
  `A project holds at most ${STUDIO_LIMITS.maxCharacters} characters (422 TEXT_TOO_LONG), ${STUDIO_LIMITS.maxChapters} chapters and ${STUDIO_LIMITS.maxParagraphs} paragraphs (400 VALIDATION_FAILED); ` +
  `an archive may expand to ${sizeLimitText(STUDIO_LIMITS.unzippedMaxBytes)}; a file of another kind is 415 UNSUPPORTED_FILE_TYPE, a broken one 400 VALIDATION_FAILED. ` +
  "Voices must be ones the account can use (400 VALIDATION_FAILED); without a default voice, the library's first in the document's language.";

/** ElevenLabs' Studio project routes and Polyvox's editing routes: an account's own projects (another's answer 404). */
export function studioRoutes(deps: StudioRoutesDeps): FastifyPluginAsyncZod {
  const repo = new StudioRepository(deps.db);
  const studio = new StudioService(repo, studioVoices(deps.voices), deps.storage);
  const structure = new StudioStructure(deps.db, repo, studio, deps.storage);
  /** The request's language, the project's conversions under way and its last one's failure. */
  const viewOf = async (project: { id: string; account_id: string }, request: FastifyRequest): Promise<ConversionView> => ({
    locale: requestLocale(request),
    activity: (await deps.conversion.activity(project.account_id)).get(project.id),
    failure: await deps.conversion.lastFailure(project.account_id, project.id),
  });
  const extended = async (project: Awaited<ReturnType<StudioService['project']>>, request: FastifyRequest) =>
    projectExtendedOut(
      project,
      await repo.chapters(project.id),
      await repo.paragraphSummaries(project.id),
      await viewOf(project, request),
    );

  return async (app) => {
    addElevenLabsErrorDetail(app);
    await app.register(studioConvertRoutes({ db: deps.db, studio: deps.conversion }));
    await app.register(studioStructureRoutes({ structure }));
    const route = { config: { auth: 'caller' as const } };
    const tags = ['studio'];

    app.post(
      '/v1/studio/projects',
      {
        ...route,
        schema: {
          tags,
          summary: 'Create a Studio project from a document or pasted text',
          description: CREATE_DESCRIPTION,
          consumes: ['multipart/form-data', 'application/json'],
          response: { 200: StudioCreated, ...errors, 413: ErrorBody, 415: ErrorBody, 422: ErrorBody },
        },
      },
      async (request) => {
        const accountId = callerOf(request).accountId;
        const { fields, file } = await readCreateForm(request);
        const document = file
          ? await importFile(file.bytes, file.filename, 'from_document')
          : fields.text !== undefined
            ? importPasted(fields.text, fields.text_format ?? 'plain', 'text')
            : emptyDocument(fields.name);
        const project = await studio.create(accountId, {
          name: fields.name,
          document,
          sourceType: file || fields.text !== undefined ? 'book' : 'blank',
          defaultTitleVoiceId: fields.default_title_voice_id,
          defaultParagraphVoiceId: fields.default_paragraph_voice_id,
          defaultModelId: fields.default_model_id,
          title: fields.title,
          author: fields.author,
          description: fields.description,
          language: fields.language,
          applyTextNormalization: fields.apply_text_normalization,
          locators: parseLocators(fields.pronunciation_dictionary_locators),
        });
        return { project: projectOut(project) };
      },
    );

    app.get(
      '/v1/studio/projects',
      {
        ...route,
        schema: { tags, summary: "The account's Studio projects, newest first", response: { 200: StudioProjectList, ...errors } },
      },
      async (request) => {
        const { accountId } = callerOf(request);
        const activity = await deps.conversion.activity(accountId);
        return { projects: (await studio.list(accountId)).map((p) => projectOut(p, activity.get(p.id))) };
      },
    );

    app.get(
      '/v1/studio/projects/:project_id',
      {
        ...route,
        schema: {
          tags,
          summary: 'A project with its chapters, voices and (Polyvox) speakers',
          params: ProjectParams,
          response: { 200: StudioProjectExtended, ...errors },
        },
      },
      async (request) => extended(await studio.project(callerOf(request).accountId, request.params.project_id), request),
    );

    app.delete(
      '/v1/studio/projects/:project_id',
      {
        ...route,
        schema: {
          tags,
          summary: 'Delete a project, its chapters and paragraphs',
          params: ProjectParams,
          response: { 200: StudioDeleted, ...errors },
        },
      },
      async (request) => {
        await studio.delete(callerOf(request).accountId, request.params.project_id);
        return { status: 'ok' as const };
      },
    );

    app.get(
      '/v1/studio/projects/:project_id/cover',
      {
        ...route,
        schema: {
          tags,
          summary: "Polyvox: the project's cover image, taken from its document (404 without one)",
          params: ProjectParams,
          response: { 200: z.string().meta({ description: 'The image bytes' }), ...errors },
        },
      },
      async (request, reply) => {
        const cover = await studio.cover(callerOf(request).accountId, request.params.project_id);
        return reply
          .header('content-type', cover.type)
          .header('cache-control', 'private, no-store')
          .send(cover.data as unknown as string);
      },
    );

    app.get(
      '/v1/studio/projects/:project_id/chapters',
      {
        ...route,
        schema: {
          tags,
          summary: "A project's chapters, in order",
          params: ProjectParams,
          response: { 200: StudioChapterList, ...errors },
        },
      },
      async (request) => ({
        chapters: (await extended(await studio.project(callerOf(request).accountId, request.params.project_id), request))
          .chapters,
      }),
    );

    app.get(
      '/v1/studio/projects/:project_id/chapters/:chapter_id',
      {
        ...route,
        schema: {
          tags,
          summary:
            'A chapter with its content: a block per paragraph (its text, voice, and Polyvox: speaker, own voice, pause, hash)',
          params: ChapterParams,
          response: { 200: StudioChapterWithContent, ...errors },
        },
      },
      async (request) => {
        const { project, chapter, paragraphs } = await studio.chapter(
          callerOf(request).accountId,
          request.params.project_id,
          request.params.chapter_id,
        );
        const summaries = paragraphs.map((p) => ({ ...p, characters: [...p.text].length }));
        return {
          ...chapterOut(chapter, summaries, project, await viewOf(project, request)),
          content: { blocks: paragraphs.map((p) => blockOut(p, project, requestLocale(request))) },
        };
      },
    );

    app.patch(
      '/v1/studio/projects/:project_id/paragraphs/:paragraph_id',
      {
        ...route,
        schema: {
          tags,
          summary: "Polyvox: change a paragraph's text, speaker, own voice (`null`: its speaker's) or the pause after it",
          description:
            `Text at most ${STUDIO_LIMITS.paragraphMaxLength} characters; a new speaker joins the project's speakers; ` +
            `the voice must be one the account can use; the pause ${STUDIO_LIMITS.pauseMaxMs} ms at most. Answers the paragraph's block with its new content hash.`,
          params: ParagraphParams,
          body: StudioParagraphEdit,
          response: { 200: StudioBlock, ...errors },
        },
      },
      async (request) => {
        const { project, paragraph } = await studio.editParagraph(
          callerOf(request).accountId,
          request.params.project_id,
          request.params.paragraph_id,
          request.body,
        );
        return blockOut(paragraph, project, requestLocale(request));
      },
    );

    app.put(
      '/v1/studio/projects/:project_id/speakers',
      {
        ...route,
        schema: {
          tags,
          summary: 'Polyvox: map a speaker to a voice for the whole project (`voice_id: null`: the default paragraph voice)',
          params: ProjectParams,
          body: StudioSpeakerVoice,
          response: { 200: StudioProjectExtended, ...errors },
        },
      },
      async (request) =>
        extended(
          await studio.mapSpeaker(
            callerOf(request).accountId,
            request.params.project_id,
            request.body.speaker,
            request.body.voice_id,
          ),
          request,
        ),
    );
  };
}
