import { AppError } from '../platform/errors.js';

/**
 * Where a checkout may send the payer back: a relative reference, or an http(s) URL of one of `origins` (this server's
 * public origin and the origin the request came to). Anything else would make the checkout an open redirect.
 * Returns the absolute URL.
 */
export function safeReturnUrl(raw: string, origins: string[]): string {
  const invalid = () => new AppError('VALIDATION_FAILED', { field: 'return_url', rule: 'must be a path or a URL of this site' });
  // Backslashes and control characters are read differently by browsers and URL parsers (`/\evil.example`).
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(raw) || raw.trim() !== raw) throw invalid();
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
