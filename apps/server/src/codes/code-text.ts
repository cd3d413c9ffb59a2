import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { sha256 } from '../platform/crypto.js';

/**
 * Redemption codes as text: 16 characters from a 32-letter alphabet without the look-alikes (no I, O, 0, 1), so 80
 * random bits, read from the system's CSPRNG; written in groups of four after the batch's prefix
 * (`SPRING-7KQM-X4PD-HW2R-NC9T`). A typed code counts whatever its case, dashes and spaces.
 */
export const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const BODY_LENGTH = 16;

export function newCode(prefix: string): string {
  const bytes = randomBytes(BODY_LENGTH);
  // 256 is a multiple of 32: every letter is equally likely.
  const body = Array.from(bytes, (b) => CODE_ALPHABET[b % 32]).join('');
  const groups = body.match(/.{4}/g)!;
  return [prefix, ...groups].filter(Boolean).join('-');
}

/** What is hashed and compared: upper case, with no separators. */
export function normaliseCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s\-_]/g, '');
}

export function codeHash(typed: string): string {
  return sha256(`redeem:${normaliseCode(typed)}`);
}

/** What the console shows of a code: its prefix and its last four characters. */
export function codeHint(code: string): string {
  const parts = code.split('-');
  const last = parts.at(-1)!;
  // A prefix makes five groups: it stays readable.
  const masked = parts.slice(0, -1).map((p, i) => (i === 0 && parts.length === 5 ? p : '****'));
  return [...masked, last].join('-');
}

/** The codes are kept encrypted (AES-256-GCM, a key derived from the server secret), so the CSV export works later. */
export class CodeCipher {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update(`polyvox:redemption-codes:${secret}`).digest();
  }

  seal(code: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(code, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
