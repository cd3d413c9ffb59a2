/** 16-bit little-endian PCM and float samples: conversion both ways, joining, trimming. Plain typed arrays only. */

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

/** Whether this machine stores numbers little-endian, as WAV and raw PCM do (every platform Node and browsers run on today). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Writes `samples` as 16-bit little-endian PCM into `out` from byte `offset` (clipped, rounded to nearest). */
export function writeInt16(samples: Float32Array, out: Uint8Array, offset: number): void {
  if (LITTLE_ENDIAN && (out.byteOffset + offset) % 2 === 0) {
    // An Int16Array view writes each sample in one store, without a DataView's per-call checks.
    const view = new Int16Array(out.buffer, out.byteOffset + offset, samples.length);
    const n = samples.length;
    for (let i = 0; i < n; i++) {
      const x = samples[i]!;
      const v = x < 0 ? x * 32768 : x * 32767;
      // Math.round(v) for v in (-32768, 32767) as a shifted truncation, four times faster than the call. It can
      // differ only for a v within 2^-38 of a half (one step, far below hearing); NaN fails every comparison and
      // becomes 0, as the DataView path makes it.
      view[i] = v >= 32767 ? 32767 : v > -32768 ? ((v + 32768.5) | 0) - 32768 : v <= -32768 ? -32768 : 0;
    }
    return;
  }
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.max(-1, Math.min(1, samples[i]!));
    view.setInt16(offset + i * 2, Math.round(v < 0 ? v * 32768 : v * 32767) || 0, true);
  }
}

/** Float samples in [-1, 1] as 16-bit little-endian PCM (clipped, rounded to nearest). */
export function floatToInt16(samples: Float32Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(samples.length * 2);
  writeInt16(samples, out, 0);
  return out;
}

/** 16-bit little-endian PCM as float samples (x / 32768); an odd last byte is left out. */
export function int16ToFloat(bytes: Uint8Array): Float32Array {
  const n = Math.floor(bytes.length / 2);
  const out = new Float32Array(n);
  if (LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) {
    const view = new Int16Array(bytes.buffer, bytes.byteOffset, n);
    for (let i = 0; i < n; i++) out[i] = view[i]! / 32768;
    return out;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < n; i++) out[i] = view.getInt16(i * 2, true) / 32768;
  return out;
}

/**
 * 16-bit PCM that arrives in chunks of any length: `take` hands back the whole samples so far (an even number of
 * bytes), keeping a sample's first byte until its second comes.
 */
export class Int16Chunks {
  private odd: number | null = null;

  take(chunk: Uint8Array): Uint8Array {
    let bytes = chunk;
    if (this.odd !== null) {
      bytes = new Uint8Array(chunk.length + 1);
      bytes[0] = this.odd;
      bytes.set(chunk, 1);
      this.odd = null;
    }
    if (bytes.length % 2 === 1) {
      this.odd = bytes[bytes.length - 1]!;
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    return bytes;
  }
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
