import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import {
  AddModerationTerm,
  ErrorBody,
  ModerationHits,
  ModerationHitsQuery,
  ModerationTerm,
  ModerationTerms,
} from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { auditFrom, operatorOf } from '../http/auth.js';
import type { AuditTrail } from '../audit/trail.js';
import type { ModerationService } from './service.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const auth = { auth: 'operator', permission: 'moderation.manage' } as const;

export interface ModerationRoutesDeps {
  db: Kysely<Database>;
  moderation: ModerationService;
  audit: AuditTrail;
}

/**
 * The operator's moderation (issue 31, point 4): the operator's own list (each change audited, in force at once here
 * and within seconds elsewhere) and the texts refused, kept for the retention set in the settings.
 */
export function moderationRoutes(deps: ModerationRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/api/moderation/terms',
      {
        config: auth,
        schema: {
          tags: ['operator'],
          summary: "The operator's own moderation list",
          response: { 200: ModerationTerms, ...errors },
        },
      },
      async () => ({ items: await deps.moderation.listTerms() }),
    );

    app.post(
      '/admin/api/moderation/terms',
      {
        config: auth,
        schema: {
          tags: ['operator'],
          summary: 'Add a word or phrase to the moderation list (in force without a restart)',
          body: AddModerationTerm,
          response: { 201: ModerationTerm, ...errors },
        },
      },
      async (request, reply) => {
        const operator = operatorOf(request);
        const row = await deps.db.transaction().execute(async (trx) => {
          const added = await deps.moderation.addTerm(trx, request.body.term, request.body.category, operator.accountId);
          await deps.audit.record(
            auditFrom(
              request,
              'moderation.add_term',
              { type: 'moderation_term', id: added.id },
              { after: { term: added.term, category: added.category } },
            ),
            trx,
          );
          return added;
        });
        deps.moderation.invalidate();
        return reply.status(201).send(row);
      },
    );

    app.delete(
      '/admin/api/moderation/terms/:id',
      {
        config: auth,
        schema: {
          tags: ['operator'],
          summary: 'Remove a word or phrase from the moderation list',
          params: z.object({ id: z.string().max(64) }),
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        await deps.db.transaction().execute(async (trx) => {
          const removed = await deps.moderation.removeTerm(trx, request.params.id);
          await deps.audit.record(
            auditFrom(
              request,
              'moderation.remove_term',
              { type: 'moderation_term', id: removed.id },
              {
                before: { term: removed.term, category: removed.category },
              },
            ),
            trx,
          );
        });
        deps.moderation.invalidate();
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/admin/api/moderation/hits',
      {
        config: auth,
        schema: {
          tags: ['operator'],
          summary: 'Texts moderation refused, newest first (kept for the retention set in the settings)',
          querystring: ModerationHitsQuery,
          response: { 200: ModerationHits, ...errors },
        },
      },
      async (request) =>
        deps.moderation.hits({ limit: request.query.limit, before: request.query.before, accountId: request.query.account_id }),
    );
  };
}
