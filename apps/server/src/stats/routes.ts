import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { ErrorBody } from '@polyvox/contracts';
import { metrics } from './metrics.js';
import { DETAIL_MAX } from './store.js';
import { presentedSid } from '../http/auth.js';

export function statsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/stats/api/:t/:e',
      {
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
        const sid = presentedSid(request);
        const session = sid ? await ctx.sessions.resolve(sid) : null;
        await ctx.events.record(
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

    app.get(
      '/healthz',
      {
        schema: {
          tags: ['operations'],
          summary: 'Alive: answers 200 when the database answers (for a load balancer or a liveness probe)',
        },
      },
      async (_request, reply) => {
        const started = performance.now();
        try {
          await ctx.db.kysely.selectFrom('accounts').select('id').limit(1).execute();
        } catch {
          return reply.status(503).send({ status: 'unavailable', database: ctx.db.dialect });
        }
        return {
          status: 'ok',
          role: ctx.config.ROLE,
          database: ctx.db.dialect,
          db_ms: Math.round((performance.now() - started) * 100) / 100,
          uptime_s: Math.round(process.uptime()),
        };
      },
    );

    app.get(
      '/readyz',
      {
        schema: {
          tags: ['operations'],
          summary:
            'Ready: every part this process needs answers (database, Redis when set, storage; a worker its queue); 503 names the parts that failed',
        },
      },
      async (request, reply) => {
        const report = await ctx.readiness.run();
        // The errors go to the log: they name internal hosts and ports, which the public answer does not.
        if (!report.ready) request.log.warn({ checks: report.checks }, `not ready: ${report.failed.join(', ')}`);
        const checks = Object.fromEntries(Object.entries(report.checks).map(([name, { ok, ms }]) => [name, { ok, ms }]));
        return reply
          .status(report.ready ? 200 : 503)
          .header('cache-control', 'no-store')
          .send({
            status: report.ready ? 'ready' : 'unavailable',
            role: ctx.config.ROLE,
            ...(report.ready ? {} : { failed: report.failed }),
            checks,
          });
      },
    );

    app.get(
      '/metrics',
      { schema: { tags: ['operations'], summary: 'Prometheus metrics', hide: false } },
      async (_request, reply) => reply.header('content-type', metrics.contentType).send(await metrics.render()),
    );
  };
}
