import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS, OPERATOR_PERMISSIONS, type OperatorPermission, type OperatorRole } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { sha256 } from '../platform/crypto.js';
import type { AuditEntry } from '../audit/trail.js';
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
  return sid ? sessions.resolve(sid) : null;
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
 * - `operator`: a session (never an API key: 403) whose account holds an operator role (else 403) and which has passed
 *   the second factor (else 401 SECOND_FACTOR_REQUIRED), in a role that holds the route's `permission` (else 403).
 *   The route must declare `permission`: one without it stops the start.
 * - `operator-factor`: the second factor's own routes: an operator's session, before or after the second factor.
 */
export const AUTH_RULES = [
  'public',
  'optional-session',
  'session',
  'caller',
  'optional-caller',
  'bearer',
  'operator',
  'operator-factor',
] as const;
export type AuthRule = (typeof AUTH_RULES)[number];

/** An operator as a route sees it; `sessionId` is the session's stored id hash. */
export interface OperatorInfo {
  accountId: string;
  role: OperatorRole;
  sessionId: string;
}
/** Whether an account holds an operator role and whether its session passed the second factor; operators/ satisfies it. */
export interface OperatorResolver {
  resolve(accountId: string, sessionHash: string): Promise<{ role: OperatorRole; elevated: boolean } | null>;
  permits(role: OperatorRole, permission: OperatorPermission): boolean;
}

/**
 * What the route's rule found: `session` for a session, `caller` for whoever pays (a key's account or a session's),
 * `operator` for an operator route's operator.
 */
export interface RequestAuth {
  rule: AuthRule;
  session: SessionInfo | null;
  caller: Caller | null;
  operator?: OperatorInfo | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
    /** An `operator` route's permission (packages/contracts/src/operators.ts). */
    permission?: OperatorPermission;
  }
  interface FastifyRequest {
    auth: RequestAuth;
  }
  interface FastifyInstance {
    /** Each route's rule by `METHOD url`, as registered (HEAD routes included). */
    authRules: ReadonlyMap<string, AuthRule>;
    /** Each `operator` route's permission by `METHOD url`. */
    operatorPermissions: ReadonlyMap<string, OperatorPermission>;
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

/** The operator the route's rule established (an `operator` or `operator-factor` route); else FORBIDDEN. */
export function operatorOf(request: FastifyRequest): OperatorInfo {
  const operator = request.auth?.operator;
  if (!operator) throw new AppError('FORBIDDEN');
  return operator;
}

/** Who acts in this request, as its audit entries name them: the operator and role, the request id and address. */
export function auditActor(request: FastifyRequest): Pick<AuditEntry, 'operator' | 'requestId' | 'ip'> {
  const { accountId, role } = operatorOf(request);
  return { operator: { accountId, role }, requestId: request.id, ip: request.ip };
}

/** An audit entry for this request's operator: who, in which role, from which request and address. */
export function auditFrom(
  request: FastifyRequest,
  action: string,
  target: { type: string; id: string },
  details: { before?: unknown; after?: unknown; reason?: string | null } = {},
): AuditEntry {
  return { ...auditActor(request), action, target, ...details };
}

/**
 * An operator route's caller: never an API key (403); a session (401 without one) whose account holds a role (403
 * otherwise); for `operator` routes also a session that passed the second factor (401 SECOND_FACTOR_REQUIRED) in a
 * role that holds the route's permission (403).
 */
async function authenticateOperator(
  rule: 'operator' | 'operator-factor',
  request: FastifyRequest,
  sessions: SessionResolver,
  operators: OperatorResolver,
): Promise<RequestAuth> {
  if (presentedKey(request) !== null) throw new AppError('FORBIDDEN');
  const session = await requireSession(request, sessions);
  const sessionId = sha256(session.sid);
  const found = await operators.resolve(session.accountId, sessionId);
  if (!found) throw new AppError('FORBIDDEN');
  if (rule === 'operator') {
    if (!found.elevated) throw new AppError('SECOND_FACTOR_REQUIRED');
    const permission = request.routeOptions.config.permission;
    if (!permission || !operators.permits(found.role, permission)) throw new AppError('FORBIDDEN');
  }
  return { rule, session, caller: null, operator: { accountId: session.accountId, role: found.role, sessionId } };
}

async function authenticate(
  rule: AuthRule,
  request: FastifyRequest,
  reply: FastifyReply,
  sessions: SessionResolver,
  gate: KeyGate,
  operators: OperatorResolver,
): Promise<RequestAuth> {
  switch (rule) {
    case 'operator':
    case 'operator-factor':
      return authenticateOperator(rule, request, sessions, operators);
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
export function registerAuth(app: FastifyInstance, sessions: SessionResolver, gate: KeyGate, operators: OperatorResolver): void {
  const rules = new Map<string, AuthRule>();
  const permissions = new Map<string, OperatorPermission>();
  app.decorate('authRules', rules);
  app.decorate('operatorPermissions', permissions);
  app.decorateRequest('auth', null as unknown as RequestAuth);
  app.addHook('onRoute', function (route) {
    const rule = route.config?.auth ?? (this as unknown as WithDefault)[kDefaultAuth];
    const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
    if (rule === undefined) throw new Error(`route ${methods} ${route.url} declares no auth rule (config.auth)`);
    if (!(AUTH_RULES as readonly string[]).includes(rule))
      throw new Error(`route ${methods} ${route.url} declares an unknown auth rule: ${String(rule)}`);
    const permission = route.config?.permission;
    if (rule === 'operator' && !(OPERATOR_PERMISSIONS as readonly string[]).includes(permission ?? ''))
      throw new Error(`operator route ${methods} ${route.url} declares no known permission (config.permission)`);
    if (rule !== 'operator' && permission !== undefined)
      throw new Error(`route ${methods} ${route.url} declares a permission without the operator rule`);
    route.config = { ...route.config, auth: rule };
    for (const method of [route.method].flat()) {
      rules.set(`${method} ${route.url}`, rule);
      if (rule === 'operator' && permission) permissions.set(`${method} ${route.url}`, permission);
    }
  });
  // Operator routes check their caller before the request is validated: whoever is not let in learns nothing of
  // the console's shapes (and a test can prove each route's rule without knowing its body).
  const isOperatorRule = (rule: AuthRule | undefined) => rule === 'operator' || rule === 'operator-factor';
  app.addHook('preValidation', async (request, reply) => {
    const rule = request.routeOptions.config.auth;
    if (isOperatorRule(rule)) request.auth = await authenticate(rule!, request, reply, sessions, gate, operators);
  });
  app.addHook('preHandler', async (request, reply) => {
    const rule = request.routeOptions.config.auth;
    if (isOperatorRule(rule)) return;
    // The not-found handler has no rule: it authenticates nobody.
    request.auth = rule && rule !== 'public' ? await authenticate(rule, request, reply, sessions, gate, operators) : NO_AUTH;
  });
}
