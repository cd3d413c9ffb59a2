import yauzl from 'yauzl';
import { STUDIO_LIMITS } from '@polyvox/contracts';
import { isAppError } from '../../platform/errors.js';
import { refuse } from '../document.js';

export interface ZipLimits {
  unzippedMaxBytes: number;
  zipMaxEntries: number;
}

/** An archive's entries, read one at a time on demand (an entry never asked for is never inflated). */
export interface ZipReader {
  names: string[];
  has(name: string): boolean;
  /** The entry's bytes; null when the archive has no such entry. */
  read(name: string): Promise<Buffer | null>;
  close(): void;
}

/**
 * Opens a zip archive (EPUB, DOCX) read from memory with yauzl, guarded against zip bombs: at most `zipMaxEntries`
 * entries; an entry is inflated only when asked for and only if its declared size fits what is left of
 * `unzippedMaxBytes` (all entries read together), and yauzl stops an entry whose data inflates past its declared size.
 * Anything that is not a well-formed archive is refused naming `field` (400 VALIDATION_FAILED).
 */
export async function openZip(
  buffer: Buffer,
  field: string,
  what: string,
  limits: ZipLimits = STUDIO_LIMITS,
): Promise<ZipReader> {
  const malformed = (e?: unknown) => refuse(field, `not a valid ${what} file`, e);
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false });
  } catch (e) {
    throw malformed(e);
  }
  if (zip.entryCount > limits.zipMaxEntries) {
    zip.close();
    throw refuse(field, `at most ${limits.zipMaxEntries} files in the archive`);
  }
  const entries = new Map<string, yauzl.Entry>();
  try {
    for await (const entry of zip.eachEntry()) {
      if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
    }
  } catch (e) {
    zip.close();
    throw malformed(e);
  }
  let left = limits.unzippedMaxBytes;
  const tooLarge = () => refuse(field, `the archive expands past ${limits.unzippedMaxBytes / 1_000_000} MB`);
  return {
    names: [...entries.keys()],
    has: (name) => entries.has(name),
    async read(name) {
      const entry = entries.get(name);
      if (!entry) return null;
      if (entry.uncompressedSize > left) throw tooLarge();
      left -= entry.uncompressedSize;
      try {
        const stream = await zip.openReadStreamPromise(entry);
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks);
      } catch (e) {
        if (isAppError(e)) throw e;
        throw malformed(e);
      }
    },
    close: () => zip.close(),
  };
}
