/**
 * WAV helpers. A streamed WAV is sent before its length is known, so its RIFF and data sizes are
 * 0xFFFFFFFF; the collected file gets its real sizes back. Raw PCM gets a header to be playable.
 */
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

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

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

/** A copy of a complete WAV whose RIFF and data sizes match its length. */
export function fixWavSizes(bytes: Uint8Array): Uint8Array {
  const info = parseWavHeader(bytes);
  if (!info) return bytes;
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  view.setUint32(4, out.length - 8, true);
  view.setUint32(info.dataSizeOffset, out.length - info.dataOffset, true);
  return out;
}

/** 16-bit mono PCM in a WAV container. */
export function pcmToWav(pcm: Uint8Array, sampleRate: number, channels = 1): Uint8Array {
  const out = new Uint8Array(44 + pcm.length);
  const view = new DataView(out.buffer);
  const write = (at: number, text: string) => [...text].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  write(0, 'RIFF');
  view.setUint32(4, 36 + pcm.length, true);
  write(8, 'WAVE');
  write(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * 2, true);
  view.setUint16(32, channels * 2, true);
  view.setUint16(34, 16, true);
  write(36, 'data');
  view.setUint32(40, pcm.length, true);
  out.set(pcm, 44);
  return out;
}
