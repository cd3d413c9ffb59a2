/** Small PCM helpers: concatenation, conversion, WAV container. */

export function concatFloat32(parts: Float32Array[]): Float32Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Float32Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function floatToInt16(samples: Float32Array): Buffer {
  const buf = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.max(-1, Math.min(1, samples[i]!));
    buf.writeInt16LE(Math.round(v < 0 ? v * 32768 : v * 32767), i * 2);
  }
  return buf;
}

export function int16ToFloat(buf: Buffer): Float32Array {
  const n = Math.floor(buf.length / 2);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = buf.readInt16LE(i * 2) / 32768;
  return out;
}

/** A 16-bit mono WAV header; `dataBytes` 0xffffffff marks a stream of unknown length. */
export function wavHeader(sampleRate: number, dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  const streaming = dataBytes >= 0xffffffff - 36;
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(streaming ? 0xffffffff : 36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(streaming ? 0xffffffff : dataBytes, 40);
  return h;
}

export function encodeWav(samples: Float32Array, sampleRate: number): Buffer {
  const data = floatToInt16(samples);
  return Buffer.concat([wavHeader(sampleRate, data.length), data]);
}

/** Reads a PCM WAV (16-bit int or 32-bit float, any channel count: the first channel). */
export function decodeWav(buf: Buffer): { samples: Float32Array; sampleRate: number } {
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  let off = 12;
  let fmt: { format: number; channels: number; rate: number; bits: number } | undefined;
  while (off + 8 <= buf.length) {
    const id = buf.toString('ascii', off, off + 4);
    let size = buf.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === 'fmt ') {
      fmt = {
        format: buf.readUInt16LE(body),
        channels: buf.readUInt16LE(body + 2),
        rate: buf.readUInt32LE(body + 4),
        bits: buf.readUInt16LE(body + 14),
      };
    } else if (id === 'data' && fmt) {
      if (size === 0xffffffff || body + size > buf.length) size = buf.length - body;
      const frameBytes = (fmt.bits / 8) * fmt.channels;
      const n = Math.floor(size / frameBytes);
      const out = new Float32Array(n);
      const float = fmt.format === 3 || (fmt.format === 0xfffe && fmt.bits === 32);
      for (let i = 0; i < n; i++) {
        const p = body + i * frameBytes;
        out[i] = float
          ? buf.readFloatLE(p)
          : fmt.bits === 16
            ? buf.readInt16LE(p) / 32768
            : fmt.bits === 8
              ? (buf[p]! - 128) / 128
              : buf.readInt32LE(p) / 2147483648;
      }
      return { samples: out, sampleRate: fmt.rate };
    }
    off = body + size + (size & 1);
  }
  throw new Error('WAV file without a data chunk');
}

export function durationOf(samples: Float32Array, sampleRate: number): number {
  return samples.length / sampleRate;
}

/** Trims leading and trailing silence below `thresholdDb` of full scale, keeping `padSec`. */
export function trimSilence(samples: Float32Array, sampleRate: number, thresholdDb = -45, padSec = 0.05): Float32Array {
  const thr = Math.pow(10, thresholdDb / 20);
  let a = 0;
  while (a < samples.length && Math.abs(samples[a]!) < thr) a++;
  let b = samples.length - 1;
  while (b > a && Math.abs(samples[b]!) < thr) b--;
  const pad = Math.round(padSec * sampleRate);
  return samples.subarray(Math.max(0, a - pad), Math.min(samples.length, b + 1 + pad));
}
