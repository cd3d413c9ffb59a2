/**
 * A snapshot as a zip of its chapters: for each, its audio (mp3) and its subtitles (SRT), and the book as M4B when
 * asked, streamed (platform/zip.ts): each chapter's audio is made only when its entry's turn comes, so one chapter is
 * encoded at a time and the zip leaves as it is made.
 */
import { Readable } from 'node:stream';
import { zipStream, type ZipEntry } from '../../platform/zip.js';
import type { SnapshotManifest } from '../snapshot.js';
import { exportSubtitles } from './subtitles.js';
import { timeline, type SnapshotChapter, type Timeline } from './timeline.js';

/** A file name from a title: no path separators or characters some systems refuse, at most 80 characters. */
export function fileName(title: string, fallback: string): string {
  const clean = title
    .replace(/[\\/:*?"<>|\p{Cc}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80)
    .replace(/^\.+/, '');
  return clean === '' ? fallback : clean;
}

export interface ZipParts {
  /** A chapter's labelled mp3, made when read. */
  chapterAudio(chapter: SnapshotChapter, placed: Timeline): AsyncGenerator<Buffer, boolean>;
  /** The book's M4B, made when read; absent: no M4B in the zip. */
  book?: () => AsyncGenerator<Buffer, boolean>;
}

/** The entries' names, in the zip's order. */
export function zipEntries(manifest: SnapshotManifest, withBook: boolean): string[] {
  const names: string[] = [];
  manifest.chapters.forEach((c, i) => {
    const base = `${String(i + 1).padStart(2, '0')} ${fileName(c.title, `Chapter ${i + 1}`)}`;
    names.push(`${base}.mp3`, `${base}.srt`);
  });
  if (withBook) names.push(`${fileName(manifest.project.title ?? manifest.project.name, 'book')}.m4b`);
  return names;
}

/** The zip as a stream; `streams` collects every entry's stream so a caller can stop them all. */
export function exportZip(manifest: SnapshotManifest, parts: ZipParts, streams: Readable[] = []): Readable {
  const names = zipEntries(manifest, parts.book !== undefined);
  const date = new Date();
  const entries: ZipEntry[] = manifest.chapters.flatMap((chapter, i) => {
    const placed = timeline([chapter]);
    return [
      { name: names[i * 2]!, date, open: () => parts.chapterAudio(chapter, placed) },
      { name: names[i * 2 + 1]!, date, data: exportSubtitles(placed, 'srt') },
    ];
  });
  const book = parts.book;
  if (book) entries.push({ name: names.at(-1)!, date, open: () => book() });
  return zipStream(entries, streams);
}
