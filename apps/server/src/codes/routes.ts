import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorBody, RedeemRequest, RedeemResponse } from '@polyvox/contracts';
import { callerOf } from '../http/auth.js';
import type { CodesService } from './service.js';

export interface CodeRoutesDeps {
  codes: CodesService;
}

/** The user's side of redemption codes: `POST /api/redeem`, with a session or an API key. */
export function codeRoutes(deps: CodeRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/redeem',
      {
        config: { auth: 'caller' },
        schema: {
          tags: ['orders'],
          summary: 'Redeem a code: its credits (and its plan) join the account',
          description:
            'A code works once per account, and only as many times as it was made for. An unknown, used-up, expired or revoked code, or one the account already used, answers 409 CODE_NOT_REDEEMABLE. Every attempt counts against the account and the client address (`REDEEM_PER_ACCOUNT_HOUR`, `REDEEM_PER_IP_HOUR`): beyond, 429 RATE_LIMITED with `retry-after`. The credits are a `grant` record in `/api/credits/records`.',
          body: RedeemRequest,
          response: { 200: RedeemResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody },
        },
      },
      async (request) => deps.codes.redeem(callerOf(request).accountId, request.body.code, request.ip),
    );
  };
}
