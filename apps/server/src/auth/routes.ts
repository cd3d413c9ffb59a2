import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AccountWithSession, EmailChangeRequest, EmailCodeRequest, ErrorBody, SendCodeRequest } from '@polyvox/contracts';
import type { AuthService } from './service.js';
import type { SessionService } from '../sessions/sessions.js';
import type { Config } from '../platform/config.js';
import { clearSessionCookie, sessionOf, setSessionCookie } from '../http/auth.js';
import { requestLocale } from '../http/locale.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 406: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };

/** Signing in: one-time codes, sign-in, registration in place or an email change, and signing out. */
export interface AuthRoutesDeps {
  auth: AuthService;
  sessions: Pick<SessionService, 'revoke'>;
  config: Pick<Config, 'PUBLIC_URL'>;
}

export function authRoutes(deps: AuthRoutesDeps): FastifyPluginAsyncZod {
  const secureCookie = deps.config.PUBLIC_URL.startsWith('https:');
  return async (app) => {
    app.post(
      '/verification/email',
      {
        config: { auth: 'optional-session' },
        schema: {
          tags: ['sign-in'],
          summary: 'Send a one-time code by email',
          body: SendCodeRequest,
          response: { 200: z.object({ resend_after: z.number() }), ...errors },
        },
      },
      async (request) => {
        // A session is optional here; when there is one, its account has its own allowance too.
        const session = request.auth.session;
        return deps.auth.sendCode(request.body.email, request.ip, requestLocale(request), session?.accountId ?? null);
      },
    );

    app.post(
      '/auth/email',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['sign-in'],
          summary: 'Sign in with email and code',
          body: EmailCodeRequest,
          response: { 200: AccountWithSession, ...errors },
        },
      },
      async (request, reply) => {
        const { accountId, sid } = await deps.auth.signIn(request.body, request.ip, request.headers['user-agent'] ?? null);
        setSessionCookie(reply, sid, secureCookie);
        return deps.auth.view(accountId, sid);
      },
    );

    app.put(
      '/accounts/me/email',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['sign-in'],
          summary: "Register the anonymous account under an email, or change a registered account's email",
          description:
            'An anonymous session registers its account in place with `{email, vcode}`. A registered account also sends `current_vcode`, a code sent to its current address; the old address is told and every other session ends.',
          body: EmailChangeRequest,
          response: { 200: AccountWithSession, ...errors },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        const { accountId, sid } = await deps.auth.registerEmail(
          session.accountId,
          request.body,
          request.ip,
          request.headers['user-agent'] ?? null,
          requestLocale(request),
        );
        setSessionCookie(reply, sid, secureCookie);
        return deps.auth.view(accountId, sid);
      },
    );

    app.delete(
      '/accounts/me/session',
      {
        config: { auth: 'session' },
        schema: { tags: ['sign-in'], summary: 'Sign out this session', response: { 204: z.null(), 401: ErrorBody } },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        await deps.sessions.revoke(session.sid);
        clearSessionCookie(reply);
        return reply.status(204).send(null);
      },
    );
  };
}
