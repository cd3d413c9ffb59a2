import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AccountSchema,
  AccountWithSession,
  AnonymousAccountRequest,
  ApiMeResponse,
  ExistsQuery,
  ErrorBody,
  UpdateProfileRequest,
} from '@polyvox/contracts';
import type { AccountsService } from './service.js';
import type { Config } from '../platform/config.js';
import { callerOf, sessionOf, setSessionCookie } from '../http/auth.js';
import { normalizeEmail } from './email.js';
import { parseMobile } from './phone.js';
import { requestLocale } from '../http/locale.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 406: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };

export interface AccountRoutesDeps {
  accounts: AccountsService;
  config: Pick<Config, 'PUBLIC_URL'>;
}

export function accountRoutes(deps: AccountRoutesDeps): FastifyPluginAsyncZod {
  const secureCookie = deps.config.PUBLIC_URL.startsWith('https:');
  return async (app) => {
    app.post(
      '/accounts/anonymous',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['accounts'],
          summary: 'Create an anonymous account',
          body: AnonymousAccountRequest,
          response: { 201: AccountWithSession, ...errors },
        },
      },
      async (request, reply) => {
        const result = await deps.accounts.createAnonymous(request.body, request.headers['user-agent'] ?? null, request.ip);
        setSessionCookie(reply, result.sid, secureCookie);
        return reply.status(201).send(result);
      },
    );

    app.get(
      '/accounts/me',
      {
        config: { auth: 'session' },
        schema: { tags: ['accounts'], summary: 'The signed-in account', response: { 200: AccountSchema, 401: ErrorBody } },
      },
      async (request) => {
        const session = sessionOf(request);
        return deps.accounts.view(session.accountId, session.sid);
      },
    );

    app.put(
      '/accounts/me',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['accounts'],
          summary: 'Update name or avatar',
          body: UpdateProfileRequest,
          response: { 200: AccountSchema, ...errors },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        return deps.accounts.updateProfile(session.accountId, request.body, session.sid);
      },
    );

    app.get(
      '/accounts/exists',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['accounts'],
          summary: 'Whether an account owns the email or the phone number',
          description:
            '`mobile`: E.164, or national with `region` (default from `lang`: CN for zh-CN); a bad number 406 PHONE_FORMAT.',
          querystring: ExistsQuery.extend({ lang: z.string().optional() }).passthrough(),
          response: { 200: z.object({ exists: z.boolean() }), ...errors },
        },
      },
      async (request) => {
        if (request.query.mobile !== undefined && request.query.email === undefined) {
          const { e164 } = parseMobile(request.query.mobile, request.query.region, requestLocale(request));
          return { exists: await deps.accounts.mobileExists(e164, request.ip) };
        }
        const email = normalizeEmail(request.query.email);
        return { exists: await deps.accounts.exists(email, request.ip) };
      },
    );

    app.get(
      '/api/me',
      {
        config: { auth: 'bearer' },
        schema: {
          tags: ['accounts'],
          summary: 'Who the bearer token belongs to',
          security: [{ bearer: [] }],
          response: { 200: ApiMeResponse, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        },
      },
      async (request) => {
        // An API key (Bearer or xi-api-key) answers for its account, like a session's Bearer token.
        const row = await deps.accounts.get(callerOf(request).accountId);
        return { id: row.id, email: row.email, anonymous: row.anonymous === 1 };
      },
    );
  };
}
