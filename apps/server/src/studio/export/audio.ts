/**
 * A snapshot's audio (a chapter or the book) as mp3 or WAV, encoded as it is read and labelled on its way out as every
 * Polyvox stream is: its record written and its AIGC field in its first bytes (an ID3 tag, the WAV's INFO chunk), the
 * hash of its sound stored once it all left, the watermark in the sound. A WAV's header gives its real sizes: the
 * length is known from the manifest before the first sample.
 */
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

/** A chapter's or the book's audio, encoded and labelled: its chunks, and its `x-aigc` header (none: the bytes carry it). */
export function exportAudio(
  deps: { storage: Storage; provenance: Provenance; speech: SpeechHost },
  placed: Timeline,
  format: ExportAudioFormat,
  origin: ContentOrigin,
  signal: AbortSignal,
): AsyncGenerator<Buffer, boolean> {
  const mark = { key: deps.provenance.watermarkKey, payload: origin.payload! };
  const chunks = encodePcm(deps.speech, snapshotPcm(deps.storage, placed.paragraphs, signal), format, placed.total, mark);
  return deps.provenance.labelStream(chunks, AUDIO_TYPES[format], origin).chunks;
}
