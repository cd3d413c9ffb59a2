import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The server's own folder (apps/server: config/, content/), found the same way from the sources
 * (apps/server/src/platform/paths.ts) and from the compiled build (everything in one file under
 * apps/server/dist/): the nearest folder above this module whose package.json is @polyvox/server.
 */
function findServerRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (
      fs.existsSync(manifest) &&
      (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === '@polyvox/server'
    )
      return dir;
    if (path.dirname(dir) === dir) throw new Error(`no @polyvox/server package.json above ${start}`);
  }
}

export const serverRoot = findServerRoot(path.dirname(fileURLToPath(import.meta.url)));
/** The repository (or installed tree) root: apps/server's grandparent. */
export const repoRoot = path.resolve(serverRoot, '../..');
