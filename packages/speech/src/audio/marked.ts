/**
 * The watermark on the way into an encoder: every sample the platform encodes passes the embedder first, so a file,
 * a stream and a one-sentence file encoded as its engine runs all carry the same mark. The embedder holds back up to
 * a slot of samples (it marks whole slots), so `end()` writes what it held before the encoder flushes.
 */
import { embedWatermark, WatermarkEmbedder } from '../watermark/index.ts';
import type { Encoder } from './encoders.ts';

/** The server's watermark key and the payload of this piece of content. */
export interface Mark {
  key: Uint8Array;
  payload: number;
}

export interface MarkedEncoder {
  write(samples: Float32Array): Promise<Uint8Array[]>;
  end(): Promise<Uint8Array[]>;
  free(): void;
}

export function markedEncoder(inner: Encoder, sampleRate: number, mark: Mark | undefined): MarkedEncoder {
  const embedder = mark ? new WatermarkEmbedder({ key: mark.key, payload: mark.payload, sampleRate }) : null;
  return {
    async write(samples) {
      const out = embedder ? embedder.push(samples) : samples;
      return out.length > 0 || !embedder ? await inner.write(out) : [];
    },
    async end() {
      const rest = embedder?.end();
      const tail = rest && rest.length > 0 ? await inner.write(rest) : [];
      return [...tail, ...inner.end()];
    },
    free: () => inner.free(),
  };
}

let markedHere = 0;

/** Samples `markSamples` has marked in this thread (the server's event loop should mark none: it is milliseconds of CPU). */
export const samplesMarkedHere = (): number => markedHere;

/** A whole buffer marked (the samples a whole-file encode is made of). */
export function markSamples(samples: Float32Array, sampleRate: number, mark: Mark | undefined): Float32Array {
  if (!mark) return samples;
  markedHere += samples.length;
  return embedWatermark(samples, sampleRate, mark);
}
