#!/usr/bin/env node
// Proves the committed WebAssembly of the watermark (packages/speech/src/watermark/wasm/*-wasm.ts) is exactly what
// its C sources build to with Debian's clang and lld: builds every module again (scripts/build-watermark-wasm.mjs)
// and compares the .ts byte for byte. A C source changed without a rebuild, a .ts edited by hand, or a C source no
// module lists fails it. A step of `npm test` (scripts/test.mjs); .ci/run installs clang and lld when missing.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildModules, MODULES, WASM_DIR } from './build-watermark-wasm.mjs';

const rel = (file) => path.relative(process.cwd(), file);
const problems = [];

for (const tool of ['clang', 'wasm-ld']) {
  const res = spawnSync(tool, ['--version'], { encoding: 'utf8' });
  if (res.error || res.status !== 0) {
    console.error(
      `${tool} not found: install Debian's clang and lld (apt-get install clang lld) to check the watermark's WebAssembly`,
    );
    process.exit(1);
  }
}
const clangVersion = spawnSync('clang', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0].trim();

const sources = readdirSync(WASM_DIR)
  .filter((f) => f.endsWith('.c'))
  .map((f) => f.slice(0, -2));
for (const source of sources) {
  if (!MODULES.some(([name]) => name === source)) {
    problems.push(`${source}.c is built by no module: add it to MODULES in scripts/build-watermark-wasm.mjs`);
  }
}

for (const built of buildModules()) {
  let committed = '';
  try {
    committed = readFileSync(built.file, 'utf8');
  } catch {
    problems.push(`${rel(built.file)} is missing`);
    continue;
  }
  if (committed === built.text) {
    console.log(`${rel(built.file)}: the same as ${built.name}.c builds to (${built.base64.length} characters of base64)`);
    continue;
  }
  const old = committedWasm(committed);
  const now = Buffer.from(built.base64, 'base64');
  const made = old ? producers(old) : null;
  problems.push(
    [
      `${rel(built.file)} is not what ${built.name}.c builds to now:`,
      old
        ? `  committed ${old.length} bytes, built ${now.length} bytes, first difference at byte ${firstDifference(old, now)}`
        : '  its base64 could not be read',
      `  committed module made by: ${made ?? 'unknown'}; this machine: ${clangVersion}`,
      '  after changing the C, run `node scripts/build-watermark-wasm.mjs` (Debian clang 14 and lld) and commit both',
    ].join('\n'),
  );
}

if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}

function committedWasm(text) {
  const m = /'([A-Za-z0-9+/=]+)'/.exec(text);
  return m ? Buffer.from(m[1], 'base64') : null;
}

function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

/** The module's `producers` section (what compiled it), e.g. "Debian clang 14.0.6"; null when it has none. */
function producers(wasm) {
  let at = 8; // magic and version
  const leb = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = wasm[at++];
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  };
  const str = () => {
    const n = leb();
    const s = wasm.subarray(at, at + n).toString('utf8');
    at += n;
    return s;
  };
  while (at < wasm.length) {
    const id = wasm[at++];
    const size = leb();
    const end = at + size;
    if (id === 0 && str() === 'producers') {
      const out = [];
      for (let fields = leb(); fields > 0; fields--) {
        str(); // the field's name: language, processed-by, sdk
        for (let values = leb(); values > 0; values--) out.push(`${str()} ${str()}`);
      }
      return out.join(', ');
    }
    at = end;
  }
  return null;
}
