/**
 * The WAV container of 16-bit PCM: its 44-byte header, whole files from float samples, reading a file's samples
 * (16-bit, 8-bit, 32-bit int or float, any channel count), and reading or fixing the sizes of a streamed one.
 * A streamed WAV is sent before its length is known, so its RIFF and data sizes are the largest there are.
 */
import { writeInt16 } from './pcm.ts';

const MAX_U32 = 0xffffffff;

function writeAscii(out: Uint8Array, at: number, text: string): void {
  for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

/**
 * The 44-byte header of 16-bit PCM at `sampleRate` holding `dataBytes` of samples. The RIFF size is 36 more, and
 * both stop at 0xFFFFFFFF: `dataBytes` 0xFFFFFFFF marks a stream of unknown length.
 */
export function wavHeader(sampleRate: number, dataBytes: number, channels = 1): Uint8Array<ArrayBuffer> {
  const h = new Uint8Array(44);
  const v = new DataView(h.buffer);
  writeAscii(h, 0, 'RIFF');
  v.setUint32(4, Math.min(MAX_U32, 36 + dataBytes), true);
  writeAscii(h, 8, 'WAVE');
  writeAscii(h, 12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, channels, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * channels * 2, true);
  v.setUint16(32, channels * 2, true);
  v.setUint16(34, 16, true);
  writeAscii(h, 36, 'data');
  v.setUint32(40, Math.min(MAX_U32, dataBytes), true);
  return h;
}

/** 16-bit PCM bytes in a WAV container. */
export function pcmToWav(pcm: Uint8Array, sampleRate: number, channels = 1): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(44 + pcm.length);
  out.set(wavHeader(sampleRate, pcm.length, channels), 0);
  out.set(pcm, 44);
  return out;
}

/**
 * 16-bit PCM, or a WAV file of it, straight from the pieces of a file (header and samples in one allocation, no
 * joined copy of the samples first). Equal to `floatToInt16(concatFloat32(parts))` and `encodeWav(concatFloat32(parts), rate)`.
 */
export function int16FromParts(parts: Float32Array[], sampleRate: number, wav: boolean): Uint8Array<ArrayBuffer> {
  const samples = parts.reduce((n, p) => n + p.length, 0);
  const head = wav ? 44 : 0;
  const out = new Uint8Array(head + samples * 2);
  if (wav) out.set(wavHeader(sampleRate, samples * 2), 0);
  let offset = head;
  for (const p of parts) {
    writeInt16(p, out, offset);
    offset += p.length * 2;
  }
  return out;
}

/** Mono float samples in [-1, 1] as a 16-bit WAV file (clipped, rounded to nearest). */
export function encodeWav(samples: Float32Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  return int16FromParts([samples], sampleRate, true);
}

/** Reads a PCM WAV (16-bit int or 32-bit float, any channel count: the first channel). */
export function decodeWav(bytes: Uint8Array): { samples: Float32Array; sampleRate: number } {
  if (bytes.length < 12 || ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WAVE') throw new Error('not a WAV file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let off = 12;
  let fmt: { format: number; channels: number; rate: number; bits: number } | undefined;
  while (off + 8 <= bytes.length) {
    const id = ascii(bytes, off, 4);
    let size = view.getUint32(off + 4, true);
    const body = off + 8;
    if (id === 'fmt ') {
      fmt = {
        format: view.getUint16(body, true),
        channels: view.getUint16(body + 2, true),
        rate: view.getUint32(body + 4, true),
        bits: view.getUint16(body + 14, true),
      };
    } else if (id === 'data' && fmt) {
      if (size === MAX_U32 || body + size > bytes.length) size = bytes.length - body;
      const frameBytes = (fmt.bits / 8) * fmt.channels;
      const n = Math.floor(size / frameBytes);
      const out = new Float32Array(n);
      const float = fmt.format === 3 || (fmt.format === 0xfffe && fmt.bits === 32);
      for (let i = 0; i < n; i++) {
        const p = body + i * frameBytes;
        out[i] = float
          ? view.getFloat32(p, true)
          : fmt.bits === 16
            ? view.getInt16(p, true) / 32768
            : fmt.bits === 8
              ? (bytes[p]! - 128) / 128
              : view.getInt32(p, true) / 2147483648;
      }
      return { samples: out, sampleRate: fmt.rate };
    }
    off = body + size + (size & 1);
  }
  throw new Error('WAV file without a data chunk');
}

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  byteRate: number;
  /** Where the samples start. */
  dataOffset: number;
  /** Offset of the data chunk's size field. */
  dataSizeOffset: number;
}

/** The format of a WAV file's first bytes, up to its data chunk; null when they are not (yet) one. */
export function parseWavHeader(bytes: Uint8Array): WavInfo | null {
  if (bytes.length < 12 || ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WAVE') return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 12;
  let fmt: Omit<WavInfo, 'dataOffset' | 'dataSizeOffset'> | null = null;
  while (at + 8 <= bytes.length) {
    const id = ascii(bytes, at, 4);
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ' && at + 24 <= bytes.length) {
      fmt = {
        channels: view.getUint16(at + 10, true),
        sampleRate: view.getUint32(at + 12, true),
        byteRate: view.getUint32(at + 16, true),
        bitsPerSample: view.getUint16(at + 22, true),
      };
    }
    if (id === 'data') return fmt ? { ...fmt, dataOffset: at + 8, dataSizeOffset: at + 4 } : null;
    at += 8 + size + (size % 2);
  }
  return null;
}

/** A copy of a complete WAV whose RIFF and data sizes match its length (a streamed one's were the largest). */
export function fixWavSizes<T extends Uint8Array>(bytes: T): T | Uint8Array<ArrayBuffer> {
  const info = parseWavHeader(bytes);
  if (!info) return bytes;
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  view.setUint32(4, out.length - 8, true);
  view.setUint32(info.dataSizeOffset, out.length - info.dataOffset, true);
  return out;
}
