import { AppError } from '../platform/errors.js';

/**
 * The origins a checkout may send the payer back to: `PUBLIC_URL`'s, then each of `ALLOWED_ORIGINS`. Never the
 * request's Host, X-Forwarded-Host or Origin: those are the client's own words, and trusting them let a forged
 * `Host: evil.example` make every provider's return an open redirect.
 */
export function returnOrigins(config: { PUBLIC_URL: string; ALLOWED_ORIGINS: readonly string[] }): string[] {
  return [new URL(config.PUBLIC_URL).origin, ...config.ALLOWED_ORIGINS];
}

/**
 * Where a checkout may send the payer back: a relative reference (resolved against the first origin, the public
 * one), or an http(s) URL of one of `origins`. Anything else would make the checkout an open redirect.
 * Returns the absolute URL.
 */
export function safeReturnUrl(raw: string, origins: readonly string[]): string {
  const invalid = () => new AppError('VALIDATION_FAILED', { field: 'return_url', rule: 'must be a path or a URL of this site' });
  // Backslashes and control characters are read differently by browsers and URL parsers (`/\evil.example`).
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(raw) || raw.trim() !== raw) throw invalid();
  // A scheme without `//` (`https:evil.example`) is relative to a base of the same scheme and absolute otherwise:
  // which one depends on the base, so it is refused rather than guessed.
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) && !/^https?:\/\//i.test(raw)) throw invalid();
  const allowed = new Set(origins.map((o) => new URL(o).origin));
  const base = origins[0];
  if (!base) throw invalid();
  let resolved: URL;
  try {
    resolved = new URL(raw, base);
  } catch {
    throw invalid();
  }
  if (!['http:', 'https:'].includes(resolved.protocol) || !allowed.has(resolved.origin)) throw invalid();
  if (resolved.username || resolved.password) throw invalid();
  return resolved.href;
}

/**
 * A stored return URL checked again where it is used (the sandbox's redirect and back link): a row written before
 * the origins were narrowed, or under other settings, falls back to the public home page instead of leaving the site.
 */
export function storedReturnUrl(stored: string, origins: readonly string[]): string {
  try {
    return safeReturnUrl(stored, origins);
  } catch {
    return new URL('/', origins[0]).href;
  }
}
