import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AddDictionaryResponse,
  AddFromRulesRequest,
  AddRulesRequest,
  DictionaryList,
  DictionaryListQuery,
  DictionaryMetadata,
  DictionaryVersions,
  DictionaryWithRules,
  ErrorBody,
  LIMITS,
  RemoveRulesRequest,
  RulesChangedResponse,
  UpdateDictionaryRequest,
  sizeLimitText,
} from '@polyvox/contracts';
import { callerOf } from '../http/auth.js';
import { refuseNulIn } from '../http/body.js';
import { addElevenLabsErrorDetail } from '../http/error-detail.js';
import { AppError, isAppError } from '../platform/errors.js';
import type { PronunciationService } from './service.js';

export interface PronunciationRoutesDeps {
  pronunciation: PronunciationService;
}

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const security: { [name: string]: string[] }[] = [{ xiApiKey: [] }, { bearer: [] }];
const Params = z.object({ id: z.string().min(1).max(64) });
const VersionParams = z.object({ id: z.string().min(1).max(64), version_id: z.string().min(1).max(64) });

/** The multipart form of `add-from-file`: the PLS file (≤ 1 MB) read into memory, and the text fields. */
async function plsForm(request: FastifyRequest): Promise<{ file: Buffer; fields: Map<string, string> }> {
  if (!request.isMultipart() || !/;\s*boundary=/i.test(request.headers['content-type'] ?? ''))
    throw new AppError('VALIDATION_FAILED', { field: 'content-type', rule: 'multipart needs a boundary' });
  const tooLarge = () =>
    new AppError(
      'FILE_TOO_LARGE',
      { limit: sizeLimitText(LIMITS.pronunciationFileMaxBytes) },
      { headers: { connection: 'close' } },
    );
  let file: Buffer | undefined;
  const fields = new Map<string, string>();
  try {
    const parts = request.parts({
      limits: { fileSize: LIMITS.pronunciationFileMaxBytes + 1, files: 1, fields: 10, fieldSize: 4096 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          continue;
        }
        file = await part.toBuffer();
        if (part.file.truncated || file.length > LIMITS.pronunciationFileMaxBytes) throw tooLarge();
      } else if (typeof part.value === 'string') fields.set(part.fieldname, part.value);
    }
  } catch (e) {
    if ((e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    if (isAppError(e) || (e as { code?: string }).code?.startsWith('FST_')) throw e;
    throw new AppError('VALIDATION_FAILED', { field: 'body', rule: 'malformed multipart body' }, { cause: e });
  }
  if (!file || file.length === 0) throw new AppError('PARAMETERS_NEEDED', { field: 'file' });
  return { file, fields };
}

const FileForm = z.object({
  name: z.string().min(1).max(100),
  description: z.string().max(1000).optional(),
  default: z.enum(['true', 'false']).optional(),
});

/**
 * ElevenLabs' pronunciation dictionary routes, for an API key (`xi-api-key`, Bearer) or a session: an account's own
 * dictionaries and the operator's shared ones (read-only). Another account's dictionary answers 404.
 */
export function pronunciationRoutes(deps: PronunciationRoutesDeps): FastifyPluginAsyncZod {
  const { pronunciation } = deps;
  return async (app) => {
    addElevenLabsErrorDetail(app);

    app.post(
      '/v1/pronunciation-dictionaries/add-from-file',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['pronunciation'],
          summary: 'Create a pronunciation dictionary from a W3C PLS file (multipart `file` ≤ 1 MB, `name`, `description?`)',
          description:
            'Each `<lexeme>` gives one rule per `<grapheme>`: a phoneme rule when it has a `<phoneme>` (alphabet `ipa`, `x-sampa`, read as IPA, or `cmu-arpabet`/`x-cmu`, from the element or the lexicon), else an alias rule. ' +
            'A file with a DOCTYPE or entity declarations is refused (400 `VALIDATION_FAILED`), as is one that is not well-formed; over 1 MB, 413 `FILE_TOO_LARGE`; at most 2000 rules. ' +
            "Polyvox: the form field `default=true` makes it the account's default dictionary.",
          consumes: ['multipart/form-data'],
          security,
          response: { 200: AddDictionaryResponse, ...errors, 413: ErrorBody },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const { file, fields } = await plsForm(request);
        if (!fields.has('name')) throw new AppError('PARAMETERS_NEEDED', { field: 'name' });
        // The form's fields are read here, past the guard every JSON field goes through: the same refusal.
        refuseNulIn(Object.fromEntries(fields));
        const form = FileForm.safeParse(Object.fromEntries(fields));
        if (!form.success) {
          const issue = form.error.issues[0]!;
          throw new AppError('VALIDATION_FAILED', { field: String(issue.path[0] ?? 'body'), rule: issue.message });
        }
        return pronunciation.createFromFile(caller.accountId, {
          name: form.data.name,
          description: form.data.description ?? null,
          file,
          default: form.data.default === 'true',
        });
      },
    );

    app.post(
      '/v1/pronunciation-dictionaries/add-from-rules',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['pronunciation'],
          summary:
            "Create a pronunciation dictionary from rules (alias or phoneme; Polyvox: `default: true` makes it the account's default)",
          security,
          body: AddFromRulesRequest,
          response: { 200: AddDictionaryResponse, ...errors },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const { name, description, rules } = request.body;
        return pronunciation.createFromRules(caller.accountId, {
          name,
          description: description ?? null,
          rules,
          default: request.body.default,
        });
      },
    );

    app.get(
      '/v1/pronunciation-dictionaries',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['pronunciation'],
          summary:
            "The account's pronunciation dictionaries and the operator's shared ones, newest first (`cursor`, `page_size`)",
          security,
          querystring: DictionaryListQuery,
          response: { 200: DictionaryList, ...errors },
        },
      },
      async (request) => pronunciation.list(callerOf(request).accountId, request.query),
    );

    app.get(
      '/v1/pronunciation-dictionaries/:id',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['pronunciation'],
          summary: 'A pronunciation dictionary with the rules of its latest version',
          security,
          params: Params,
          response: { 200: DictionaryWithRules, ...errors },
        },
      },
      async (request) => pronunciation.get(callerOf(request).accountId, request.params.id),
    );

    app.patch(
      '/v1/pronunciation-dictionaries/:id',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['pronunciation'],
          summary:
            "Rename or archive a dictionary (ElevenLabs' fields); Polyvox: `default: true` makes it the account's default, applied to every request that names no dictionary",
          security,
          params: Params,
          body: UpdateDictionaryRequest,
          response: { 200: DictionaryMetadata, ...errors },
        },
      },
      async (request) => pronunciation.update(callerOf(request).accountId, request.params.id, request.body),
    );

    app.post(
      '/v1/pronunciation-dictionaries/:id/add-rules',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['pronunciation'],
          summary: 'Add rules (a rule for a string the dictionary has replaces it): a new version',
          security,
          params: Params,
          body: AddRulesRequest,
          response: { 200: RulesChangedResponse, ...errors },
        },
      },
      async (request) => pronunciation.addRules(callerOf(request).accountId, request.params.id, request.body.rules),
    );

    app.post(
      '/v1/pronunciation-dictionaries/:id/set-rules',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['pronunciation'],
          summary: 'Replace all the rules: a new version',
          security,
          params: Params,
          body: AddRulesRequest,
          response: { 200: RulesChangedResponse, ...errors },
        },
      },
      async (request) => pronunciation.setRules(callerOf(request).accountId, request.params.id, request.body.rules),
    );

    app.post(
      '/v1/pronunciation-dictionaries/:id/remove-rules',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['pronunciation'],
          summary: 'Remove the rules for these strings (exactly, case included): a new version',
          security,
          params: Params,
          body: RemoveRulesRequest,
          response: { 200: RulesChangedResponse, ...errors },
        },
      },
      async (request) => pronunciation.removeRules(callerOf(request).accountId, request.params.id, request.body.rule_strings),
    );

    app.get(
      '/v1/pronunciation-dictionaries/:id/versions',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['pronunciation'],
          summary: "Polyvox: a dictionary's versions, newest first (each downloadable as PLS)",
          security,
          params: Params,
          response: { 200: DictionaryVersions, ...errors },
        },
      },
      async (request) => pronunciation.versions(callerOf(request).accountId, request.params.id),
    );

    app.get(
      '/v1/pronunciation-dictionaries/:id/:version_id/download',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['pronunciation'],
          summary: 'A version of a dictionary as a W3C PLS file',
          security,
          params: VersionParams,
          response: { 200: z.string().meta({ description: 'The PLS file (`application/pls+xml`)' }), ...errors },
        },
      },
      async (request, reply) => {
        const { pls } = await pronunciation.download(callerOf(request).accountId, request.params.id, request.params.version_id);
        return reply
          .header('content-type', 'application/pls+xml; charset=utf-8')
          .header('content-disposition', `attachment; filename="${request.params.id.replace(/[^\w-]/g, '')}.pls"`)
          .header('cache-control', 'private, no-store')
          .send(pls);
      },
    );
  };
}
