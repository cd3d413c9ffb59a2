/**
 * A snapshot's audio as one stream of 16-bit mono PCM at the export's rate: each paragraph's stored WAV read in turn
 * (one paragraph in memory at a time), resampled if it was made at another rate, brought to the platform's loudness
 * (BS.1770, with the limiter every file passes; its edges kept, so the manifest's timings stay true), held to the
 * length the manifest gives it, then its pause of silence, in chunks of about a second. Each paragraph came with its
 * own watermark, each starting its keyed pattern at its own first sample; joined, no one alignment of the pattern holds
 * across them, so the export marks the joined sound once more (the server's key, the export's own payload), which
 * replaces the marks underneath: on the speech package's encoder thread (`Speech.openPcmEncoder` with a mark), never on
 * the event loop, as the thread encodes an mp3 or gives the marked PCM back for a WAV or ffmpeg.
 */
import { matchLoudness, SPEECH_LUFS, type PcmEncoder, type Speech } from '@polyvox/speech';
import { parseWavHeader } from '@polyvox/speech/formats';
import { AppError } from '../../platform/errors.js';
import { encodeChunks } from '../../speech/pcm-encoding.js';
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

/**
 * The PCM given to an encoder of the encoder thread that puts the export's watermark in it (an mp3's, or `pcm`: the
 * marked samples back), as it comes; true once it all was. Stops (and frees the encoder) when the PCM does.
 */
export async function* throughEncoder(
  encoder: PcmEncoder,
  pcm: AsyncGenerator<Buffer, boolean>,
): AsyncGenerator<Buffer, boolean> {
  try {
    return yield* encodeChunks(encoder, pcm);
  } finally {
    await pcm.return(false);
  }
}

/** The placed paragraphs' PCM with their pauses, watermarked for the export on the encoder thread. */
export function exportPcm(
  speech: Pick<Speech, 'openPcmEncoder'>,
  storage: Storage,
  paragraphs: readonly PlacedParagraph[],
  mark: ExportMark,
  signal: AbortSignal,
): AsyncGenerator<Buffer, boolean> {
  return throughEncoder(speech.openPcmEncoder('pcm', EXPORT_RATE, false, mark), snapshotPcm(storage, paragraphs, signal));
}
