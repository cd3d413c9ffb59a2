import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * A byte range of a stored file, as HTTP Range asks for it: from `start` to `end` (inclusive; to the end
 * of the file when left out), or the last `suffix` bytes.
 */
export type ByteRange = { start: number; end?: number } | { suffix: number };

export interface StoredFile {
  size: number;
  contentType?: string;
}

/** A stored file being read: `size` is the whole file's; `range` is set when `body` is only that part of it. */
export interface StoredStream extends StoredFile {
  body: Readable;
  range?: { start: number; end: number };
}

export interface PutOptions {
  contentType?: string;
  /** The length, when known beforehand: lets a bucket take a small file in one request. */
  size?: number;
}

/**
 * Where uploaded and generated files live: a folder under DATA_DIR (the embedded default) or an
 * S3-compatible bucket (`S3_URL`, `s3-storage.ts`). Keys are relative paths such as `jobs/job_…`.
 */
export interface Storage {
  /** `local` or `s3`, for logs and readiness reports. */
  readonly kind: 'local' | 's3';
  /** Small files, whole in memory. */
  put(key: string, data: Buffer, options?: PutOptions): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  /** Large files: read from `body` as it comes (a bucket takes it in parts); readers never see half a file. */
  putStream(key: string, body: Readable, options?: PutOptions): Promise<{ size: number }>;
  /**
   * A file as a stream, whole or the asked range. A range that cannot be served (past the end, an empty
   * file) gives the whole file, as HTTP lets a server ignore a Range it cannot satisfy.
   */
  getStream(key: string, range?: ByteRange): Promise<StoredStream | null>;
  stat(key: string): Promise<StoredFile | null>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** The keys directly inside a folder key (`jobs` → `jobs/…`), for sweeping files nothing refers to. */
  list(folder: string): Promise<string[]>;
  /** Resolves when the storage can be read and written; rejects with a message saying what is wrong. */
  check(): Promise<void>;
  close(): Promise<void>;
}

/**
 * DATA_DIR and what is under it (database, secret, uploads, mail outbox) are the server's alone: directories 0700,
 * files 0600, whatever the umask. An existing directory is tightened too, as far as the process may.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export function ensurePrivateDir(dir: string): void {
  fsSync.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    fsSync.chmodSync(dir, PRIVATE_DIR_MODE);
  } catch {
    // Not ours to change (a mounted volume): the files inside are still created private.
  }
}

const SAFE_KEY = /^[a-zA-Z0-9_-]+(\/[a-zA-Z0-9_.-]+)*$/;

/** Every storage refuses the same keys: no `..`, no leading dot or slash, nothing outside [A-Za-z0-9_.-/]. */
export function assertSafeKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe storage key ${JSON.stringify(key)}`);
}

/** The inclusive byte span a range covers in a file of `size` bytes, or null when it covers nothing. */
export function resolveRange(range: ByteRange, size: number): { start: number; end: number } | null {
  if (size === 0) return null;
  if ('suffix' in range) {
    if (!(range.suffix > 0)) return null;
    return { start: Math.max(0, size - range.suffix), end: size - 1 };
  }
  const end = Math.min(range.end ?? size - 1, size - 1);
  if (!(range.start >= 0) || range.start >= size || end < range.start) return null;
  return { start: range.start, end };
}

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

let tmpCounter = 0;

export function localStorage(root: string): Storage {
  const resolve = (key: string) => {
    assertSafeKey(key);
    return path.join(root, key);
  };
  // Written beside the file under a `.tmp-` name (which sweepers skip), then renamed: readers never see half a file.
  const tempName = (file: string) => `${file}.tmp-${process.pid}-${++tmpCounter}`;
  const storage: Storage = {
    kind: 'local',
    async put(key, data) {
      const file = resolve(key);
      await fs.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
      const tmp = tempName(file);
      try {
        await fs.writeFile(tmp, data, { mode: PRIVATE_FILE_MODE });
        await fs.rename(tmp, file);
      } catch (e) {
        await fs.rm(tmp, { force: true });
        throw e;
      }
    },
    async get(key) {
      try {
        return await fs.readFile(resolve(key));
      } catch (e) {
        if (isMissing(e) || (e as NodeJS.ErrnoException).code === 'EISDIR') return null;
        throw e;
      }
    },
    async putStream(key, body) {
      const file = resolve(key);
      await fs.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
      const tmp = tempName(file);
      let size = 0;
      try {
        await pipeline(
          body,
          async function* (source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              size += chunk.length;
              yield chunk;
            }
          },
          fsSync.createWriteStream(tmp, { mode: PRIVATE_FILE_MODE, flags: 'wx' }),
        );
        await fs.rename(tmp, file);
      } catch (e) {
        await fs.rm(tmp, { force: true });
        throw e;
      }
      return { size };
    },
    async getStream(key, range) {
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(resolve(key), 'r');
      } catch (e) {
        if (isMissing(e)) return null;
        throw e;
      }
      try {
        const info = await handle.stat();
        if (!info.isFile()) {
          await handle.close();
          return null;
        }
        const span = range ? resolveRange(range, info.size) : null;
        // The stream owns the handle from here and closes it when it ends or is destroyed.
        const body = handle.createReadStream(span ? { start: span.start, end: span.end } : {});
        return { body, size: info.size, ...(span ? { range: span } : {}) };
      } catch (e) {
        await handle.close();
        throw e;
      }
    },
    async stat(key) {
      try {
        const info = await fs.stat(resolve(key));
        return info.isFile() ? { size: info.size } : null;
      } catch (e) {
        if (isMissing(e)) return null;
        throw e;
      }
    },
    async exists(key) {
      return (await storage.stat(key)) !== null;
    },
    async delete(key) {
      await fs.rm(resolve(key), { force: true });
    },
    async list(folder) {
      try {
        const entries = await fs.readdir(resolve(folder), { withFileTypes: true });
        return entries.filter((e) => e.isFile()).map((e) => `${folder}/${e.name}`);
      } catch (e) {
        if (isMissing(e)) return [];
        throw e;
      }
    },
    async check() {
      try {
        await fs.mkdir(root, { recursive: true, mode: PRIVATE_DIR_MODE });
        await fs.access(root, fsSync.constants.W_OK | fsSync.constants.R_OK);
        // access() says yes to root whatever the mode: a real write is the proof.
        const probe = path.join(root, `.check-${process.pid}-${++tmpCounter}`);
        await fs.writeFile(probe, '', { mode: PRIVATE_FILE_MODE });
        await fs.rm(probe, { force: true });
      } catch (e) {
        throw new Error(`storage folder ${root} is not writable: ${(e as Error).message}`, { cause: e });
      }
    },
    async close() {},
  };
  return storage;
}
