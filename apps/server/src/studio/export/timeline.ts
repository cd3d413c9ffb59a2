/**
 * Where everything of a snapshot sits in an export: each paragraph's audio (as long as the manifest says, in samples
 * at the export's rate) followed by its pause, chapter after chapter. Chapter marks, subtitles and the audio itself
 * are all placed from these numbers, so they agree to the sample.
 */
import { AppError } from '../../platform/errors.js';
import type { SnapshotManifest } from '../snapshot.js';

/** The rate every export is joined at: the platform's PCM (16-bit mono). */
export const EXPORT_RATE = 24_000;

export type SnapshotChapter = SnapshotManifest['chapters'][number];
export type SnapshotParagraph = SnapshotChapter['paragraphs'][number];

/** One paragraph placed: where its audio starts and how long it and the pause after it last (samples). */
export interface PlacedParagraph {
  chapter: number;
  paragraph: SnapshotParagraph;
  start: number;
  samples: number;
  pause: number;
}

export interface PlacedChapter {
  id: string;
  title: string;
  /** First sample and one past the last (its last pause included). */
  start: number;
  end: number;
}

export interface Timeline {
  chapters: PlacedChapter[];
  paragraphs: PlacedParagraph[];
  /** Samples in all. */
  total: number;
}

const samplesOf = (ms: number): number => Math.max(0, Math.round((ms * EXPORT_RATE) / 1000));

/** The chapters to export: all of them, or the one asked for (another id: 404, as a missing object). */
export function chaptersOf(manifest: SnapshotManifest, chapterId?: string): SnapshotChapter[] {
  if (chapterId === undefined) return manifest.chapters;
  const chapter = manifest.chapters.find((c) => c.id === chapterId);
  if (!chapter) throw new AppError('NOT_FOUND');
  return [chapter];
}

/** The chapters' paragraphs one after another, each followed by its pause. */
export function timeline(chapters: readonly SnapshotChapter[]): Timeline {
  const placedChapters: PlacedChapter[] = [];
  const paragraphs: PlacedParagraph[] = [];
  let at = 0;
  chapters.forEach((chapter, index) => {
    const start = at;
    for (const paragraph of chapter.paragraphs) {
      const samples = samplesOf(paragraph.audio_ms);
      const pause = samplesOf(paragraph.pause_after_ms);
      paragraphs.push({ chapter: index, paragraph, start: at, samples, pause });
      at += samples + pause;
    }
    placedChapters.push({ id: chapter.id, title: chapter.title, start, end: at });
  });
  return { chapters: placedChapters, paragraphs, total: at };
}

/** Seconds of `samples` at the export's rate. */
export const seconds = (samples: number): number => samples / EXPORT_RATE;
