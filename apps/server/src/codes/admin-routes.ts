import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  BatchCodesQuery,
  BatchCodesResponse,
  CodeBatchSchema,
  CodeBatchesQuery,
  CodeBatchesResponse,
  CreateCodeBatchRequest,
  CreateCodeBatchResponse,
  ErrorBody,
  RevokeCodeBatchRequest,
} from '@polyvox/contracts';
import { auditFrom, operatorOf } from '../http/auth.js';
import type { AuditTrail } from '../audit/trail.js';
import type { CodesAudit, CodesService } from './service.js';

export interface CodeAdminRoutesDeps {
  codes: CodesService;
  audit: AuditTrail;
}

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const params = z.object({ id: z.string().max(64) });

/** The audit of a codes action by this request's operator, with its reason. */
function auditOf(request: FastifyRequest, audit: AuditTrail, reason: string | null): CodesAudit {
  return (trx, action, target, change) =>
    audit.record(auditFrom(request, action, target, { ...change, reason }), trx ?? undefined);
}

/** The operator's side of redemption codes (permission `codes.manage`): batches made, listed, exported, revoked. */
export function codeAdminRoutes(deps: CodeAdminRoutesDeps): FastifyPluginAsyncZod {
  const { codes, audit } = deps;
  return async (app) => {
    app.get(
      '/admin/api/codes/batches',
      {
        config: { auth: 'operator', permission: 'codes.manage' },
        schema: {
          tags: ['operator'],
          summary: 'Redemption code batches, newest first',
          querystring: CodeBatchesQuery,
          response: { 200: CodeBatchesResponse, ...errors },
        },
      },
      async (request) => {
        const { page, page_size, state, kind } = request.query;
        return codes.listBatches({ page, pageSize: page_size, state, kind });
      },
    );

    app.post(
      '/admin/api/codes/batches',
      {
        config: { auth: 'operator', permission: 'codes.manage' },
        schema: {
          tags: ['operator'],
          summary: 'Make a batch of redemption codes (credits or a plan)',
          description:
            'At most 10,000 codes. The answer holds every code in plain text; the CSV export gives them again later (they are kept encrypted with a key from the server secret, and looked up by their SHA-256). A plan code gives the plan product as it is now: its credits (unless `credits` says otherwise) and its period.',
          body: CreateCodeBatchRequest,
          response: { 201: CreateCodeBatchResponse, ...errors },
        },
      },
      async (request, reply) => {
        const b = request.body;
        const made = await codes.createBatch(
          {
            name: b.name,
            kind: b.kind,
            credits: b.credits,
            product: b.product,
            count: b.count,
            usesPerCode: b.uses_per_code,
            prefix: b.prefix,
            expiresAt: b.expires_at,
          },
          operatorOf(request).accountId,
          auditOf(request, audit, b.reason),
        );
        return reply.status(201).send(made);
      },
    );

    app.get(
      '/admin/api/codes/batches/:id',
      {
        config: { auth: 'operator', permission: 'codes.manage' },
        schema: { tags: ['operator'], summary: 'One batch', params, response: { 200: CodeBatchSchema, ...errors } },
      },
      async (request) => codes.batch(request.params.id),
    );

    app.get(
      '/admin/api/codes/batches/:id/codes',
      {
        config: { auth: 'operator', permission: 'codes.manage' },
        schema: {
          tags: ['operator'],
          summary: "A batch's codes (masked), with their state and who used each",
          params,
          querystring: BatchCodesQuery,
          response: { 200: BatchCodesResponse, ...errors },
        },
      },
      async (request) => {
        const { page, page_size, state } = request.query;
        return codes.codes(request.params.id, { page, pageSize: page_size, state });
      },
    );

    app.get(
      '/admin/api/codes/batches/:id/export.csv',
      {
        config: { auth: 'operator', permission: 'codes.manage' },
        schema: {
          tags: ['operator'],
          summary: "A batch's codes in plain text as CSV (code, state, uses, max_uses, redeemed_by, redeemed_at)",
          description: 'Each export is recorded in the audit trail (`codes.export`).',
          params,
          response: { 200: z.string(), ...errors },
        },
      },
      async (request, reply) => {
        const csv = await codes.exportCsv(request.params.id, auditOf(request, audit, null));
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="codes-${request.params.id}.csv"`)
          .header('cache-control', 'no-store')
          .send(csv);
      },
    );

    app.post(
      '/admin/api/codes/batches/:id/revoke',
      {
        config: { auth: 'operator', permission: 'codes.manage' },
        schema: {
          tags: ['operator'],
          summary: 'Revoke a batch: none of its codes works from now on',
          description: 'Uses already made stand. Revoking a revoked batch changes nothing.',
          params,
          body: RevokeCodeBatchRequest,
          response: { 200: CodeBatchSchema, ...errors },
        },
      },
      async (request) =>
        codes.revoke(request.params.id, operatorOf(request).accountId, auditOf(request, audit, request.body.reason)),
    );
  };
}
