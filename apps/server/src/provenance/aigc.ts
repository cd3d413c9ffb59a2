/**
 * The GB 45438-2025 implicit label's record: the seven fields, with `ReservedCode1` an integrity code over the six
 * others keyed by the server (HMAC-SHA256, first 128 bits in hex), so a label copied from a file and edited is told
 * from one this server wrote. The containers that carry it are written by `@polyvox/speech/formats`.
 *
 * The label is bound to its sound by the record: a stream's label leaves before its audio exists, so the code cannot
 * cover the audio; instead the record keeps the SHA-256 of the sound that left (`AudioDigest`, the bytes without any
 * label or manifest), and the check compares the file's own with it.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import {
  AIGC_KEYS,
  AIGC_LABEL_GENERATED,
  AudioPayload,
  aigcJson,
  type AigcRecord,
  type LabelledContainer,
} from '@polyvox/speech/formats';

export type UnsealedRecord = Omit<AigcRecord, 'ReservedCode1'>;

function integrityCode(key: Buffer, fields: UnsealedRecord): string {
  const mac = createHmac('sha256', key);
  // Each field with its length, in the standard's order: no two different records give the same input.
  for (const k of AIGC_KEYS) {
    if (k === 'ReservedCode1') continue;
    const v = Buffer.from(fields[k], 'utf8');
    mac.update(`${k}:${v.length}:`).update(v);
  }
  return mac.digest('hex').slice(0, 32);
}

export function sealRecord(key: Buffer, fields: Omit<UnsealedRecord, 'Label'>): AigcRecord {
  const unsealed: UnsealedRecord = { Label: AIGC_LABEL_GENERATED, ...fields };
  return { ...unsealed, ReservedCode1: integrityCode(key, unsealed) };
}

/** Whether this server wrote the record as it is (its integrity code checks out). */
export function checkRecord(key: Buffer, record: AigcRecord): boolean {
  const expected = Buffer.from(integrityCode(key, record), 'utf8');
  const given = Buffer.from(record.ReservedCode1, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The record as an HTTP header value (pcm and G.711 have no container): its JSON with every character outside
 * printable ASCII written as a JSON \\u escape, so it is still the same JSON and a valid header.
 */
export function aigcHeader(record: AigcRecord): string {
  return aigcJson(record).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The SHA-256 of a file's sound (its container's payload), fed whole or chunk by chunk as a stream leaves. */
export class AudioDigest {
  private readonly payload: AudioPayload;
  private readonly hash = createHash('sha256');

  constructor(container: LabelledContainer) {
    this.payload = new AudioPayload(container);
  }

  update(chunk: Uint8Array): this {
    for (const part of this.payload.push(chunk)) this.hash.update(part);
    return this;
  }

  digest(): string {
    for (const part of this.payload.end()) this.hash.update(part);
    return this.hash.digest('hex');
  }
}

export function audioDigest(bytes: Uint8Array, container: LabelledContainer): string {
  return new AudioDigest(container).update(bytes).digest();
}
