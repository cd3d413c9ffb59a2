import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import type { ConcurrencyLimiter, RateLimiter } from '../platform/rate-limit.js';

/** What a request's session resolves to; the auth module's sessions satisfy it (http/ never imports a domain module). */
export interface SessionInfo {
  accountId: string;
  sid: string;
}
export interface SessionResolver {
  resolve(sid: string): Promise<SessionInfo | null>;
}

/** The session token a request presents: x-sid header, then the sid cookie, then a Bearer token. */
export function presentedSid(request: FastifyRequest): string | null {
  const header = request.headers['x-sid'];
  if (typeof header === 'string' && header) return header;
  const cookie = request.cookies?.sid;
  if (cookie) return cookie;
  const authz = request.headers.authorization;
  if (authz?.startsWith('Bearer ')) return authz.slice(7).trim() || null;
  return null;
}

/** The request's session when it presents a valid one, else null (for routes open to anyone). */
export async function optionalSession(request: FastifyRequest, sessions: SessionResolver): Promise<SessionInfo | null> {
  const sid = presentedSid(request);
  // A disabled account's session is no session where none is needed (another account may sign in from that browser).
  return sid ? sessions.resolve(sid).catch(noDisabledSession) : null;
}

function noDisabledSession(e: unknown): null {
  if (e instanceof AppError && e.code === 'ACCOUNT_DISABLED') return null;
  throw e;
}

export async function requireSession(request: FastifyRequest, sessions: SessionResolver): Promise<SessionInfo> {
  const sid = presentedSid(request);
  const session = sid ? await sessions.resolve(sid) : null;
  if (!session) throw new AppError('UNAUTHENTICATED');
  return session;
}

export function setSessionCookie(reply: FastifyReply, sid: string, secure: boolean): void {
  void reply.setCookie('sid', sid, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure,
    maxAge: LIMITS.sessionDays * 86_400,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie('sid', { path: '/' });
}

/** What an API key resolves to; the api-keys module satisfies the resolver. */
export interface KeyInfo {
  id: string;
  accountId: string;
  requestsPerMinute: number;
  concurrency: number;
  /** The only voices the key may use; null: any. */
  voices: readonly string[] | null;
}
export interface KeyResolver {
  resolve(secret: string): Promise<KeyInfo | null>;
}
/** Whether an account's plan includes the API; the orders module's plan privileges satisfy it. */
export interface PlanGate {
  apiAccess(accountId: string): Promise<boolean>;
}
export interface KeyGate {
  keys: KeyResolver;
  rate: RateLimiter;
  concurrency: ConcurrencyLimiter;
  plans: PlanGate;
}

/** Who pays for a public API call: a session's account, or an API key's. */
export interface Caller {
  accountId: string;
  key: KeyInfo | null;
}

/** Every API key starts with this, so a Bearer token is told apart from a session id without a lookup. */
export const API_KEY_PREFIX = 'pvx_';

/** The API key a request presents: `xi-api-key` (ElevenLabs' header), else a Bearer token that is a key. */
export function presentedKey(request: FastifyRequest): string | null {
  const xi = request.headers['xi-api-key'];
  if (typeof xi === 'string' && xi.trim()) return xi.trim();
  const authz = request.headers.authorization;
  if (authz?.startsWith('Bearer ')) {
    const token = authz.slice(7).trim();
    if (token.startsWith(API_KEY_PREFIX)) return token;
  }
  return null;
}

/**
 * Resolves the caller of a public API route: a presented API key (checked against the database on every
 * request, so a deleted key fails at once in every process), else the session. A key works only while
 * its account's plan includes the API (FORBIDDEN otherwise). A key's requests per
 * minute and its work in flight are limited here; the slot is given back when the response closes.
 */
export async function requireCaller(
  request: FastifyRequest,
  reply: FastifyReply,
  sessions: SessionResolver,
  gate: KeyGate,
): Promise<Caller> {
  const secret = presentedKey(request);
  if (secret === null) {
    const session = await requireSession(request, sessions);
    return { accountId: session.accountId, key: null };
  }
  const { caller, release } = await admitKey(secret, gate);
  const res = reply.raw;
  if (res.writableFinished || res.destroyed) release();
  else res.once('close', release);
  return caller;
}

/**
 * An API key's admission, wherever it was presented (a header, or the first message of a realtime socket): the key
 * must exist and its plan include the API, and it takes one of its requests per minute and a slot of its work in
 * flight, which `release` gives back.
 */
export async function admitKey(secret: string, gate: KeyGate): Promise<{ caller: Caller; release: () => void }> {
  const key = await gate.keys.resolve(secret);
  if (!key) throw new AppError('UNAUTHENTICATED', { reason: 'invalid_key' });
  // A plan without the API (or one that expired into such a plan) stops its keys at once.
  if (!(await gate.plans.apiAccess(key.accountId))) throw new AppError('FORBIDDEN', { reason: 'api_access' });
  const wait = await gate.rate.hit(`key:rpm:${key.id}`, key.requestsPerMinute, 60);
  if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
  const release = await gate.concurrency.acquire(`key:conc:${key.id}`, key.concurrency);
  if (!release) throw new AppError('RATE_LIMITED', { seconds: 1 }, { headers: { 'retry-after': '1' } });
  return { caller: { accountId: key.accountId, key }, release };
}

/** A key with a voice allowlist may use only those voices: any other is refused with FORBIDDEN. */
export function assertVoiceAllowed(caller: Caller, voiceId: string): void {
  if (caller.key?.voices && !caller.key.voices.includes(voiceId)) throw new AppError('FORBIDDEN');
}

/**
 * How a route authenticates, declared in its options (`config: { auth: 'session' }`) and applied by one hook
 * (`registerAuth`) after the request is validated, before the handler runs:
 * - `public`: anyone; nothing is looked up.
 * - `optional-session`: anyone; the session when the request presents a valid one.
 * - `session`: a valid session, else 401 UNAUTHENTICATED.
 * - `caller`: an API key (with its plan, rate and concurrency checks) or a session (`requireCaller`).
 * - `optional-caller`: anyone, but a presented API key must pass as for `caller`; the session when there is one.
 * - `bearer`: an API key, or a session given as a Bearer token (not the cookie or `x-sid`).
 */
export const AUTH_RULES = ['public', 'optional-session', 'session', 'caller', 'optional-caller', 'bearer'] as const;
export type AuthRule = (typeof AUTH_RULES)[number];

/** What the route's rule found: `session` for a session, `caller` for whoever pays (a key's account or a session's). */
export interface RequestAuth {
  rule: AuthRule;
  session: SessionInfo | null;
  caller: Caller | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
  }
  interface FastifyRequest {
    auth: RequestAuth;
  }
  interface FastifyInstance {
    /** Each route's rule by `METHOD url`, as registered (HEAD routes included). */
    authRules: ReadonlyMap<string, AuthRule>;
  }
}

const kDefaultAuth = Symbol('polyvox.defaultAuth');
type WithDefault = { [kDefaultAuth]?: AuthRule };

/**
 * Routes a third-party plugin registers inside `scope` (the static console, the API reference) take `rule`;
 * any other route must declare its own.
 */
export function defaultAuth(scope: FastifyInstance, rule: AuthRule): void {
  (scope as unknown as WithDefault)[kDefaultAuth] = rule;
}

/** The session the route's rule established; UNAUTHENTICATED when there is none. */
export function sessionOf(request: FastifyRequest): SessionInfo {
  const session = request.auth?.session;
  if (!session) throw new AppError('UNAUTHENTICATED');
  return session;
}

/** The caller the route's rule established; UNAUTHENTICATED when there is none. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = request.auth?.caller;
  if (!caller) throw new AppError('UNAUTHENTICATED');
  return caller;
}

async function authenticate(
  rule: AuthRule,
  request: FastifyRequest,
  reply: FastifyReply,
  sessions: SessionResolver,
  gate: KeyGate,
): Promise<RequestAuth> {
  switch (rule) {
    case 'public':
      return { rule, session: null, caller: null };
    case 'optional-session':
      return { rule, session: await optionalSession(request, sessions), caller: null };
    case 'session':
      return { rule, session: await requireSession(request, sessions), caller: null };
    case 'caller':
      return { rule, session: null, caller: await requireCaller(request, reply, sessions, gate) };
    case 'optional-caller': {
      const caller = presentedKey(request) !== null ? await requireCaller(request, reply, sessions, gate) : null;
      return { rule, session: await optionalSession(request, sessions), caller };
    }
    case 'bearer': {
      if (presentedKey(request) !== null)
        return { rule, session: null, caller: await requireCaller(request, reply, sessions, gate) };
      const authz = request.headers.authorization;
      if (!authz?.startsWith('Bearer ')) throw new AppError('UNAUTHENTICATED');
      const session = await sessions.resolve(authz.slice(7).trim());
      if (!session) throw new AppError('UNAUTHENTICATED');
      return { rule, session, caller: { accountId: session.accountId, key: null } };
    }
  }
}

const NO_AUTH: RequestAuth = Object.freeze({ rule: 'public', session: null, caller: null });

/**
 * Every route must declare its rule: registering one without it throws, naming the route, so the app does not
 * start. The rule runs in preHandler, after the body and query are validated (a malformed request is refused as
 * malformed whether or not it is signed in), and puts what it found on `request.auth`.
 */
export function registerAuth(app: FastifyInstance, sessions: SessionResolver, gate: KeyGate): void {
  const rules = new Map<string, AuthRule>();
  app.decorate('authRules', rules);
  app.decorateRequest('auth', null as unknown as RequestAuth);
  app.addHook('onRoute', function (route) {
    const rule = route.config?.auth ?? (this as unknown as WithDefault)[kDefaultAuth];
    const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
    if (rule === undefined) throw new Error(`route ${methods} ${route.url} declares no auth rule (config.auth)`);
    if (!(AUTH_RULES as readonly string[]).includes(rule))
      throw new Error(`route ${methods} ${route.url} declares an unknown auth rule: ${String(rule)}`);
    route.config = { ...route.config, auth: rule };
    for (const method of [route.method].flat()) rules.set(`${method} ${route.url}`, rule);
  });
  app.addHook('preHandler', async (request, reply) => {
    const rule = request.routeOptions.config.auth;
    // The not-found handler has no rule: it authenticates nobody.
    request.auth = rule && rule !== 'public' ? await authenticate(rule, request, reply, sessions, gate) : NO_AUTH;
  });
}
