import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AccountSchema,
  AccountWithSession,
  EmailChangeRequest,
  EmailCodeRequest,
  ErrorBody,
  MobileChangeRequest,
  PowChallenge,
  SendCodeRequest,
  SmsCodeRequest,
  SmsCodeSendRequest,
} from '@polyvox/contracts';
import type { AuthService } from './service.js';
import type { PhoneAuthService } from './phone.js';
import type { SmsGuard } from './sms-guard.js';
import type { SessionService } from '../sessions/sessions.js';
import type { Config } from '../platform/config.js';
import { clearSessionCookie, sessionOf, setSessionCookie } from '../http/auth.js';
import { requestLocale } from '../http/locale.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 406: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };

/** Signing in: one-time codes, sign-in, registration in place or an email change, and signing out. */
export interface AuthRoutesDeps {
  auth: AuthService;
  phone: PhoneAuthService;
  smsGuard: Pick<SmsGuard, 'challenge'>;
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

    app.get(
      '/verification/challenge',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['sign-in'],
          summary: 'A proof-of-work challenge for the next code by SMS',
          description:
            'Once an address has used its few free codes of the day, `POST /verification/mobile` answers 403 CAPTCHA_INCORRECT with `x-challenge: required` until it carries a solved challenge: the counter whose SHA-256 (ALTCHA v2, altcha-lib) starts with `keyPrefix`, sent as base64 of `{challenge, solution}`. One solution buys one message.',
          response: { 200: PowChallenge, 429: ErrorBody },
        },
      },
      async (_request, reply) => {
        void reply.header('cache-control', 'no-store');
        return PowChallenge.parse(await deps.smsGuard.challenge());
      },
    );

    app.post(
      '/verification/mobile',
      {
        config: { auth: 'optional-session' },
        schema: {
          tags: ['sign-in'],
          summary: 'Send a one-time code by SMS',
          description:
            'The number in E.164, or national with `region` (default from `lang`: CN for zh-CN). Refused: a malformed number (406 PHONE_FORMAT), a region the operator does not serve (400 VALIDATION_FAILED), a missing or wrong proof-of-work past the free allowance (403 CAPTCHA_INCORRECT, `x-challenge: required`), too soon again (429 CODE_COOLDOWN), past a limit per address, account or number or the daily cap of the service (429 RATE_LIMITED).',
          body: SmsCodeSendRequest,
          response: { 200: z.object({ resend_after: z.number() }), ...errors },
        },
      },
      async (request) => {
        const session = request.auth.session;
        return deps.phone.sendCode(request.body, request.ip, requestLocale(request), session?.accountId ?? null);
      },
    );

    app.post(
      '/auth/sms',
      {
        config: { auth: 'optional-session' },
        schema: {
          tags: ['sign-in'],
          summary: 'Sign in with a phone number and code',
          description:
            "Signs in to the account that owns the number; else registers the anonymous session's account under it in place (its credits and voices stay); else creates an account.",
          body: SmsCodeRequest,
          response: { 200: AccountWithSession, ...errors },
        },
      },
      async (request, reply) => {
        const { accountId, sid } = await deps.phone.signIn(
          request.body,
          request.ip,
          request.headers['user-agent'] ?? null,
          requestLocale(request),
          request.auth.session?.accountId ?? null,
        );
        setSessionCookie(reply, sid, secureCookie);
        return deps.auth.view(accountId, sid);
      },
    );

    app.put(
      '/accounts/me/mobile',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['sign-in'],
          summary: "Bind or change the account's phone number",
          description:
            "With a code sent to the new number; changing a number also needs `current_vcode`, a code sent to the current one. Another account's number: 409 PHONE_TAKEN.",
          body: MobileChangeRequest,
          response: { 200: AccountSchema, ...errors },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        await deps.phone.bind(session.accountId, request.body, request.ip, requestLocale(request));
        return (await deps.auth.view(session.accountId, session.sid)).account;
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
