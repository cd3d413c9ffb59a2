/**
 * G.711 companding of 16-bit little-endian PCM (ITU-T G.711, as ElevenLabs' `ulaw_8000` and `alaw_8000`
 * are sent: one byte per sample, no header). Chunks may split a sample; the odd byte waits for the next.
 */
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

export class G711Encoder {
  private odd: number | null = null;
  constructor(private readonly law: 'ulaw' | 'alaw') {}

  write(chunk: Buffer): Buffer {
    let input = chunk;
    if (this.odd !== null) {
      input = Buffer.concat([Buffer.from([this.odd]), chunk]);
      this.odd = null;
    }
    const samples = input.length >> 1;
    if (input.length % 2 === 1) this.odd = input[input.length - 1]!;
    const out = Buffer.allocUnsafe(samples);
    const encode = this.law === 'ulaw' ? linearToUlaw : linearToAlaw;
    for (let i = 0; i < samples; i++) out[i] = encode(input.readInt16LE(i * 2));
    return out;
  }
}

/** The 44-byte RIFF header of 16-bit mono PCM at `rate` holding `dataBytes` of samples. */
export function wavHeader(rate: number, dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}
