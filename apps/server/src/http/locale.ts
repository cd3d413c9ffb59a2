import type { FastifyRequest } from 'fastify';
import { resolveMessageLocale, type MessageLocale } from '@polyvox/contracts';

export function requestLocale(request: FastifyRequest): MessageLocale {
  const query = request.query as Record<string, unknown> | undefined;
  const lang = typeof query?.lang === 'string' ? query.lang : null;
  return resolveMessageLocale(lang, request.headers['accept-language'] ?? null);
}
