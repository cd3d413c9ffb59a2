import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CurrentStatisticsResponse,
  DayCreditsQuery,
  DayCreditsResponse,
  ErrorBody,
  RecordsQuery,
  RecordsResponse,
} from '@polyvox/contracts';
import { requireSession } from '../http/auth.js';
import type { AppContext } from '../context.js';

const errors = { 400: ErrorBody, 401: ErrorBody };

export function usageRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/credits/records',
      {
        schema: {
          tags: ['credits'],
          summary:
            'Credit records, newest first: settled charges (negative, by type), grants, purchases and refunds. Held credits of work in progress show only in the balance. `from`/`to`: a UTC day (inclusive) or an ISO time.',
          querystring: RecordsQuery,
          response: { 200: RecordsResponse, ...errors },
        },
      },
      async (request) => {
        const session = await requireSession(request, ctx.sessions);
        const q = request.query;
        const { items, total } = await ctx.usage.records(session.accountId, q);
        return { items, total, page: q.page, page_size: q.page_size };
      },
    );

    app.get(
      '/api/statistics/day_credits',
      {
        schema: {
          tags: ['credits'],
          summary: 'Credits charged and calls per UTC day, oldest first; days without calls are zeros',
          querystring: DayCreditsQuery,
          response: { 200: DayCreditsResponse, ...errors },
        },
      },
      async (request) => {
        const session = await requireSession(request, ctx.sessions);
        return { items: await ctx.usage.dayCredits(session.accountId, request.query.days) };
      },
    );

    app.get(
      '/api/statistics/current',
      {
        schema: {
          tags: ['credits'],
          summary: 'The balance, and the calls and credits of today (UTC) and of all time',
          response: { 200: CurrentStatisticsResponse, ...errors },
        },
      },
      async (request) => {
        const session = await requireSession(request, ctx.sessions);
        const [credits, stats] = await Promise.all([
          ctx.credits.balance(session.accountId),
          ctx.usage.current(session.accountId),
        ]);
        return { credits, ...stats };
      },
    );
  };
}
