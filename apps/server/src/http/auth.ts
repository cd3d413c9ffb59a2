import type { FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';

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
