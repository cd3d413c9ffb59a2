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

/** Whether this machine stores numbers little-endian, as WAV and raw PCM do (every platform Node runs on today). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Writes `samples` as 16-bit little-endian PCM into `out` from byte `offset` (clipped, rounded to nearest). */
function writeInt16(samples: Float32Array, out: Buffer, offset: number): void {
  if (LITTLE_ENDIAN && (out.byteOffset + offset) % 2 === 0) {
    // An Int16Array view writes each sample in one store, without Buffer's per-call checks.
    const view = new Int16Array(out.buffer, out.byteOffset + offset, samples.length);
    const n = samples.length;
    for (let i = 0; i < n; i++) {
      const x = samples[i]!;
      const v = x < 0 ? x * 32768 : x * 32767;
      // Math.round(v) for v in (-32768, 32767) as a shifted truncation, four times faster than the call. It can
      // differ only for a v within 2^-38 of a half (one step, far below hearing); NaN fails every comparison and
      // becomes 0, as writeInt16LE makes it.
      view[i] = v >= 32767 ? 32767 : v > -32768 ? ((v + 32768.5) | 0) - 32768 : v <= -32768 ? -32768 : 0;
    }
    return;
  }
  for (let i = 0; i < samples.length; i++) {
    const v = Math.max(-1, Math.min(1, samples[i]!));
    out.writeInt16LE(Math.round(v < 0 ? v * 32768 : v * 32767), offset + i * 2);
  }
}

export function floatToInt16(samples: Float32Array): Buffer {
  return int16FromParts([samples], 0, false);
}

export function int16ToFloat(buf: Buffer): Float32Array {
  const n = Math.floor(buf.length / 2);
  const out = new Float32Array(n);
  if (LITTLE_ENDIAN && buf.byteOffset % 2 === 0) {
    const view = new Int16Array(buf.buffer, buf.byteOffset, n);
    for (let i = 0; i < n; i++) out[i] = view[i]! / 32768;
    return out;
  }
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
  return int16FromParts([samples], sampleRate, true);
}

/**
 * 16-bit PCM, or a WAV file of it, straight from the pieces of a file (header and samples in one allocation, no
 * joined copy of the samples first). Equal to `floatToInt16(concatFloat32(parts))` and `encodeWav(concatFloat32(parts), rate)`.
 */
export function int16FromParts(parts: Float32Array[], sampleRate: number, wav: boolean): Buffer {
  const samples = parts.reduce((n, p) => n + p.length, 0);
  const head = wav ? 44 : 0;
  const out = Buffer.allocUnsafeSlow(head + samples * 2);
  if (wav) wavHeader(sampleRate, samples * 2).copy(out, 0);
  let offset = head;
  for (const p of parts) {
    writeInt16(p, out, offset);
    offset += p.length * 2;
  }
  return out;
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
