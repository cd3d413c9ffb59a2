import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';

/**
 * The console's needs: Mantine injects <style> elements, audio plays from blob: URLs (MSE and decoded results),
 * avatars and waveforms may be data:/blob: images. Nothing is loaded from another origin, and only this origin may
 * frame the pages.
 */
const CONSOLE_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  mediaSrc: ["'self'", 'data:', 'blob:'],
  connectSrc: ["'self'"],
  workerSrc: ["'self'", 'blob:'],
  fontSrc: ["'self'", 'data:'],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'self'"],
  // Embedded deployments serve plain http on a LAN; upgrading their subresources to https would break them.
  upgradeInsecureRequests: null,
};

const directiveText = (extraScripts: string[]) =>
  [
    "default-src 'self'",
    `script-src 'self' ${extraScripts.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' data: blob:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');

/** The inline scripts of a page, as CSP hash sources: the API reference starts itself with one. */
function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    hashes.push(
      `'sha256-${createHash('sha256')
        .update(match[1] ?? '')
        .digest('base64')}'`,
    );
  }
  return hashes;
}

/** Security headers on every answer, and request/header timeouts so a slow client cannot hold a connection. */
export async function registerSecurity(app: FastifyInstance, timeouts: { headersSeconds: number; requestSeconds: number }) {
  await app.register(helmet, { contentSecurityPolicy: { directives: CONSOLE_DIRECTIVES }, global: true });
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.startsWith('/reference') || typeof payload !== 'string' || !payload.includes('<script')) return payload;
    void reply.header('content-security-policy', directiveText(inlineScriptHashes(payload)));
    return payload;
  });
  app.server.headersTimeout = Math.min(timeouts.headersSeconds, timeouts.requestSeconds) * 1000;
}
