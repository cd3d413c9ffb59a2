import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CurrentStatisticsResponse,
  DayCreditsQuery,
  DayCreditsResponse,
  ErrorBody,
  RecordsQuery,
  RecordsResponse,
} from '@polyvox/contracts';
import { sessionOf } from '../http/auth.js';
import type { UsageService } from './service.js';
import type { CreditsService } from '../credits/service.js';

const errors = { 400: ErrorBody, 401: ErrorBody };

export interface UsageRoutesDeps {
  usage: UsageService;
  credits: Pick<CreditsService, 'balance'>;
}

export function usageRoutes(deps: UsageRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/credits/records',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['credits'],
          summary:
            'Credit records, newest first: settled charges and activation fees (negative, by type), grants, purchases and refunds. Held credits of work in progress show only in the balance. `from`/`to`: a UTC day (inclusive) or an ISO time.',
          querystring: RecordsQuery,
          response: { 200: RecordsResponse, ...errors },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        const q = request.query;
        const { items, total } = await deps.usage.records(session.accountId, q);
        return { items, total, page: q.page, page_size: q.page_size };
      },
    );

    app.get(
      '/api/statistics/day_credits',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['credits'],
          summary: 'Credits charged and calls made with API keys per UTC day, oldest first; days without either are zeros',
          querystring: DayCreditsQuery,
          response: { 200: DayCreditsResponse, ...errors },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        return { items: await deps.usage.dayCredits(session.accountId, request.query.days) };
      },
    );

    app.get(
      '/api/statistics/current',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['credits'],
          summary: 'The balance, the credits charged today (UTC), and the calls made with API keys today and of all time',
          response: { 200: CurrentStatisticsResponse, ...errors },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        const [credits, stats] = await Promise.all([
          deps.credits.balance(session.accountId),
          deps.usage.current(session.accountId),
        ]);
        return { credits, ...stats };
      },
    );
  };
}
