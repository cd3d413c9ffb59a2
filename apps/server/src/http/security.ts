import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

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

/**
 * Fastify server options that bound how long a client may take to send its request: a client that trickles its
 * headers or body is answered 408 and closed. Node checks these deadlines on an interval (30 s by default), which
 * would let a slow client stay up to twice as long as allowed; a second is precise enough and cheap.
 */
export function requestTimeouts(requestSeconds: number, headersSeconds: number) {
  return {
    requestTimeout: requestSeconds * 1000,
    http: { headersTimeout: Math.min(headersSeconds, requestSeconds) * 1000, connectionsCheckingInterval: 1000 },
  };
}

/**
 * Headers that only a document (or an API answer a browser might show) acts on. A script, style sheet or image
 * loaded by the console's page follows the page's policy, not its own, so the console's hashed build files go without
 * them: over HTTP/1.1 they were about 700 of the 1,100 header bytes each of the ~60 files of a first visit carries.
 * nosniff and Cross-Origin-Resource-Policy, which do apply to such files, stay.
 */
export const DOCUMENT_ONLY_HEADERS = [
  'content-security-policy',
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'strict-transport-security',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
] as const;

/**
 * Headers a hashed build file does without: its name changes with its content and it is cached as `immutable`, so a
 * browser never revalidates it (no `etag` or `last-modified` is needed), fetches it whole (`accept-ranges`), and a
 * request id on a file served as is names nothing worth looking up (an error answer keeps it). About 150 bytes on each
 * of a first visit's files.
 */
export const HASHED_ASSET_REDUNDANT_HEADERS = ['etag', 'last-modified', 'accept-ranges', 'x-request-id'] as const;

/** The console's hashed build files (`assets/`, served as /assets/…): never a document, never a worker script. SVG is
 * left out: opened on its own it is a document, and its scripts would run. */
const BUILD_ASSET = /^\/assets\/[^/?#]+\.(?:js|css|woff2?|png|webp)(?:[?#]|$)/;

/** Security headers on every answer: CSP (with frame-ancestors), nosniff, Referrer-Policy, X-Frame-Options, HSTS. */
export async function registerSecurity(app: FastifyInstance) {
  // Helmet's middleware, made once: its directives are parsed here, not again on every request (as the Fastify plugin
  // does, about 40 KB of garbage a request for the event loop's collector).
  const secure = helmet({ contentSecurityPolicy: { directives: CONSOLE_DIRECTIVES } });
  app.addHook('onRequest', (request, reply, done) =>
    secure(request.raw, reply.raw, (err) => done(err instanceof Error ? err : undefined)),
  );
  app.addHook('onSend', async (request, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (BUILD_ASSET.test(request.url) && reply.statusCode < 400 && !type.includes('html'))
      for (const name of [...DOCUMENT_ONLY_HEADERS, ...HASHED_ASSET_REDUNDANT_HEADERS]) reply.removeHeader(name);
    return payload;
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.startsWith('/reference') || typeof payload !== 'string' || !payload.includes('<script')) return payload;
    void reply.header('content-security-policy', directiveText(inlineScriptHashes(payload)));
    return payload;
  });
}
