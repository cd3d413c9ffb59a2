/**
 * The console's first-page weight: the JavaScript that `apps/web/dist/index.html` loads or preloads
 * (its module scripts and `modulepreload` links, which are every chunk the first page needs before
 * it can run), gzipped. Other chunks load only when their route is opened.
 *
 * Alone: `npx tsx bench/bundle.ts` (builds the console first when `--build` is given or no build exists).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_DIST = path.join(ROOT, 'apps/web/dist');
/** The budget for the first page's JavaScript, gzipped. */
export const FIRST_PAGE_BUDGET_KB = 200;

export interface BundleReport {
  /** The files index.html loads or preloads, with their gzipped sizes in bytes. */
  files: { file: string; gzip: number }[];
  /** Every JavaScript chunk of the build, gzipped, for comparison. */
  allJsGzip: number;
  firstPageJsGzip: number;
  firstPageCssGzip: number;
  sourceMaps: number;
}

function gzipSize(file: string): number {
  return zlib.gzipSync(fs.readFileSync(file), { level: 6 }).length;
}

/** The local files index.html references as module scripts, module preloads and stylesheets. */
export function firstPageFiles(html: string): string[] {
  const out = new Set<string>();
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"[^>]*>/g)) out.add(m[1]!);
  for (const m of html.matchAll(/<link\b[^>]*>/g)) {
    const tag = m[0];
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
    if (href && /\brel="(modulepreload|stylesheet)"/.test(tag)) out.add(href);
  }
  return [...out].filter((f) => !/^(https?:)?\/\//.test(f));
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

export function build(): void {
  const res = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (res.status !== 0) throw new Error('npm run build -w apps/web failed');
}

/** Measures the built console in `dist` (building it first when there is none). */
export function measureBundle(dist = WEB_DIST, options: { build?: boolean } = {}): BundleReport {
  if (options.build || !fs.existsSync(path.join(dist, 'index.html'))) build();
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  const files = firstPageFiles(html).map((href) => {
    const file = path.join(dist, href.replace(/^\//, ''));
    return { file: href, gzip: gzipSize(file) };
  });
  const all = walk(dist);
  return {
    files,
    allJsGzip: all.filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gzipSize(f), 0),
    firstPageJsGzip: files.filter((f) => f.file.endsWith('.js')).reduce((sum, f) => sum + f.gzip, 0),
    firstPageCssGzip: files.filter((f) => f.file.endsWith('.css')).reduce((sum, f) => sum + f.gzip, 0),
    sourceMaps: all.filter((f) => f.endsWith('.map')).length,
  };
}

/** A row in the shape of bench/run.ts's table. */
export function bundleRow(report: BundleReport): { metric: string; value: number; unit: string; target: string; pass: boolean } {
  const kb = Math.round((report.firstPageJsGzip / 1024) * 10) / 10;
  return {
    metric: 'console first page JavaScript (gzip)',
    value: kb,
    unit: 'KB',
    target: `<= ${FIRST_PAGE_BUDGET_KB}`,
    pass: kb <= FIRST_PAGE_BUDGET_KB && report.sourceMaps === 0,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = measureBundle(WEB_DIST, { build: process.argv.includes('--build') });
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  for (const f of report.files) console.log(`${f.file.padEnd(48)} ${kb(f.gzip).padStart(10)}`);
  console.log(`first page JavaScript (gzip): ${kb(report.firstPageJsGzip)} (budget ${FIRST_PAGE_BUDGET_KB} KB)`);
  console.log(`first page CSS (gzip): ${kb(report.firstPageCssGzip)}; all JavaScript (gzip): ${kb(report.allJsGzip)}`);
  console.log(`source maps in dist: ${report.sourceMaps}`);
  const row = bundleRow(report);
  process.exitCode = row.pass ? 0 : 1;
}
