/**
 * A snapshot as a zip of its chapters: for each, its audio (mp3) and its subtitles (SRT), and the book as M4B when
 * asked. Streamed with JSZip (entries stored: mp3 and AAC do not compress): each chapter's audio is made only when its
 * entry's turn comes, so one chapter is encoded at a time and the zip leaves as it is made.
 */
import { Readable } from 'node:stream';
import JSZip from 'jszip';
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

/** A stream that starts `make` only when first read, and stops it when destroyed. */
function lazy(make: () => AsyncGenerator<Buffer, boolean>): Readable {
  let chunks: AsyncGenerator<Buffer, boolean> | null = null;
  return new Readable({
    async read() {
      try {
        chunks ??= make();
        const next = await chunks.next();
        if (next.done) {
          if (next.value) this.push(null);
          else this.destroy(new Error('an entry stopped before its end'));
        } else this.push(next.value);
      } catch (e) {
        this.destroy(e as Error);
      }
    },
    destroy(err, callback) {
      const open = chunks;
      chunks = null;
      if (!open) return callback(err);
      void open.return(false).then(
        () => callback(err),
        () => callback(err),
      );
    },
  });
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
  const zip = new JSZip();
  const names = zipEntries(manifest, parts.book !== undefined);
  const date = new Date();
  manifest.chapters.forEach((chapter, i) => {
    const placed = timeline([chapter]);
    const audio = lazy(() => parts.chapterAudio(chapter, placed));
    streams.push(audio);
    zip.file(names[i * 2]!, audio, { binary: true, date });
    zip.file(names[i * 2 + 1]!, exportSubtitles(placed, 'srt'), { date });
  });
  if (parts.book) {
    const book = lazy(parts.book);
    streams.push(book);
    zip.file(names.at(-1)!, book, { binary: true, date });
  }
  // JSZip's stream is of an older kind (no async iteration): wrapped in one of Node's own.
  return new Readable().wrap(zip.generateNodeStream({ type: 'nodebuffer', streamFiles: true, compression: 'STORE' }));
}
