/**
 * G.711 companding of 16-bit little-endian PCM (ITU-T G.711, as ElevenLabs' `ulaw_8000` and `alaw_8000` are sent:
 * one byte per sample, no header). Chunks may split a sample; the odd byte waits for the next.
 */
import { Int16Chunks } from './pcm.ts';

const BIAS = 0x84;
const CLIP = 32635;

/** μ-law: 14-bit magnitude with a bias of 132, sign, 3-bit segment and 4-bit step, all bits inverted. */
export function linearToUlaw(sample: number): number {
  let s = Math.max(-32768, Math.min(32767, Math.trunc(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  if (s > CLIP) s = CLIP;
  s += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** A-law (A = 87.6): sign, 3-bit segment and 4-bit step, even bits inverted (XOR 0x55). */
export function linearToAlaw(sample: number): number {
  let s = Math.max(-32768, Math.min(32767, Math.trunc(sample)));
  const sign = s >= 0 ? 0x80 : 0;
  if (s < 0) s = -s - 1;
  s >>= 3; // 13-bit magnitude
  let out: number;
  if (s < 32) {
    out = s >> 1;
  } else {
    let exponent = 1;
    for (let v = s >> 5; v > 1 && exponent < 7; v >>= 1) exponent++;
    out = (exponent << 4) | ((s >> exponent) & 0x0f);
  }
  return (sign | out) ^ 0x55;
}

export type G711Law = 'ulaw' | 'alaw';

/** Compands a stream of 16-bit little-endian PCM chunk by chunk. */
export class G711Encoder {
  private readonly chunks = new Int16Chunks();
  constructor(private readonly law: G711Law) {}

  write(chunk: Uint8Array): Uint8Array<ArrayBuffer> {
    const input = this.chunks.take(chunk);
    const samples = input.length >> 1;
    const out = new Uint8Array(samples);
    const encode = this.law === 'ulaw' ? linearToUlaw : linearToAlaw;
    for (let i = 0; i < samples; i++) out[i] = encode(((input[i * 2 + 1]! << 24) >> 16) | input[i * 2]!);
    return out;
  }
}
