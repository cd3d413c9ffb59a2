import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { EventStore } from './store.js';
import { ErrorBody } from '@polyvox/contracts';
import { metrics } from './metrics.js';
import { DETAIL_MAX } from './store.js';

export interface StatsRoutesDeps {
  events: Pick<EventStore, 'record'>;
}

export function statsRoutes(deps: StatsRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/stats/api/:t/:e',
      {
        config: { auth: 'optional-session' },
        // An event is small: anything larger is refused before it is parsed.
        bodyLimit: 4096,
        schema: {
          tags: ['operations'],
          summary:
            'Record a client event (a page view, a caught error …): kept for `STATS_RETENTION_DAYS`, at most `STATS_EVENTS_PER_MINUTE` per requester and per account',
          params: z.object({ t: z.string().min(1).max(64), e: z.string().min(1).max(64) }),
          querystring: z.object({ os: z.string().max(32).optional() }).passthrough(),
          body: z
            .object({
              user_id: z.string().max(64).optional(),
              channel: z.string().max(64).optional(),
              detail: z.string().max(DETAIL_MAX).optional().describe('a page path, or an error message'),
            })
            .nullish(),
          response: { 204: z.null(), 400: ErrorBody, 413: ErrorBody, 429: ErrorBody },
        },
      },
      async (request, reply) => {
        const { t, e } = request.params;
        const os = request.query.os ?? 'unknown';
        const session = request.auth.session;
        await deps.events.record(
          {
            type: t,
            event: e,
            os,
            accountId: session?.accountId ?? null,
            channel: request.body?.channel ?? null,
            detail: request.body?.detail ?? null,
          },
          request.ip,
        );
        metrics.clientEvent(t, e, os);
        return reply.status(204).send(null);
      },
    );
  };
}
