import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { STUDIO_LIMITS, sizeLimitText } from '@polyvox/contracts';
import { refuseNulIn } from '../http/body.js';
import { ruleOf } from '../http/error-handler.js';
import { AppError, isAppError } from '../platform/errors.js';

/** The fields of `POST /v1/studio/projects` (ElevenLabs' names; `text` and `text_format` are Polyvox's). */
export const CreateFields = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(STUDIO_LIMITS.nameMaxLength),
  default_title_voice_id: z.string().min(1).max(64).optional(),
  default_paragraph_voice_id: z.string().min(1).max(64).optional(),
  default_model_id: z.string().min(1).max(128).optional(),
  title: z.string().max(STUDIO_LIMITS.nameMaxLength).optional(),
  author: z.string().max(STUDIO_LIMITS.nameMaxLength).optional(),
  description: z.string().max(2000).optional(),
  language: z.string().max(16).optional(),
  apply_text_normalization: z.enum(['auto', 'on', 'off', 'apply_english']).optional(),
  pronunciation_dictionary_locators: z.array(z.string().max(300)).max(3).optional(),
  /** Polyvox: text pasted in, instead of a document. */
  text: z.string().optional(),
  text_format: z.enum(['plain', 'markdown']).optional(),
  from_url: z.string().optional(),
  from_content_json: z.string().optional(),
});
export type CreateFields = z.infer<typeof CreateFields>;

/** Fields ElevenLabs sends more than once (`--form a=1 --form a=2`). */
const REPEATED = new Set(['pronunciation_dictionary_locators', 'genres', 'voice_settings']);

export interface CreateForm {
  fields: CreateFields;
  file: { bytes: Buffer; filename: string } | null;
}

const tooLarge = () =>
  new AppError('FILE_TOO_LARGE', { limit: sizeLimitText(STUDIO_LIMITS.fileMaxBytes) }, { headers: { connection: 'close' } });

/**
 * The create form: multipart (the file `from_document`, at most 20 MB, read into memory; past that 413 at once,
 * before the rest is read) or JSON. Field values are checked as every JSON body is (no NUL, the schema's rules).
 */
export async function readCreateForm(request: FastifyRequest): Promise<CreateForm> {
  const raw: Record<string, string | string[]> = {};
  let file: CreateForm['file'] = null;
  if (request.isMultipart()) {
    if (!/;\s*boundary=/i.test(request.headers['content-type'] ?? ''))
      throw new AppError('VALIDATION_FAILED', { field: 'content-type', rule: 'multipart needs a boundary' });
    try {
      const parts = request.parts({
        limits: { fileSize: STUDIO_LIMITS.fileMaxBytes, files: 1, fields: 40, fieldSize: STUDIO_LIMITS.maxCharacters * 4 },
      });
      for await (const part of parts) {
        if (part.type === 'file') {
          if (part.fieldname !== 'from_document') {
            part.file.resume();
            continue;
          }
          const bytes = await part.toBuffer();
          if (part.file.truncated) throw tooLarge();
          file = { bytes, filename: part.filename ?? '' };
        } else if (typeof part.value === 'string') {
          if (REPEATED.has(part.fieldname)) raw[part.fieldname] = [...((raw[part.fieldname] as string[]) ?? []), part.value];
          else raw[part.fieldname] = part.value;
        }
      }
    } catch (e) {
      if ((e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
      if (isAppError(e) || (e as { code?: string }).code?.startsWith('FST_')) throw e;
      throw new AppError('VALIDATION_FAILED', { field: 'body', rule: 'malformed multipart body' }, { cause: e });
    }
  } else if (request.body && typeof request.body === 'object') {
    for (const [k, v] of Object.entries(request.body as Record<string, unknown>)) {
      if (typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'))) raw[k] = v as string | string[];
      else if (REPEATED.has(k) && Array.isArray(v)) raw[k] = v.map((x) => JSON.stringify(x));
    }
  }
  if (raw.name === undefined) throw new AppError('PARAMETERS_NEEDED', { field: 'name' });
  refuseNulIn(raw);
  const parsed = CreateFields.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('VALIDATION_FAILED', {
      field: String(issue.path[0] ?? 'body'),
      rule: ruleOf(issue as Parameters<typeof ruleOf>[0]),
    });
  }
  for (const field of ['from_url', 'from_content_json'] as const)
    if (parsed.data[field] !== undefined)
      throw new AppError('VALIDATION_FAILED', { field, rule: 'not supported: send from_document or text' });
  if (file && parsed.data.text !== undefined)
    throw new AppError('VALIDATION_FAILED', { field: 'text', rule: 'send from_document or text, not both' });
  return { fields: parsed.data, file };
}

const Locator = z.object({
  pronunciation_dictionary_id: z.string().min(1).max(64),
  version_id: z.string().min(1).max(64).nullish(),
});

/** `pronunciation_dictionary_locators`: each a JSON string, as ElevenLabs takes them in a form. */
export function parseLocators(values: string[] | undefined): { pronunciation_dictionary_id: string; version_id?: string }[] {
  return (values ?? []).map((value) => {
    let json: unknown;
    try {
      json = JSON.parse(value);
    } catch {
      throw new AppError('VALIDATION_FAILED', { field: 'pronunciation_dictionary_locators', rule: 'must be valid JSON' });
    }
    const locator = Locator.safeParse(json);
    if (!locator.success)
      throw new AppError('VALIDATION_FAILED', { field: 'pronunciation_dictionary_locators', rule: 'has an invalid format' });
    const { pronunciation_dictionary_id, version_id } = locator.data;
    return version_id ? { pronunciation_dictionary_id, version_id } : { pronunciation_dictionary_id };
  });
}
