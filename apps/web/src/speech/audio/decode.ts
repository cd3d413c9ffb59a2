import { computePeaks } from './peaks';

let context: BaseAudioContext | null = null;

/** One context for decoding only: it never plays, so it needs no user gesture. */
function decoder(): BaseAudioContext | null {
  if (context) return context;
  const Offline = (globalThis as { OfflineAudioContext?: typeof OfflineAudioContext }).OfflineAudioContext;
  if (!Offline) return null;
  context = new Offline(1, 1, 24_000);
  return context;
}

export interface Decoded {
  peaks: Float32Array;
  duration: number;
}

/**
 * Decodes what has arrived so far (a partial MP3 decodes up to its last whole frame) into the
 * waveform's peaks. Null when the browser cannot decode these bytes (yet).
 */
export async function decodePeaks(bytes: Uint8Array): Promise<Decoded | null> {
  const ctx = decoder();
  if (!ctx || bytes.length === 0) return null;
  try {
    const copy = bytes.slice().buffer; // decodeAudioData detaches its input
    const buffer = await ctx.decodeAudioData(copy);
    if (!(buffer.duration > 0)) return null;
    const channels = Array.from({ length: buffer.numberOfChannels }, (_, i) => buffer.getChannelData(i));
    return { peaks: computePeaks(channels), duration: buffer.duration };
  } catch {
    return null;
  }
}
