/**
 * Unpacks a .tar.bz2 release into a folder (tar-stream reads the archive, unbzip2-stream decompresses
 * it), refusing the whole archive at the first entry that would land outside the folder: an absolute
 * path, a `..` step, a symbolic link whose target (resolved from where it really lies) leaves the folder,
 * a hard link or a device. The caller unpacks into a temporary folder and deletes it on refusal.
 */
import {
  createReadStream,
  createWriteStream,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import unbzip2 from 'unbzip2-stream';
import { InstallError } from './download.js';

const inside = (root: string, p: string): boolean => p === root || p.startsWith(root + path.sep);

/** The real folder an entry's parent is, created if need be; refused when it lies outside `root`. */
function parentOf(folder: string, root: string, rel: string, entry: string): string {
  const dir = path.join(folder, path.dirname(rel));
  mkdirSync(dir, { recursive: true });
  const real = realpathSync(dir);
  if (!inside(root, real))
    throw new InstallError(`${entry} would be written outside the model's folder (through a link)`, 'unsafe_archive', {
      entry,
    });
  return real;
}

function exists(p: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** Unpacks `archive` into `dest` (an empty folder); throws InstallError naming the first entry refused. */
export async function unpackTarBz2(archive: string, dest: string): Promise<void> {
  mkdirSync(dest, { recursive: true });
  const folder = realpathSync(dest);
  // sherpa-onnx's archives begin with their one top folder: then that folder is the model, every
  // entry must lie in it, and links are checked against it.
  let top: string | undefined;
  let root = folder;
  let first = true;
  const extract = tar.extract();
  const entries = (async () => {
    for await (const entry of extract) {
      const h = entry.header;
      const name = h.name;
      if (path.posix.isAbsolute(name) || /^[A-Za-z]:/.test(name) || name.startsWith('\\'))
        throw new InstallError(`the archive entry ${name} has an absolute path: refused`, 'unsafe_archive', { entry: name });
      const parts = name.split(/[\\/]+/).filter((p) => p && p !== '.');
      if (parts.includes('..'))
        throw new InstallError(`the archive entry ${name} climbs out with "..": refused`, 'unsafe_archive', { entry: name });
      const rel = parts.join(path.sep);
      if (!rel) {
        entry.resume();
        continue;
      }
      if (first && h.type === 'directory' && parts.length === 1) {
        top = parts[0]!;
        mkdirSync(path.join(folder, top));
        root = realpathSync(path.join(folder, top));
        first = false;
        entry.resume();
        continue;
      } else if (top !== undefined && parts[0] !== top)
        throw new InstallError(`the archive entry ${name} lies outside the archive's folder ${top}/: refused`, 'unsafe_archive', {
          entry: name,
        });
      first = false;
      if (h.type === 'directory') {
        const dir = path.join(parentOf(folder, root, rel, name), path.basename(rel));
        const st = exists(dir);
        if (st && !st.isDirectory())
          throw new InstallError(`the archive entry ${name} replaces a file or link: refused`, 'unsafe_archive', { entry: name });
        mkdirSync(dir, { recursive: true });
        entry.resume();
      } else if (h.type === 'file' || h.type === 'contiguous-file') {
        const file = path.join(parentOf(folder, root, rel, name), path.basename(rel));
        if (exists(file)?.isSymbolicLink())
          throw new InstallError(`the archive entry ${name} writes through a link: refused`, 'unsafe_archive', { entry: name });
        await pipeline(entry, createWriteStream(file, { mode: (h.mode ?? 0o644) & 0o755 }));
      } else if (h.type === 'symlink') {
        const target = h.linkname ?? '';
        const parent = parentOf(folder, root, rel, name);
        if (path.isAbsolute(target) || !inside(root, path.resolve(parent, target)))
          throw new InstallError(
            `the archive entry ${name} is a link to ${target}, outside the model's folder: refused`,
            'unsafe_archive',
            { entry: name },
          );
        const link = path.join(parent, path.basename(rel));
        if (exists(link))
          throw new InstallError(`the archive entry ${name} replaces a file: refused`, 'unsafe_archive', { entry: name });
        symlinkSync(target, link);
        entry.resume();
      } else {
        throw new InstallError(
          `the archive entry ${name} is a ${h.type ?? 'special'} entry, which a model never needs: refused`,
          'unsafe_archive',
          { entry: name },
        );
      }
    }
  })();
  // A refused entry stops the reading too; both sides are awaited, so no error is left unhandled.
  const checked = entries.catch((e: unknown) => {
    extract.destroy(e as Error);
    throw e;
  });
  const unpacking = pipeline(createReadStream(archive), unbzip2(), extract);
  const [a, b] = await Promise.allSettled([checked, unpacking]);
  if (a.status === 'rejected') {
    throw a.reason instanceof InstallError
      ? a.reason
      : new InstallError(`the archive is not a readable .tar.bz2 (${(a.reason as Error).message})`, 'unreadable_archive');
  }
  if (b.status === 'rejected') {
    const e = b.reason as Error;
    throw e instanceof InstallError
      ? e
      : new InstallError(`the archive is not a readable .tar.bz2 (${e.message})`, 'unreadable_archive');
  }
}

/**
 * Checks every symbolic link under `dir` against `dir` itself: the folder that becomes the model (the
 * archive's top folder), where a link that stayed inside the unpacking folder may still point out.
 */
export function assertLinksInside(dir: string, top = realpathSync(dir), rel = ''): void {
  for (const e of readdirSync(path.join(top, rel), { withFileTypes: true })) {
    const r = rel ? path.join(rel, e.name) : e.name;
    if (e.isSymbolicLink()) {
      const target = readlinkSync(path.join(top, r));
      const from = realpathSync(path.join(top, rel));
      if (path.isAbsolute(target) || !inside(top, path.resolve(from, target)))
        throw new InstallError(
          `${r.split(path.sep).join('/')} is a link to ${target}, outside the model's folder: refused`,
          'unsafe_archive',
          {
            entry: r.split(path.sep).join('/'),
          },
        );
    } else if (e.isDirectory()) assertLinksInside(dir, top, r);
  }
}
