#!/usr/bin/env node
// The compiled production build of the server: esbuild bundles our own TypeScript (apps/server/src,
// packages/contracts, packages/speech) into ESM under apps/server/dist/, one file per entry the
// process loads at run time. Packages from node_modules stay external (native addons, wasm and the
// data files they find next to themselves keep working); the server's config/ and content/ are read
// from apps/server as in development.
//
//   node scripts/build-server.mjs           build apps/server/dist
//   node scripts/build-server.mjs --check   exit 0 when the build is current, 1 when it is missing or older than a source
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const defaultOutdir = path.join(root, 'apps/server/dist');
const speechSrc = path.join(root, 'packages/speech/src');
const serverSrc = path.join(root, 'apps/server/src');
const STAMP = 'build.json';

/**
 * The files the speech package (or the server) starts by URL next to its own module (`new URL('./x.mjs', import.meta.url)`
 * for `new Worker(…)` and `fork(…)`). In a bundle that URL points into dist/, so each becomes an entry of
 * the same name. In the sources some are small shims that register tsx and import a TypeScript module:
 * the build compiles that module instead, so no entry needs tsx.
 */
export function runtimeEntries() {
  const entries = new Map();
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.ts$/.test(e.name) && !e.name.endsWith('.d.ts')) {
        const text = fs.readFileSync(full, 'utf8');
        for (const m of text.matchAll(/new URL\(\s*'\.\/([\w-]+)\.mjs'\s*,\s*import\.meta\.url\s*\)/g)) {
          const name = m[1];
          const file = path.join(path.dirname(full), `${name}.mjs`);
          const shim = fs.readFileSync(file, 'utf8');
          const target = /register\(\);\s*await import\('\.\/([\w./-]+\.ts)'\)/.exec(shim);
          const source = target ? path.join(path.dirname(file), target[1]) : file;
          const known = entries.get(name);
          if (known && known !== source) throw new Error(`two runtime entries are named ${name}.mjs: ${known} and ${source}`);
          entries.set(name, source);
        }
      }
    }
  };
  walk(speechSrc);
  walk(serverSrc);
  return entries;
}

/** The folder Node would load a bare import's package from, looking up from `dir`; null when there is none. */
function packageDirFrom(dir, specifier) {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, 'node_modules', name);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(d) === d) return null;
  }
}

const versionOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;

/**
 * Bundles our own workspace packages; everything else from node_modules is imported at run time. A package that a
 * workspace package has in its own node_modules (npm nests it there when another version is hoisted, as lru-cache
 * 11 for packages/speech beside an old one at the root) would be found as the other version from apps/server/dist:
 * such a package is bundled too.
 */
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    const distDir = path.join(root, 'apps/server/dist');
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind === 'entry-point' || args.path.startsWith('@polyvox/')) return undefined;
      if (path.isAbsolute(args.path)) return undefined;
      if (args.resolveDir && !args.path.startsWith('node:')) {
        const wanted = packageDirFrom(args.resolveDir, args.path);
        const found = packageDirFrom(distDir, args.path);
        if (wanted && wanted !== found && versionOf(wanted) !== (found && versionOf(found))) return undefined;
      }
      return { path: args.path, external: true };
    });
  },
};

export async function buildServer({ outdir = defaultOutdir, quiet = false } = {}) {
  const { build, version } = await import('esbuild');
  const started = performance.now();
  const entryPoints = {
    main: path.join(root, 'apps/server/src/main.ts'),
    admin: path.join(root, 'apps/server/src/admin/cli.ts'),
    models: path.join(root, 'apps/server/src/admin/models-cli.ts'),
    ...Object.fromEntries(runtimeEntries()),
  };
  // The previous build's files are replaced in place and those it no longer makes are removed after:
  // nothing else under outdir is touched, and without its stamp a half-written build counts as missing.
  const stampFile = path.join(outdir, STAMP);
  let previous = [];
  try {
    previous = JSON.parse(fs.readFileSync(stampFile, 'utf8')).outputs ?? [];
  } catch {
    /* no previous build */
  }
  fs.rmSync(stampFile, { force: true });
  const result = await build({
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    keepNames: true,
    legalComments: 'none',
    metafile: true,
    logLevel: quiet ? 'error' : 'warning',
    plugins: [externalPackages],
  });
  const inputs = Object.keys(result.metafile.inputs).map((p) => path.relative(root, path.resolve(root, p)));
  const outputs = Object.keys(result.metafile.outputs).map((p) => path.relative(outdir, path.resolve(root, p)));
  for (const old of previous) {
    if (!outputs.includes(old) && !old.includes('..') && !path.isAbsolute(old))
      fs.rmSync(path.join(outdir, old), { force: true });
  }
  const stamp = { builtAt: new Date().toISOString(), esbuild: version, entries: Object.keys(entryPoints), inputs, outputs };
  // Written last: a build without its stamp counts as missing.
  fs.writeFileSync(stampFile, `${JSON.stringify(stamp, null, 2)}\n`);
  const ms = Math.round(performance.now() - started);
  if (!quiet) console.log(`[polyvox] server built into ${path.relative(root, outdir)} in ${ms} ms (${inputs.length} sources)`);
  return { outdir, ms, entries: Object.keys(entryPoints), inputs };
}

/**
 * Whether `outdir` holds a build at least as new as every source it was built from. A source that
 * changed or disappeared makes it stale; a new source file only matters once an existing one imports
 * it, and that import is itself a change. A runtime entry added since also makes it stale.
 */
export function serverBuildIsCurrent(outdir = defaultOutdir) {
  const stampFile = path.join(outdir, STAMP);
  let stamp;
  let builtMs;
  try {
    stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
    builtMs = fs.statSync(stampFile).mtimeMs;
  } catch {
    return false;
  }
  for (const entry of stamp.entries ?? []) if (!fs.existsSync(path.join(outdir, `${entry}.mjs`))) return false;
  const entries = new Set(stamp.entries ?? []);
  for (const name of runtimeEntries().keys()) if (!entries.has(name)) return false;
  for (const input of stamp.inputs ?? []) {
    try {
      if (fs.statSync(path.join(root, input)).mtimeMs > builtMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--check')) process.exit(serverBuildIsCurrent() ? 0 : 1);
  buildServer().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
