/**
 * The documentation site (docs/site) cannot drift from the product: every code block of its pages says whether it
 * runs, and each runnable one is run here against a started server, as a reader would run it: curl samples in bash,
 * JavaScript samples with node and the SDKs of the repository's devDependencies (openai, @elevenlabs/elevenlabs-js,
 * @livekit/agents), Python samples with python3 when the modules they import are installed, else compiled
 * (`python3 -m py_compile`). The site is also built (scripts/build-docs.mjs) and served at /guide/.
 *
 * One server for the whole file, on SQLite: the samples test the documents, not the storage.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { JFK_WAV } from '../support/design.js';
import { SITE_PAGES, sitePages, siteSamples, type DocSample } from '../support/doc-samples.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const samples = siteSamples();
const runnable = samples.filter((s) => s.kind === 'runnable');

/** Whether python3 can import each module a Python sample imports (the SDKs are not part of the repository). */
async function pythonCanImport(code: string): Promise<boolean> {
  const modules = [...code.matchAll(/^(?:from|import)\s+([\w.]+)/gm)].map((m) => m[1]!.split('.')[0]!);
  try {
    await run('python3', ['-c', modules.map((m) => `import ${m}`).join('\n') || 'pass']);
    return true;
  } catch {
    return false;
  }
}

/** What an audio file a sample wrote starts with. */
function looksLikeAudio(name: string, bytes: Buffer): boolean {
  if (name.endsWith('.wav')) return bytes.subarray(0, 4).toString('latin1') === 'RIFF';
  if (name.endsWith('.mp3'))
    return bytes.subarray(0, 3).toString('latin1') === 'ID3' || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0);
  if (name.endsWith('.opus') || name.endsWith('.ogg')) return bytes.subarray(0, 4).toString('latin1') === 'OggS';
  return bytes.length > 0;
}

describe.each(DIALECTS.slice(0, 1))('the documentation site (%s)', (dialect) => {
  let t: TestApp;
  let env: Record<string, string>;
  let work: string;
  let site: string;
  const ran = { sh: 0, js: 0, python: 0, pythonCompiled: 0 };

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-docs-'));
    site = path.join(work, 'site');
    // The site built as `npm run build` builds it, served by the app below.
    await run(process.execPath, [path.join(ROOT, 'scripts/build-docs.mjs')], {
      cwd: ROOT,
      env: { ...process.env, DOCS_OUT: site, DOCS_BASE: '/guide/' },
    });
    let c;
    ({ t, c } = await keyedApp(dialect, 1_000_000, 'docs', { GUIDE_DIST: site }));
    const key = (await c.put('/api/authorization', { name: 'docs samples', requests_per_minute: 6000, concurrency: 16 }))
      .body as { key: string };
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? work,
      POLYVOX_URL: t.url,
      POLYVOX_API_KEY: key.key,
      POLYVOX_SID: c.sid!,
    };
  });
  afterAll(async () => {
    await t?.close();
    await fs.rm(work, { recursive: true, force: true });
    // The figure the issue asks for, printed with the run.
    console.log(
      `[docs] samples run: ${ran.sh} curl/sh, ${ran.js} JavaScript, ${ran.python} Python run, ${ran.pythonCompiled} Python compiled`,
    );
  });

  it('every code block of a page says whether it runs, and the English and Chinese sites have the same pages', () => {
    const unmarked = samples.filter((s) => s.kind === 'unmarked').map((s) => s.id);
    expect(unmarked).toEqual([]);
    expect(runnable.length).toBeGreaterThan(20);
    const [en, zh] = ['en', 'zh'].map((lang) =>
      sitePages(true)
        .filter((p) => p.startsWith(`${lang}/`))
        .map((p) => p.slice(lang.length + 1)),
    );
    expect(zh).toEqual(en);
    // A Chinese page runs the same samples as its English one.
    const codes = (lang: string) =>
      runnable.filter((s) => s.page.startsWith(`${lang}/`)).map((s) => `${s.page.slice(3)} ${s.code}`);
    expect(codes('zh')).toEqual(codes('en'));
  });

  it('serves the site at /guide/ in both languages, its scripts in files the Content-Security-Policy allows', async () => {
    for (const [url, lang] of [
      ['/guide/', 'en'],
      ['/guide/zh/', 'zh'],
      ['/guide/quick-start/', 'en'],
      ['/guide/zh/self-hosting/settings', 'zh'],
    ] as const) {
      const res = await fetch(`${t.url}${url}`);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      const html = await res.text();
      expect(html).toContain(`lang="${lang}"`);
      // No inline script: each runs from a file of this origin (`script-src 'self'`).
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      for (const src of html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)) {
        const script = await fetch(`${t.url}${src[1]}`);
        expect(script.status, src[1]).toBe(200);
        await script.arrayBuffer();
      }
    }
    expect((await fetch(`${t.url}/guide/no-such-page`)).status).toBe(404);
    // The console's link without its slash still finds the site.
    const bare = await fetch(`${t.url}/guide`, { redirect: 'manual' });
    expect(bare.status).toBeGreaterThanOrEqual(301);
    expect(new URL(bare.headers.get('location')!, t.url).pathname).toBe('/guide/');
    // The provenance guide is docs/provenance.md, taken in at build time.
    const provenance = readFileSync(path.join(ROOT, 'docs/provenance.md'), 'utf8')
      .split('\n')[0]!
      .replace(/^#\s*/, '')
      .replace(/[`*_]/g, '');
    const page = (await (await fetch(`${t.url}/guide/topics/provenance`)).text()).replace(/<[^>]+>/g, '');
    expect(page).toContain(provenance);
  });

  // Pages in order, and each page's samples in order in one folder: a later sample may use what an earlier one wrote.
  // The Chinese pages' samples are the English ones, character for character (checked above): each is run once.
  const pages = [...new Set(runnable.filter((s) => s.page.startsWith('en/')).map((s) => s.page))];
  it.each(pages)('runs the samples of %s', async (page) => {
    const dir = path.join(ROOT, 'node_modules/.cache/polyvox-doc-samples', page.replaceAll('/', '_'));
    await fs.rm(dir, { recursive: true, force: true });
    await fs.mkdir(dir, { recursive: true });
    // A voice sample for the cloning guide, as the reader's own recording would be.
    await fs.copyFile(JFK_WAV, path.join(dir, 'my-voice.wav'));
    try {
      for (const sample of runnable.filter((s) => s.page === page)) await runSample(sample, dir);
      const audio = (await fs.readdir(dir)).filter((f) => /\.(mp3|wav|opus|ogg|pcm)$/.test(f) && f !== 'my-voice.wav');
      for (const name of audio)
        expect(looksLikeAudio(name, await fs.readFile(path.join(dir, name))), `${page}: ${name}`).toBe(true);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  async function runSample(sample: DocSample, dir: string) {
    const file = path.join(dir, sample.lang === 'js' ? 'sample.mjs' : sample.lang === 'python' ? 'sample.py' : 'sample.sh');
    await fs.writeFile(file, sample.code);
    let out: { stdout: string; stderr: string };
    try {
      if (sample.lang === 'sh') {
        out = await run('bash', ['-euo', 'pipefail', file], { cwd: dir, env, timeout: 150_000 });
        ran.sh++;
      } else if (sample.lang === 'js') {
        out = await run(process.execPath, [file], { cwd: dir, env, timeout: 150_000 });
        ran.js++;
      } else if (sample.lang === 'python' && (await pythonCanImport(sample.code))) {
        out = await run('python3', [file], { cwd: dir, env, timeout: 150_000 });
        ran.python++;
      } else if (sample.lang === 'python') {
        out = await run('python3', ['-m', 'py_compile', file], { cwd: dir, env });
        ran.pythonCompiled++;
        return;
      } else throw new Error(`no runner for ${sample.lang}`);
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${sample.id} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}\n--- sample ---\n${sample.code}`);
    }
    if (sample.expect) expect(out.stdout, sample.id).toContain(sample.expect);
  }
});

// The site's pages exist at all (a checkout without docs/site would skip every sample above silently).
it('finds the site', () => expect(existsSync(SITE_PAGES)).toBe(true));
