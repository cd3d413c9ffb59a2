import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorBody, OverviewQuery, OverviewResponse } from '@polyvox/contracts';
import type { OverviewService } from './service.js';

export interface OverviewRoutesDeps {
  overview: OverviewService;
}

/** The console's overview: the business over a range of days, and the health of this deployment. */
export function overviewRoutes(deps: OverviewRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/api/overview',
      {
        config: { auth: 'operator', permission: 'overview.read' },
        schema: {
          tags: ['operator'],
          summary: 'Revenue, orders, accounts, engines, credits per day; speech routes, queues and engines now',
          querystring: OverviewQuery,
          response: { 200: OverviewResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
        },
      },
      async (request) => deps.overview.overview(request.query.from, request.query.to),
    );
  };
}
