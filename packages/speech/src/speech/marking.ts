/**
 * The watermark each rendering carries: the server's key, and a 32-bit payload derived from the content's cache key
 * (keyed, so no one without the key can tell which content it names), so a cached replay carries the payload its first
 * rendering did.
 */
import { createHmac } from 'node:crypto';
import type { Mark } from '../audio/marked.ts';

/** The payload a content's audio carries under `key`. */
export function payloadOf(key: Uint8Array, contentKey: string): number {
  return createHmac('sha256', key).update(`payload:${contentKey}`).digest().readUInt32BE(0);
}

/** The mark of a content (by its cache key); none without a watermark key. */
export function marker(key: Uint8Array | undefined): (contentKey: string) => Mark | undefined {
  return (contentKey) => (key ? { key, payload: payloadOf(key, contentKey) } : undefined);
}
