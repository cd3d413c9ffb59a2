import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Where uploaded and generated files live; the embedded default is a folder under DATA_DIR. */
export interface Storage {
  put(key: string, data: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
  /** The keys directly inside a folder key (`jobs` → `jobs/…`), for sweeping files nothing refers to. */
  list(folder: string): Promise<string[]>;
  /** Resolves when the storage can be reached and written (for `/readyz`); throws otherwise. */
  check(): Promise<void>;
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

export function localStorage(root: string): Storage {
  const resolve = (key: string) => {
    if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe storage key ${key}`);
    return path.join(root, key);
  };
  return {
    async put(key, data) {
      const file = resolve(key);
      await fs.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
      const tmp = `${file}.tmp-${process.pid}`;
      await fs.writeFile(tmp, data, { mode: PRIVATE_FILE_MODE });
      await fs.rename(tmp, file);
    },
    async get(key) {
      try {
        return await fs.readFile(resolve(key));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    async delete(key) {
      await fs.rm(resolve(key), { force: true });
    },
    async check() {
      await fs.mkdir(root, { recursive: true, mode: PRIVATE_DIR_MODE });
      await fs.access(root, fs.constants.R_OK | fs.constants.W_OK);
    },
    async list(folder) {
      try {
        const entries = await fs.readdir(resolve(folder), { withFileTypes: true });
        return entries.filter((e) => e.isFile()).map((e) => `${folder}/${e.name}`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
  };
}
