/**
 * A snapshot's audio as one stream of 16-bit mono PCM at the export's rate: each paragraph's stored WAV read in turn
 * (one paragraph in memory at a time), resampled if it was made at another rate, brought to the platform's loudness
 * (BS.1770, with the limiter every file passes; its edges kept, so the manifest's timings stay true), held to the
 * length the manifest gives it, then its pause of silence. Chunks of about a second, so an encoder on the event loop
 * never holds it long. Each paragraph came with its own watermark, each starting its keyed pattern at its own first
 * sample; joined, no one alignment of the pattern holds across them, so the export marks the joined sound once more
 * (the speech package's embedder, the server's key, the export's own payload), which replaces the marks underneath.
 */
import { matchLoudness, SPEECH_LUFS } from '@polyvox/speech';
import { floatToInt16, int16ToFloat, parseWavHeader } from '@polyvox/speech/formats';
import { WatermarkEmbedder } from '@polyvox/speech/watermark';
import { AppError } from '../../platform/errors.js';
import type { Storage } from '../../platform/storage.js';
import { PcmResampler } from '../../synthesis/output/pcm-stream.js';
import { EXPORT_RATE, type PlacedParagraph } from './timeline.js';

/** Bytes of PCM a chunk holds at most (one second). */
export const CHUNK_BYTES = EXPORT_RATE * 2;

/** A paragraph's samples as stored (16-bit mono WAV), at the export's rate and held to `samples`. */
export async function paragraphPcm(storage: Storage, placed: PlacedParagraph): Promise<Buffer> {
  const wav = await storage.get(placed.paragraph.audio_key);
  const info = wav ? parseWavHeader(wav) : null;
  // A snapshot whose audio is gone (or is not 16-bit mono WAV) cannot be exported: as a missing object.
  if (!wav || !info || info.channels !== 1 || info.bitsPerSample !== 16) throw new AppError('NOT_FOUND');
  let pcm = wav.subarray(info.dataOffset, info.dataOffset + ((wav.length - info.dataOffset) & ~1));
  if (info.sampleRate !== EXPORT_RATE) {
    const resampler = new PcmResampler(info.sampleRate, EXPORT_RATE);
    pcm = Buffer.concat([resampler.write(pcm), resampler.end()]);
  }
  // Padding of Infinity: nothing trimmed, only gained.
  const matched = pcm.length > 0 ? matchLoudness(pcm, EXPORT_RATE, SPEECH_LUFS, Infinity).pcm : pcm;
  const bytes = placed.samples * 2;
  if (matched.length === bytes) return matched;
  if (matched.length > bytes) return matched.subarray(0, bytes);
  return Buffer.concat([matched, Buffer.alloc(bytes - matched.length)]);
}

function* pieces(pcm: Buffer): Generator<Buffer> {
  for (let at = 0; at < pcm.length; at += CHUNK_BYTES) yield pcm.subarray(at, Math.min(pcm.length, at + CHUNK_BYTES));
}

/**
 * The placed paragraphs' PCM with their pauses, as it is read; returns true once all of it was given. The next
 * paragraph is read while the one before is handed on. Stops (with the signal's reason) when `signal` aborts.
 */
export async function* snapshotPcm(
  storage: Storage,
  paragraphs: readonly PlacedParagraph[],
  signal: AbortSignal,
): AsyncGenerator<Buffer, boolean> {
  const read = (i: number) => {
    const p = paragraphPcm(storage, paragraphs[i]!);
    p.catch(() => {});
    return p;
  };
  let next = paragraphs.length > 0 ? read(0) : null;
  for (let i = 0; i < paragraphs.length; i++) {
    const pcm = await next!;
    signal.throwIfAborted();
    next = i + 1 < paragraphs.length ? read(i + 1) : null;
    yield* pieces(pcm);
    let silence = paragraphs[i]!.pause * 2;
    while (silence > 0) {
      const n = Math.min(silence, CHUNK_BYTES);
      yield Buffer.alloc(n);
      silence -= n;
    }
  }
  return true;
}

/** The export's watermark: the server's key and the payload its record names. */
export interface ExportMark {
  key: Uint8Array;
  payload: number;
}

/** The PCM watermarked as it passes (the embedder gives back as many samples as it takes, a little later). */
export async function* markedPcm(pcm: AsyncGenerator<Buffer, boolean>, mark: ExportMark): AsyncGenerator<Buffer, boolean> {
  const embedder = new WatermarkEmbedder({ ...mark, sampleRate: EXPORT_RATE });
  const bytes = (x: Float32Array) => {
    const b = floatToInt16(x);
    return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  };
  try {
    for (;;) {
      const next = await pcm.next();
      if (next.done) {
        if (!next.value) return false;
        const rest = embedder.end();
        if (rest.length > 0) yield bytes(rest);
        return true;
      }
      const out = embedder.push(int16ToFloat(next.value));
      if (out.length > 0) yield bytes(out);
    }
  } finally {
    await pcm.return(false);
  }
}

/** The placed paragraphs' PCM with their pauses, watermarked for the export. */
export function exportPcm(
  storage: Storage,
  paragraphs: readonly PlacedParagraph[],
  mark: ExportMark,
  signal: AbortSignal,
): AsyncGenerator<Buffer, boolean> {
  return markedPcm(snapshotPcm(storage, paragraphs, signal), mark);
}
