/**
 * One export of a snapshot (a chapter or the book) in one of its forms: audio (mp3, WAV), an audiobook (M4B), subtitles
 * (SRT, WebVTT) or a zip of chapters. Everything is made as it is read, one paragraph's audio in memory at a time.
 * Downloads are free: the conversion paid for the audio.
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { SubtitleFormat } from '@polyvox/speech';
import { AppError } from '../../platform/errors.js';
import type { SpeechHost } from '../../speech/speech-host.js';
import type { Storage } from '../../platform/storage.js';
import type { ContentOrigin, Provenance } from '../../provenance/service.js';
import type { SnapshotManifest } from '../snapshot.js';
import { AUDIO_TYPES, exportAudio, exportOrigin, type ExportAudioFormat } from './audio.js';
import { exportM4b } from './m4b.js';
import { chunksOf, type ExportAnswer } from './send.js';
import { exportSubtitles } from './subtitles.js';
import { chaptersOf, timeline, type Timeline } from './timeline.js';
import { exportZip, fileName } from './zip.js';

export const EXPORT_FORMATS = ['mp3', 'wav', 'm4b', 'srt', 'vtt', 'zip'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportDeps {
  storage: Storage;
  provenance: Provenance;
  /** The engines' host: its encoder thread encodes the mp3 (never the event loop). */
  speech: SpeechHost;
}

export interface ExportRequest {
  format: ExportFormat;
  chapterId?: string;
  /** A zip also holds the book as M4B. */
  withM4b?: boolean;
  ids: { accountId: string; apiKeyId?: string | null; requestId: string };
}

export interface Export extends ExportAnswer {
  chunks: AsyncGenerator<Buffer, boolean>;
}

/** Paragraphs whose audio the storage does not have: the snapshot cannot be exported (404, as a missing object). */
export async function checkStored(storage: Storage, placed: Timeline): Promise<void> {
  const keys = [...new Set(placed.paragraphs.map((p) => p.paragraph.audio_key))];
  for (let i = 0; i < keys.length; i += 32) {
    const found = await Promise.all(keys.slice(i, i + 32).map((k) => storage.exists(k)));
    if (found.includes(false)) throw new AppError('NOT_FOUND');
  }
  if (placed.total === 0) throw new AppError('VALIDATION_FAILED', { field: 'project_snapshot_id', rule: 'has no audio' });
}

async function* once(text: string): AsyncGenerator<Buffer, boolean> {
  yield Buffer.from(text);
  return true;
}

const randomPayload = (): number => randomBytes(4).readUInt32BE(0);

const SUBTITLE_TYPES = { srt: 'application/x-subrip; charset=utf-8', vtt: 'text/vtt; charset=utf-8' } as const;

/** The export asked for, ready to be read (nothing is made before its first chunk is asked for). */
export async function makeExport(
  deps: ExportDeps,
  manifest: SnapshotManifest,
  req: ExportRequest,
  signal: AbortSignal,
): Promise<Export> {
  const key = deps.provenance.watermarkKey;
  const chapters = chaptersOf(manifest, req.chapterId);
  const placed = timeline(chapters);
  const book = fileName(manifest.project.title ?? manifest.project.name, 'book');
  const name = req.chapterId !== undefined ? `${book} - ${fileName(chapters[0]!.title, 'chapter')}` : book;
  // Each file made gets its own record and watermark payload.
  const origin = (format: string): ContentOrigin => exportOrigin(manifest, req.ids, format, { key, payload: randomPayload() });
  const { format } = req;
  if (format === 'srt' || format === 'vtt') {
    const text = exportSubtitles(placed, format satisfies SubtitleFormat);
    return { chunks: once(text), contentType: SUBTITLE_TYPES[format], fileName: `${name}.${format}` };
  }
  await checkStored(deps.storage, placed);
  const m4b = async function* (p: Timeline): AsyncGenerator<Buffer, boolean> {
    const made = origin('m4b');
    const mark = await deps.provenance.mark(made);
    return yield* exportM4b(deps, manifest, p, mark.record, { key, payload: made.payload! }, signal);
  };
  if (format === 'm4b') return { chunks: m4b(placed), contentType: 'audio/mp4', fileName: `${name}.m4b` };
  if (format === 'zip') {
    const entries: Readable[] = [];
    const zip = exportZip(
      { ...manifest, chapters },
      {
        chapterAudio: (_chapter, p) => exportAudio(deps, p, 'mp3', origin('mp3'), signal),
        ...(req.withM4b ? { book: () => m4b(placed) } : {}),
      },
      entries,
    );
    // The zip and every entry's making stop together: at its end, on an error, or when the client leaves.
    const stop = () => {
      zip.destroy();
      for (const entry of entries) entry.destroy();
    };
    signal.addEventListener('abort', stop, { once: true });
    const chunks = async function* (): AsyncGenerator<Buffer, boolean> {
      try {
        return yield* chunksOf(zip);
      } finally {
        stop();
      }
    };
    return { chunks: chunks(), contentType: 'application/zip', fileName: `${name}.zip` };
  }
  const audio = format satisfies ExportAudioFormat;
  return {
    chunks: exportAudio(deps, placed, audio, origin(audio), signal),
    contentType: AUDIO_TYPES[audio],
    fileName: `${name}.${audio}`,
  };
}
