import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const LOWER = ['http', 'platform'];

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(full) : /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

/** The folder directly under src/ that a relative import from `file` lands in ('' for src itself). */
function targetFolder(file: string, spec: string): string {
  const resolved = path.relative(src, path.resolve(path.dirname(file), spec));
  return resolved.includes(path.sep) ? resolved.split(path.sep)[0]! : '';
}

describe('layers inside apps/server/src', () => {
  it('http/ and platform/ import only each other, never a domain module or the app root', () => {
    const upward: string[] = [];
    for (const layer of LOWER) {
      for (const file of filesUnder(path.join(src, layer))) {
        const text = fs.readFileSync(file, 'utf8');
        for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
          const folder = targetFolder(file, m[1]!);
          if (!LOWER.includes(folder)) upward.push(`${path.relative(src, file)} -> ${m[1]}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it('the check sees an upward import when there is one', () => {
    const file = path.join(src, 'http/example.ts');
    expect(targetFolder(file, '../auth/sessions.js')).toBe('auth');
    expect(targetFolder(file, './auth.js')).toBe('http');
    expect(targetFolder(file, '../context.js')).toBe('');
  });
});
