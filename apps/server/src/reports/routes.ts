import fs from 'node:fs/promises';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  AdminPageQuery,
  AdminReport,
  AdminReportList,
  AdminReportQuery,
  ErrorBody,
  PROTECTED_VOICE_CATEGORIES,
  ProtectedVoice,
  ProtectedVoiceList,
  ProtectedVoiceRemoveQuery,
  ReportActionRequest,
  ReportCreated,
  ReportFields,
  ReportProtectRequest,
  SampleAccessQuery,
} from '@polyvox/contracts';
import { sniffContainer } from '@polyvox/speech/formats';
import { receiveUpload } from '../design/upload.js';
import { auditActor } from '../http/auth.js';
import { requestLocale } from '../http/locale.js';
import { AppError, isAppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { Storage } from '../platform/storage.js';
import { ownFile } from '../provenance/routes.js';
import { verifyAudio, type WatermarkDetector } from '../provenance/verify.js';
import type { Provenance } from '../provenance/service.js';
import type { ProtectedVoices } from '../protected-voices/service.js';
import type { ReportsService } from './service.js';
import type { ClonedVoices } from '../account-admin/cloned-voices.js';
import { sendSample } from '../account-admin/cloned-voice-routes.js';

export interface ReportRoutesDeps {
  reports: ReportsService;
  protectedVoices: ProtectedVoices;
  provenance: Provenance;
  detect: WatermarkDetector | null;
  limiter: RateLimiter;
  storage: Storage;
  perHour: number;
  publicUrl: string;
  /** A fresh temp path for an upload (the samples' private temp folder). */
  tempFile: () => Promise<string>;
  /** The voiceprint of an audio file, empty when it holds too little speech. */
  voiceprintOf: (file: string) => Promise<number[]>;
  /** An account's clone sample as uploaded, or null. */
  /** An account's sample, the access audited with the operator's reason (account-admin/cloned-voices.ts). */
  sampleAudio: ClonedVoices['sample'];
}

const TAGS = ['operator'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const Params = z.object({ id: z.string().min(1).max(64) });

/** The fields of a report, from JSON or the fields of a multipart body; a missing one is PARAMETERS_NEEDED. */
function parseFields(raw: unknown): ReportFields {
  const parsed = ReportFields.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = String(issue.path[0] ?? 'body');
  const value = raw && typeof raw === 'object' ? (raw as Record<string, unknown>)[field] : undefined;
  if (value === undefined || value === '') throw new AppError('PARAMETERS_NEEDED', { field });
  throw new AppError('VALIDATION_FAILED', { field, rule: issue.message });
}

export function reportRoutes(deps: ReportRoutesDeps): FastifyPluginAsyncZod {
  const { reports } = deps;

  /** The reported audio, checked for this server's marks; null for a report of a voice alone. */
  async function reportedAudio(request: FastifyRequest, bytes: Buffer, file: string) {
    let check;
    try {
      check = await verifyAudio(bytes, deps);
    } catch (e) {
      if (isAppError(e)) throw e;
      throw new AppError('UNSUPPORTED_FILE_TYPE', {}, { cause: e });
    }
    request.log.info({ ai_generated: check.ai_generated, records: check.candidates.length }, 'report: provenance checked');
    return { path: file, bytes, format: sniffContainer(bytes) ?? 'bin', check };
  }

  return async (app) => {
    app.post(
      '/reports',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['reports'],
          summary: "Report misuse: the audio (multipart `file` ≤ 20 MB, or JSON `{url}` of this server's audio) or a `voice_id`",
          description:
            'No sign-in needed; limited per client address (`429 RATE_LIMITED`). `reason` ∈ impersonation, fraud, harassment, copyright, other; `contact` (email); `consent`: the reporter agrees to be contacted (the outcome is mailed only then). The provenance check runs on the audio, so the report carries which account, voice and request made it, if this server did. A body declared over the limit is refused before it is read (413).',
          consumes: ['multipart/form-data', 'application/json'],
          response: { 201: ReportCreated, ...errors, 413: ErrorBody, 415: ErrorBody, 422: ErrorBody, 429: ErrorBody },
        },
      },
      async (request, reply) => {
        const wait = await deps.limiter.hit(`report:${request.ip}`, deps.perHour, 3600);
        if (wait > 0)
          throw new AppError(
            'RATE_LIMITED',
            { seconds: wait },
            { headers: { 'retry-after': String(wait), connection: 'close' } },
          );
        const locale = requestLocale(request);
        let temp: string | null = null;
        try {
          if (request.isMultipart()) {
            const { file, fields } = await receiveUpload(request, deps.tempFile);
            temp = file;
            const input = parseFields(Object.fromEntries(fields));
            const audio = file ? await reportedAudio(request, await fs.readFile(file), file) : undefined;
            if (!audio && !input.voice_id) throw new AppError('PARAMETERS_NEEDED', { field: 'file' });
            return reply.status(201).send(await reports.create({ fields: input, ip: request.ip, locale, file: audio }));
          }
          const input = parseFields(request.body ?? {});
          let audio;
          if (input.url) {
            // Only this server's own files, fetched as the reporter would: a link elsewhere, or to nothing, is refused.
            const bytes = await ownFile(app, request, input.url, deps.publicUrl);
            temp = await deps.tempFile();
            await fs.writeFile(temp, bytes, { mode: 0o600 });
            audio = await reportedAudio(request, bytes, temp);
          }
          if (!audio && !input.voice_id) throw new AppError('PARAMETERS_NEEDED', { field: 'file' });
          return reply.status(201).send(await reports.create({ fields: input, ip: request.ip, locale, file: audio }));
        } finally {
          if (temp) await fs.rm(temp, { force: true });
        }
      },
    );

    app.get(
      '/admin/api/reports',
      {
        config: { auth: 'operator', permission: 'reports.handle' },
        schema: {
          tags: TAGS,
          summary: 'The reports of misuse, newest first, by status (new, in_review, actioned, rejected)',
          querystring: AdminReportQuery,
          response: { 200: AdminReportList, ...errors },
        },
      },
      async (request) => reports.list(request.query.status, request.query.page, request.query.page_size),
    );

    app.get(
      '/admin/api/reports/:id',
      {
        config: { auth: 'operator', permission: 'reports.handle' },
        schema: {
          tags: TAGS,
          summary: 'A report, with its provenance result',
          params: Params,
          response: { 200: AdminReport, ...errors },
        },
      },
      async (request) => reports.get(request.params.id),
    );

    app.get(
      '/admin/api/reports/:id/audio',
      {
        config: { auth: 'operator', permission: 'reports.handle' },
        schema: { tags: TAGS, summary: 'The reported audio as it was sent', params: Params },
      },
      async (request, reply) => {
        const data = await reports.audio(request.params.id);
        return reply.type('application/octet-stream').header('content-disposition', 'attachment').send(data);
      },
    );

    const action = (
      path: string,
      permission: 'reports.handle' | 'voices.takedown' | 'accounts.manage',
      summary: string,
      run: (request: FastifyRequest, id: string, reason: string) => Promise<AdminReport>,
    ) =>
      app.post(
        `/admin/api/reports/:id/${path}`,
        {
          config: { auth: 'operator', permission },
          schema: {
            tags: TAGS,
            summary,
            params: Params,
            body: ReportActionRequest,
            response: { 200: AdminReport, ...errors, 409: ErrorBody },
          },
        },
        async (request) => run(request, request.params.id, request.body.reason),
      );

    action('review', 'reports.handle', 'Take a report into review', (r, id, reason) => reports.review(auditActor(r), id, reason));
    action('reject', 'reports.handle', 'Reject a report (the reporter is told by mail)', (r, id, reason) =>
      reports.reject(auditActor(r), id, reason),
    );
    action(
      'takedown',
      'voices.takedown',
      'Take the reported voice down everywhere (404 on every route and in every saved mix; its sample protected; owner and reporter told)',
      (r, id, reason) => reports.takeDown(auditActor(r), id, reason),
    );
    action(
      'disable-account',
      'accounts.manage',
      'Disable the account the report points at (the reporter is told)',
      (r, id, reason) => reports.disableAccount(auditActor(r), id, reason),
    );

    app.post(
      '/admin/api/reports/:id/protect',
      {
        config: { auth: 'operator', permission: 'voices.takedown' },
        schema: {
          tags: TAGS,
          summary: 'Add the reported voice (its clone sample, else the reported audio) to the protected voices',
          params: Params,
          body: ReportProtectRequest,
          response: { 200: AdminReport, ...errors },
        },
      },
      async (request) => reports.protect(auditActor(request), request.params.id, request.body.name, request.body.reason),
    );

    app.get(
      '/admin/api/accounts/:id/samples/:sampleId/audio',
      {
        config: { auth: 'operator', permission: 'accounts.read' },
        schema: {
          tags: TAGS,
          summary:
            "A clone sample of an account as it was uploaded (its consent is on the account's page; `reason` required, written to the audit trail)",
          params: z.object({ id: z.string().min(1).max(64), sampleId: z.string().min(1).max(64) }),
          querystring: SampleAccessQuery,
        },
      },
      async (request, reply) => {
        const { id, sampleId } = request.params;
        const file = await deps.sampleAudio(auditActor(request), id, sampleId, request.query.reason);
        return sendSample(reply)(file, request.query.download === 'true');
      },
    );

    app.get(
      '/admin/api/protected-voices',
      {
        config: { auth: 'operator', permission: 'voices.takedown' },
        schema: {
          tags: TAGS,
          summary: 'The protected voices, newest first',
          querystring: AdminPageQuery,
          response: { 200: ProtectedVoiceList, ...errors },
        },
      },
      async (request) => {
        const { page, page_size } = request.query;
        return { ...(await deps.protectedVoices.list(page, page_size)), page, page_size };
      },
    );

    app.post(
      '/admin/api/protected-voices',
      {
        config: { auth: 'operator', permission: 'voices.takedown' },
        schema: {
          tags: TAGS,
          summary:
            'Protect a voice from a sample (multipart `file` ≤ 20 MB with speech, `name`, `category` ∈ public_figure, library, taken_down, other, `reason`)',
          consumes: ['multipart/form-data'],
          response: { 201: ProtectedVoice, ...errors, 413: ErrorBody, 415: ErrorBody },
        },
      },
      async (request, reply) => {
        const { file, fields } = await receiveUpload(request, deps.tempFile);
        try {
          if (!file) throw new AppError('PARAMETERS_NEEDED', { field: 'file' });
          const meta = z
            .object({
              name: z.string().trim().min(1).max(100),
              category: z.enum(PROTECTED_VOICE_CATEGORIES),
              reason: z.string().trim().min(1).max(500),
            })
            .safeParse(Object.fromEntries(fields));
          if (!meta.success) {
            const field = String(meta.error.issues[0]!.path[0] ?? 'body');
            throw fields.has(field)
              ? new AppError('VALIDATION_FAILED', { field, rule: meta.error.issues[0]!.message })
              : new AppError('PARAMETERS_NEEDED', { field });
          }
          const print = await deps.voiceprintOf(file).catch((e: unknown) => {
            throw new AppError('UNSUPPORTED_FILE_TYPE', {}, { cause: e });
          });
          const bytes = await fs.readFile(file);
          const key = `protected-voices/${newId('file')}.${sniffContainer(bytes) ?? 'bin'}`;
          if (!print.length) throw new AppError('VALIDATION_FAILED', { field: 'file', rule: 'must hold speech' });
          await deps.storage.put(key, bytes, { contentType: 'application/octet-stream' });
          const made = await deps.protectedVoices.add(
            auditActor(request),
            { name: meta.data.name, category: meta.data.category, voiceprint: print, storageKey: key },
            meta.data.reason,
          );
          return reply.status(201).send(made);
        } finally {
          if (file) await fs.rm(file, { force: true });
        }
      },
    );

    app.delete(
      '/admin/api/protected-voices/:id',
      {
        config: { auth: 'operator', permission: 'voices.takedown' },
        schema: {
          tags: TAGS,
          summary: 'Remove a voice from the protected list (`reason` in the query)',
          params: Params,
          querystring: ProtectedVoiceRemoveQuery,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await deps.protectedVoices.remove(auditActor(request), request.params.id, request.query.reason);
        return reply.status(204).send(null);
      },
    );
  };
}
