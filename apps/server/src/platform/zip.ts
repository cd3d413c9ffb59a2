/**
 * A zip made while it is sent (JSZip; entries stored, as audio does not compress): each entry's bytes are read only
 * when its turn comes, so no entry is held whole, and a zip stopped early stops the entry being read. Used by the
 * history's downloads and the Studio's export.
 */
import { Readable } from 'node:stream';
import JSZip from 'jszip';

export type ZipEntry = { name: string; date: Date } & (
  | {
      /**
       * Its bytes, opened once when its turn comes. A generator that returns `false` stopped before its end: the zip
       * fails rather than hold a cut file.
       */
      open(): AsyncIterable<Buffer> | Promise<AsyncIterable<Buffer>>;
    }
  | { data: string | Buffer }
);

/** A stream that opens its entry only when first read, and closes it when destroyed. */
function lazy(open: () => AsyncIterable<Buffer> | Promise<AsyncIterable<Buffer>>): Readable {
  let chunks: AsyncIterator<Buffer, unknown> | null = null;
  return new Readable({
    async read() {
      try {
        chunks ??= (await open())[Symbol.asyncIterator]();
        const next = await chunks.next();
        if (!next.done) this.push(next.value);
        else if (next.value === false) this.destroy(new Error('an entry stopped before its end'));
        else this.push(null);
      } catch (e) {
        this.destroy(e as Error);
      }
    },
    destroy(err, callback) {
      const opened = chunks;
      chunks = null;
      if (!opened?.return) return callback(err);
      void opened.return(false).then(
        () => callback(err),
        () => callback(err),
      );
    },
  });
}

/** The zip as a stream; `streams` collects every entry's stream so a caller can stop them all. */
export function zipStream(entries: readonly ZipEntry[], streams: Readable[] = []): Readable {
  const zip = new JSZip();
  for (const entry of entries) {
    if ('data' in entry) {
      zip.file(entry.name, entry.data, { binary: typeof entry.data !== 'string', date: entry.date });
      continue;
    }
    const stream = lazy(() => entry.open());
    streams.push(stream);
    zip.file(entry.name, stream, { binary: true, date: entry.date });
  }
  // JSZip's stream is of an older kind (no async iteration): wrapped in one of Node's own.
  return new Readable().wrap(zip.generateNodeStream({ type: 'nodebuffer', streamFiles: true, compression: 'STORE' }));
}
