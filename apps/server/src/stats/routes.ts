import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { metrics } from './metrics.js';

export function statsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/stats/api/:t/:e',
      {
        schema: {
          tags: ['operations'],
          summary: 'Record a client event',
          params: z.object({ t: z.string().max(64), e: z.string().max(64) }),
          querystring: z.object({ os: z.string().max(32).optional() }).passthrough(),
          body: z.object({ user_id: z.string().max(64).optional(), channel: z.string().max(64).optional() }).nullish(),
          response: { 204: z.null() },
        },
      },
      async (request, reply) => {
        metrics.clientEvent(request.params.t, request.params.e, request.query.os ?? 'unknown');
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/healthz',
      { schema: { tags: ['operations'], summary: 'Ready when the database answers' } },
      async (_request, reply) => {
        const started = performance.now();
        try {
          await ctx.db.kysely.selectFrom('accounts').select('id').limit(1).execute();
        } catch {
          return reply.status(503).send({ status: 'unavailable', database: ctx.db.dialect });
        }
        return {
          status: 'ok',
          database: ctx.db.dialect,
          db_ms: Math.round((performance.now() - started) * 100) / 100,
          uptime_s: Math.round(process.uptime()),
        };
      },
    );

    app.get(
      '/metrics',
      { schema: { tags: ['operations'], summary: 'Prometheus metrics', hide: false } },
      async (_request, reply) => reply.header('content-type', 'text/plain; version=0.0.4').send(metrics.render()),
    );
  };
}
