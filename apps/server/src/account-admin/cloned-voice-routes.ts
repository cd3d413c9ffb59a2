import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AdminClonedVoiceList, ErrorBody, SampleAccessQuery } from '@polyvox/contracts';
import { auditActor } from '../http/auth.js';
import type { ClonedVoices, SampleFile } from './cloned-voices.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const TAGS = ['operator'];
const Id = z.string().min(1).max(64);

/** Sends a sample to the operator: played in the page, or (`download=true`) saved as a file. */
export function sendSample(reply: FastifyReply) {
  return (file: SampleFile, download: boolean): FastifyReply => {
    reply.header('cache-control', 'no-store');
    if (download) reply.header('content-disposition', `attachment; filename="${file.filename}"`);
    return reply.type(file.contentType).send(file.bytes);
  };
}

/** The samples and consent records behind an account's cloned voices, deleted ones included; every opening audited. */
export function clonedVoiceRoutes(deps: { clonedVoices: ClonedVoices }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/api/accounts/:id/cloned-voices',
      {
        config: { auth: 'operator', permission: 'accounts.read' },
        schema: {
          tags: TAGS,
          summary:
            "An account's cloned voices with their samples' consent records, those its owner deleted included (kept VOICE_RETENTION_DAYS)",
          params: z.object({ id: Id }),
          response: { 200: AdminClonedVoiceList, ...errors },
        },
      },
      async (request) => deps.clonedVoices.list(request.params.id),
    );

    app.get(
      '/admin/api/accounts/:id/cloned-voices/:voiceId/sample',
      {
        config: { auth: 'operator', permission: 'accounts.read' },
        schema: {
          tags: TAGS,
          summary:
            "A cloned voice's sample as uploaded, deleted voices' too (`reason` required, written to the audit trail; `download=true` for a file)",
          params: z.object({ id: Id, voiceId: Id }),
          querystring: SampleAccessQuery,
        },
      },
      async (request, reply) => {
        const { id, voiceId } = request.params;
        const file = await deps.clonedVoices.voiceSample(auditActor(request), id, voiceId, request.query.reason);
        return sendSample(reply)(file, request.query.download === 'true');
      },
    );
  };
}
