import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AccountSchema,
  AccountWithSession,
  AnonymousAccountRequest,
  ApiMeResponse,
  EmailChangeRequest,
  EmailCodeRequest,
  EmailQuery,
  ErrorBody,
  SendCodeRequest,
  UpdateProfileRequest,
} from '@polyvox/contracts';
import type { AppContext } from '../context.js';
import { clearSessionCookie, presentedKey, presentedSid, requireCaller, requireSession, setSessionCookie } from '../http/auth.js';
import { requestLocale } from '../http/locale.js';
import { normalizeEmail } from '../auth/service.js';
import { AppError } from '../platform/errors.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 406: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };

export function accountRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const secureCookie = ctx.config.PUBLIC_URL.startsWith('https:');
  return async (app) => {
    app.post(
      '/accounts/anonymous',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Create an anonymous account',
          body: AnonymousAccountRequest,
          response: { 201: AccountWithSession, ...errors },
        },
      },
      async (request, reply) => {
        const result = await ctx.accounts.createAnonymous(request.body, request.headers['user-agent'] ?? null, request.ip);
        setSessionCookie(reply, result.sid, secureCookie);
        return reply.status(201).send(result);
      },
    );

    app.get(
      '/accounts/me',
      { schema: { tags: ['accounts'], summary: 'The signed-in account', response: { 200: AccountSchema, 401: ErrorBody } } },
      async (request) => {
        const session = await requireSession(request, ctx.sessions);
        return ctx.accounts.view(session.accountId, session.sid);
      },
    );

    app.put(
      '/accounts/me',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Update name or avatar',
          body: UpdateProfileRequest,
          response: { 200: AccountSchema, ...errors },
        },
      },
      async (request) => {
        const session = await requireSession(request, ctx.sessions);
        return ctx.accounts.updateProfile(session.accountId, request.body, session.sid);
      },
    );

    app.get(
      '/accounts/exists',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Whether an account owns the email',
          querystring: EmailQuery.extend({ lang: z.string().optional() }).passthrough(),
          response: { 200: z.object({ exists: z.boolean() }), ...errors },
        },
      },
      async (request) => {
        const email = normalizeEmail(request.query.email);
        return { exists: await ctx.accounts.exists(email, request.ip) };
      },
    );

    app.post(
      '/verification/email',
      {
        schema: {
          tags: ['sign-in'],
          summary: 'Send a one-time code by email',
          body: SendCodeRequest,
          response: { 200: z.object({ resend_after: z.number() }), ...errors },
        },
      },
      async (request) => {
        // A session is optional here; when there is one, its account has its own allowance too.
        const sid = presentedSid(request);
        const session = sid ? await ctx.sessions.resolve(sid) : null;
        return ctx.auth.sendCode(request.body.email, request.ip, requestLocale(request), session?.accountId ?? null);
      },
    );

    app.post(
      '/auth/email',
      {
        schema: {
          tags: ['sign-in'],
          summary: 'Sign in with email and code',
          body: EmailCodeRequest,
          response: { 200: AccountWithSession, ...errors },
        },
      },
      async (request, reply) => {
        const { accountId, sid } = await ctx.auth.signIn(request.body, request.ip, request.headers['user-agent'] ?? null);
        setSessionCookie(reply, sid, secureCookie);
        return ctx.auth.view(accountId, sid);
      },
    );

    app.put(
      '/accounts/me/email',
      {
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
        const session = await requireSession(request, ctx.sessions);
        const { accountId, sid } = await ctx.auth.registerEmail(
          session.accountId,
          request.body,
          request.ip,
          request.headers['user-agent'] ?? null,
          requestLocale(request),
        );
        setSessionCookie(reply, sid, secureCookie);
        return ctx.auth.view(accountId, sid);
      },
    );

    app.delete(
      '/accounts/me/session',
      { schema: { tags: ['sign-in'], summary: 'Sign out this session', response: { 204: z.null(), 401: ErrorBody } } },
      async (request, reply) => {
        const session = await requireSession(request, ctx.sessions);
        await ctx.sessions.revoke(session.sid);
        clearSessionCookie(reply);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/api/me',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Who the bearer token belongs to',
          security: [{ bearer: [] }],
          response: { 200: ApiMeResponse, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        },
      },
      async (request, reply) => {
        // An API key (Bearer or xi-api-key) answers for its account, like a session's Bearer token.
        if (presentedKey(request) !== null) {
          const caller = await requireCaller(request, reply, ctx.sessions, ctx.keyGate);
          const row = await ctx.accounts.get(caller.accountId);
          return { id: row.id, email: row.email, anonymous: row.anonymous === 1 };
        }
        const authz = request.headers.authorization;
        if (!authz?.startsWith('Bearer ')) throw new AppError('UNAUTHENTICATED');
        const session = await ctx.sessions.resolve(authz.slice(7).trim());
        if (!session) throw new AppError('UNAUTHENTICATED');
        const row = await ctx.accounts.get(session.accountId);
        return { id: row.id, email: row.email, anonymous: row.anonymous === 1 };
      },
    );
  };
}
