/**
 * A snapshot's audio (a chapter or the book) as mp3 or WAV, with the watermark in its sound and its AIGC field in the
 * file. A file up to SIGNED_EXPORT_BYTES is made whole before it is sent, and then labelled and signed as every whole
 * Polyvox file is (its C2PA manifest). A larger one is labelled on its way out as every Polyvox stream is: its record
 * written and its AIGC field in its first bytes (an ID3 tag, the WAV's INFO chunk), and the hash of its sound stored
 * once it all left. A WAV's header gives its real sizes: the length is known from the manifest before the first sample.
 */
import { BITRATES } from '@polyvox/speech';
import { wavHeader } from '@polyvox/speech/formats';
import type { ContentOrigin, Provenance } from '../../provenance/service.js';
import type { Storage } from '../../platform/storage.js';
import type { SpeechHost } from '../../speech/speech-host.js';
import type { SnapshotManifest } from '../snapshot.js';
import { snapshotPcm, throughEncoder, type ExportMark } from './pcm.js';
import { EXPORT_RATE, type Timeline } from './timeline.js';

export type ExportAudioFormat = 'mp3' | 'wav';
export const AUDIO_TYPES = { mp3: 'audio/mpeg', wav: 'audio/wav' } as const;

/** What the provenance record of an export names: who asked, the project's first voice, the export's format. */
export function exportOrigin(
  manifest: SnapshotManifest,
  ids: { accountId: string; apiKeyId?: string | null; requestId: string },
  format: string,
  mark: ExportMark,
): ContentOrigin {
  const first = manifest.chapters.flatMap((c) => c.paragraphs)[0];
  return {
    accountId: ids.accountId,
    apiKeyId: ids.apiKeyId ?? null,
    requestId: ids.requestId,
    recordType: 'studio-export',
    voiceId: first?.voice_id ?? '',
    voiceKind: 'library',
    engine: 'studio',
    format,
    payload: mark.payload,
  };
}

/**
 * The PCM marked and encoded in `format` as it comes, on the speech package's encoder thread (a book's mp3 is minutes
 * of LAME and of the watermark's embedder, which must not hold the event loop; a WAV is the marked PCM behind its
 * header); true once it all was.
 */
export async function* encodePcm(
  speech: SpeechHost,
  pcm: AsyncGenerator<Buffer, boolean>,
  format: ExportAudioFormat,
  totalSamples: number,
  mark: ExportMark,
): AsyncGenerator<Buffer, boolean> {
  try {
    if (format === 'wav') yield Buffer.from(wavHeader(EXPORT_RATE, totalSamples * 2));
    const encoder = (await speech.get()).openPcmEncoder(format === 'wav' ? 'pcm' : 'mp3', EXPORT_RATE, false, mark);
    return yield* throughEncoder(encoder, pcm);
  } finally {
    await pcm.return(false);
  }
}

/**
 * The largest export made whole and signed: an mp3 of about 70 minutes and a WAV of about 11 minutes (24 kHz). Signing
 * holds the file in memory (c2pa-rs hashes and signs it whole: about eleven times its size at the peak, one file at a
 * time), and the download starts once it is all made.
 */
export const SIGNED_EXPORT_BYTES = 32 * 1024 * 1024;

/** An export's size from its samples: exact for a WAV (its header included), the constant bitrate's for an mp3. */
export function exportBytes(format: ExportAudioFormat, totalSamples: number): number {
  return format === 'wav' ? 44 + totalSamples * 2 : Math.ceil((totalSamples / EXPORT_RATE) * (BITRATES.mp3 / 8));
}

/** The chunks gathered into one file, yielded once they all came; nothing when they stopped before their end. */
export async function* gathered(chunks: AsyncGenerator<Buffer, boolean>): AsyncGenerator<Buffer, boolean> {
  const parts: Buffer[] = [];
  try {
    let next = await chunks.next();
    while (!next.done) {
      parts.push(next.value);
      next = await chunks.next();
    }
    if (next.value !== true) return false;
    const file = Buffer.concat(parts);
    // Only the file is held while it is labelled, signed and sent.
    parts.length = 0;
    yield file;
    return true;
  } finally {
    parts.length = 0;
    await chunks.return(false);
  }
}

/** A chapter's or the book's audio, encoded and labelled (signed too, up to SIGNED_EXPORT_BYTES): its chunks. */
export function exportAudio(
  deps: { storage: Storage; provenance: Provenance; speech: SpeechHost },
  placed: Timeline,
  format: ExportAudioFormat,
  origin: ContentOrigin,
  signal: AbortSignal,
): AsyncGenerator<Buffer, boolean> {
  const mark = { key: deps.provenance.watermarkKey, payload: origin.payload! };
  const chunks = encodePcm(deps.speech, snapshotPcm(deps.storage, placed.paragraphs, signal), format, placed.total, mark);
  const whole = exportBytes(format, placed.total) <= SIGNED_EXPORT_BYTES;
  return deps.provenance.labelStream(whole ? gathered(chunks) : chunks, AUDIO_TYPES[format], origin, { whole }).chunks;
}
