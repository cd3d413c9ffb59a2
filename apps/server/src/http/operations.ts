import type { FastifyPluginAsync } from 'fastify';
import type { Db } from '../platform/db/database.js';
import type { Readiness, ReadinessReport } from '../platform/health.js';
import { metrics } from '../platform/metrics.js';

export interface OperationsRoutesDeps {
  db: Db;
  /** What `/readyz` checks. */
  readiness: Readiness;
  /** The process's role, named in both answers. */
  role: string;
  /**
   * Fields a role adds to both answers (a worker: whether it takes work). `/readyz` passes the report of the checks it
   * answers with, so the fields agree with them (a part that comes up while the other checks run is not reported ready
   * in one field and failed in another).
   */
  status?: (report?: ReadinessReport) => Record<string, unknown>;
}

/** `/healthz` (alive), `/readyz` (every part answers) and `/metrics` (Prometheus), the same in every role. */
export function operationsRoutes(deps: OperationsRoutesDeps): FastifyPluginAsync {
  const status = deps.status ?? (() => ({}));
  return async (app) => {
    app.get(
      '/healthz',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['operations'],
          summary: 'Alive: answers 200 when the database answers (for a load balancer or a liveness probe)',
        },
      },
      async (_request, reply) => {
        const started = performance.now();
        try {
          await deps.db.kysely.selectFrom('accounts').select('id').limit(1).execute();
        } catch {
          return reply.status(503).send({ status: 'unavailable', database: deps.db.dialect });
        }
        return {
          status: 'ok',
          role: deps.role,
          database: deps.db.dialect,
          db_ms: Math.round((performance.now() - started) * 100) / 100,
          uptime_s: Math.round(process.uptime()),
          ...status(),
        };
      },
    );

    app.get(
      '/readyz',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['operations'],
          summary:
            'Ready: every part this process needs answers (database, Redis when set, storage; a worker its queue); 503 names the parts that failed',
        },
      },
      async (request, reply) => {
        const report = await deps.readiness.run();
        // The errors go to the log: they name internal hosts and ports, which the public answer does not.
        if (!report.ready) request.log.warn({ checks: report.checks }, `not ready: ${report.failed.join(', ')}`);
        const checks = Object.fromEntries(Object.entries(report.checks).map(([name, { ok, ms }]) => [name, { ok, ms }]));
        return reply
          .status(report.ready ? 200 : 503)
          .header('cache-control', 'no-store')
          .send({
            status: report.ready ? 'ready' : 'unavailable',
            role: deps.role,
            ...status(report),
            ...(report.ready ? {} : { failed: report.failed }),
            checks,
          });
      },
    );

    app.get(
      '/metrics',
      { config: { auth: 'public' }, schema: { tags: ['operations'], summary: 'Prometheus metrics', hide: false } },
      async (_request, reply) => reply.header('content-type', metrics.contentType).send(await metrics.render()),
    );
  };
}
