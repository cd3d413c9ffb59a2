import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { id3Size } from '@polyvox/speech/formats';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, runtimeEntries, serverBuildIsCurrent } from '../../../../scripts/build-server.mjs';
import { SERVER_NODE_FLAGS } from '../../../../scripts/node-flags.mjs';
import { createPgDatabase, DIALECTS } from '../support/app.js';
import { JFK_WAV } from '../support/design.js';
import { writeTinyVits } from '../../../../packages/speech/test/support/tiny-models.js';
import { freePort } from '../support/ports.js';
import { START_DEADLINE_MS } from '../support/processes.js';
import { childEnv } from '../support/child-env.js';

const root = path.resolve(import.meta.dirname, '../../../..');
// Under apps/server/dist/ (ignored by git), so the build finds apps/server and node_modules as the real one does.
const outdir = path.join(root, 'apps/server/dist', `test-${randomBytes(4).toString('hex')}`);
let work: string;

/** A module hook loaded with --import: it writes down every module the server's main thread resolves. */
const HOOKS = `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(file, r.url + '\\n');
  return r;
}
`;

/** The command lines of a process's child processes (Linux /proc), found through its threads. */
async function childCommandLines(pid: number): Promise<string[]> {
  const tasks = await fs.readdir(`/proc/${pid}/task`);
  const kids = new Set<string>();
  for (const t of tasks) {
    const list = await fs.readFile(`/proc/${pid}/task/${t}/children`, 'utf8').catch(() => '');
    for (const k of list.split(/\s+/).filter(Boolean)) kids.add(k);
  }
  const lines: string[] = [];
  for (const k of kids) lines.push((await fs.readFile(`/proc/${k}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' '));
  return lines;
}

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-build-'));
  // A tiny sherpa-onnx model (built by the speech package's tests), so the sherpa helper process runs too.
  writeTinyVits(path.join(work, 'models/tiny-vits'), 2);
  await fs.writeFile(
    path.join(work, 'models/manifest.json'),
    JSON.stringify({
      models: [
        {
          id: 'tiny-vits',
          name: 'Tiny VITS',
          type: 'vits',
          languages: ['en-US', 'en'],
          files: { model: 'tiny-vits/model.onnx', tokens: 'tiny-vits/tokens.txt' },
          speakers: [
            { sid: 0, name: 'Low', gender: 'male', pitchHz: 110 },
            { sid: 1, name: 'High', gender: 'female', pitchHz: 230 },
          ],
        },
      ],
    }),
  );
  await buildServer({ outdir, quiet: true });
});

afterAll(async () => {
  await fs.rm(outdir, { recursive: true, force: true });
  await fs.rm(work, { recursive: true, force: true });
});

describe('the compiled build', () => {
  it('holds the server, the admin CLI and every thread and helper process the speech package starts, none of them needing tsx', async () => {
    const entries = [...runtimeEntries().keys()].sort();
    // The speech package starts these by URL; missing one would mean the discovery broke, not that it is gone.
    expect(entries).toEqual(
      expect.arrayContaining([
        'c2pa-read-entry',
        'detect-entry',
        'encoder-entry',
        'flite-host',
        'measure-entry',
        'sherpa-host',
        'worker-entry',
      ]),
    );
    for (const name of ['main', 'admin', 'models', ...entries]) {
      const text = await fs.readFile(path.join(outdir, `${name}.mjs`), 'utf8');
      expect(text, name).not.toMatch(/(?:from|import)\s*\(?\s*["']tsx(?:\/[^"']*)?["']/);
      expect(text, name).not.toMatch(/\.ts["']\s*\)/);
    }
    // The thread entries are the compiled TypeScript, not the development shims that register tsx.
    expect(await fs.readFile(path.join(outdir, 'worker-entry.mjs'), 'utf8')).toContain('parentPort');
  });

  it('is current right after building, and stale once it is older than a source or an entry is missing', async () => {
    const other = path.join(root, 'apps/server/dist', `test-${randomBytes(4).toString('hex')}`);
    try {
      expect(serverBuildIsCurrent(other)).toBe(false);
      await buildServer({ outdir: other, quiet: true });
      expect(serverBuildIsCurrent(other)).toBe(true);
      const stamp = path.join(other, 'build.json');
      await fs.utimes(stamp, new Date(0), new Date(0));
      expect(serverBuildIsCurrent(other)).toBe(false);
      const now = new Date();
      await fs.utimes(stamp, now, now);
      expect(serverBuildIsCurrent(other)).toBe(true);
      await fs.rm(path.join(other, 'flite-host.mjs'));
      expect(serverBuildIsCurrent(other)).toBe(false);
      // A rebuild replaces its own files and removes those it no longer makes, and nothing else.
      await fs.writeFile(path.join(other, 'kept.txt'), 'not the build');
      await fs.writeFile(path.join(other, 'gone.mjs'), 'an old output');
      const listed = JSON.parse(await fs.readFile(stamp, 'utf8')) as { outputs: string[] };
      await fs.writeFile(stamp, JSON.stringify({ ...listed, outputs: [...listed.outputs, 'gone.mjs'] }));
      await buildServer({ outdir: other, quiet: true });
      expect(serverBuildIsCurrent(other)).toBe(true);
      expect(await fs.readFile(path.join(other, 'kept.txt'), 'utf8')).toBe('not the build');
      await expect(fs.access(path.join(other, 'gone.mjs'))).rejects.toThrow();
      await fs.access(path.join(other, 'flite-host.mjs'));
      await fs.writeFile(stamp, '{ not json');
      expect(serverBuildIsCurrent(other)).toBe(false);
    } finally {
      await fs.rm(other, { recursive: true, force: true });
    }
  });

  it('npm start (scripts/start.mjs) runs the compiled server with plain node', async () => {
    const dataDir = await fs.mkdtemp(path.join(work, 'data-start-'));
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(root, 'scripts/start.mjs')], {
      cwd: dataDir,
      env: {
        ...childEnv(),
        PORT: String(port),
        DATA_DIR: dataDir,
        WEB_DIST: path.join(dataDir, 'none'),
        GUIDE_DIST: path.join(dataDir, 'none'),
        SPEECH_WARMUP: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      for (const end = Date.now() + START_DEADLINE_MS; ;) {
        if (child.exitCode !== null || Date.now() > end) throw new Error(`npm start did not serve: ${out}`);
        const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const [server] = await childCommandLines(child.pid!);
      // Plain node with the server's V8 flags (scripts/node-flags.mjs), no loader.
      expect(server).toBe(
        `${process.execPath} ${[...SERVER_NODE_FLAGS, path.join(root, 'apps/server/dist/main.mjs')].join(' ')} `,
      );
      expect(SERVER_NODE_FLAGS).toContain('--max-semi-space-size=64');
      expect(serverBuildIsCurrent()).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    }
  });

  it.each(DIALECTS)(
    'runs with plain node on %s: signs in, speaks real mp3 through its worker threads and the Flite and sherpa-onnx helpers, measures a sample, and never loads tsx',
    async (dialect) => {
      const database = dialect === 'postgres' ? await createPgDatabase() : null;
      const dataDir = await fs.mkdtemp(path.join(work, `data-${dialect}-`));
      const hooks = path.join(dataDir, 'hooks.mjs');
      const loaded = path.join(dataDir, 'loaded.txt');
      await fs.writeFile(hooks, HOOKS);
      await fs.writeFile(loaded, '');
      const probe = path.join(dataDir, 'probe.mjs');
      await fs.writeFile(
        probe,
        `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { file: ${JSON.stringify(loaded)} } });\n`,
      );
      const port = await freePort();
      const child: ChildProcess = spawn(
        process.execPath,
        ['--import', pathToFileURL(probe).href, path.join(outdir, 'main.mjs')],
        {
          cwd: dataDir,
          env: {
            ...childEnv(),
            LOG_LEVEL: 'info',
            PORT: String(port),
            DATA_DIR: dataDir,
            WEB_DIST: path.join(dataDir, 'none'),
            PREVIEW_PRERENDER: 'false',
            MODELS_DIR: path.join(work, 'models'),
            // One engine thread (and the interactive lane) is enough here, and kinder to a shared CI machine.
            SPEECH_WORKERS: '1',
            ...(database ? { DATABASE_URL: database.url } : {}),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout?.on('data', (d) => (out += d));
      child.stderr?.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const url = `http://127.0.0.1:${port}`;
      try {
        for (const end = Date.now() + START_DEADLINE_MS; !out.includes('Polyvox is ready');) {
          if (child.exitCode !== null || Date.now() > end) throw new Error(`the compiled server did not start: ${out}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ status: 'ok', database: dialect });

        const anon = await fetch(`${url}/accounts/anonymous`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ device: { udid: `web-build-${dialect}`, model: 'x', brand: 'other', os: 'other' } }),
        });
        expect(anon.status).toBe(201);
        const { sid } = (await anon.json()) as { sid: string };
        const tts = (body: Record<string, unknown>) =>
          fetch(`${url}/tts`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-sid': sid },
            body: JSON.stringify(body),
          });

        // Whole file: the pool's worker thread (dist/worker-entry.mjs).
        const whole = await tts({ text: 'The compiled server speaks.', voice_id: 'voice_espeak.en-us', format: 'mp3' });
        expect(whole.status).toBe(200);
        expect(whole.headers.get('content-type')).toBe('audio/mpeg');
        const mp3 = Buffer.from(await whole.arrayBuffer());
        expect(mp3.length).toBeGreaterThan(2000);
        // After the ID3v2 tag (its AIGC label and C2PA manifest), the first frame.
        const frame = id3Size(mp3);
        expect(mp3[frame]).toBe(0xff);
        expect(mp3[frame + 1]! & 0xe0).toBe(0xe0); // an MPEG frame sync
        expect(Number(whole.headers.get('x-credits-charged'))).toBeGreaterThan(0);
        // The public check searches a few seconds of speech in the detection thread (dist/detect-entry.mjs) and validates
        // the manifest in the C2PA reading thread (dist/c2pa-read-entry.mjs).
        const longer = await tts({
          text: 'The compiled server speaks, and the public check finds its mark in the sound itself. '.repeat(2),
          voice_id: 'voice_espeak.en-us',
          format: 'mp3',
        });
        const checkForm = new FormData();
        checkForm.append('file', new Blob([await longer.arrayBuffer()]), 'compiled.mp3');
        const checked = await fetch(`${url}/provenance/verify`, { method: 'POST', body: checkForm });
        expect(checked.status).toBe(200);
        const verdict = (await checked.json()) as { watermark: { detected: boolean }; c2pa: { valid: boolean } | null };
        expect(verdict.watermark.detected).toBe(true);
        expect(verdict.c2pa?.valid).toBe(true);

        // Streamed: the encoder thread (dist/encoder-entry.mjs).
        const streamed = await tts({
          text: 'One sentence first. Then another one, streamed as it is made.',
          voice_id: 'voice_espeak.en-us',
          format: 'mp3',
          stream: true,
        });
        expect(streamed.status).toBe(200);
        expect((await streamed.arrayBuffer()).byteLength).toBeGreaterThan(2000);

        // Flite runs in a forked helper process (dist/flite-host.mjs).
        const flite = await tts({ text: 'Flite from the build.', voice_id: 'voice_flite.slt', format: 'wav' });
        expect(flite.status).toBe(200);
        const wav = Buffer.from(await flite.arrayBuffer());
        expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
        expect(wav.length).toBeGreaterThan(10_000);
        // sherpa-onnx runs in its own helper process (dist/sherpa-host.mjs).
        const neural = await tts({ text: 'A tiny model speaks.', voice_id: 'voice_sherpa.tiny-vits.0', format: 'wav' });
        expect(neural.status).toBe(200);
        const neuralWav = Buffer.from(await neural.arrayBuffer());
        expect(neuralWav.subarray(0, 4).toString('latin1')).toBe('RIFF');
        expect(neuralWav.length).toBeGreaterThan(1000);
        const helpers = await childCommandLines(child.pid!);
        expect(helpers.some((c) => c.includes(path.join(outdir, 'flite-host.mjs')))).toBe(true);
        expect(helpers.some((c) => c.includes(path.join(outdir, 'sherpa-host.mjs')))).toBe(true);
        for (const c of helpers) expect(c).not.toMatch(/tsx/);

        // A voice sample is measured in the analysis thread (dist/measure-entry.mjs).
        const form = new FormData();
        form.append('consent', 'true');
        form.append('file', new Blob([new Uint8Array(readFileSync(JFK_WAV))], { type: 'audio/wav' }), 'jfk.wav');
        const upload = await fetch(`${url}/files_upload?type=clone`, { method: 'POST', headers: { 'x-sid': sid }, body: form });
        expect(upload.status).toBe(201);
        expect(((await upload.json()) as { duration: number }).duration).toBeGreaterThan(10);

        // A wrong request to the compiled build still answers with the contract's error.
        const bad = await tts({ text: '', voice_id: 'voice_espeak.en-us' });
        expect(bad.status).toBe(400);
        expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');

        const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
        expect(cmdline.join(' ')).not.toMatch(/tsx/);
        const modules = (await fs.readFile(loaded, 'utf8')).split('\n').filter(Boolean);
        expect(modules).toContain(pathToFileURL(path.join(outdir, 'main.mjs')).href);
        expect(modules.some((m) => m.includes('better-sqlite3') || m.includes('/pg/'))).toBe(true);
        expect(modules.filter((m) => /[/\\]tsx[/\\]|\.ts$/.test(m))).toEqual([]);

        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect(out).toContain('shutting down');

        // The admin CLI runs compiled too, against the same database.
        const env = {
          ...childEnv(),
          DATA_DIR: dataDir,
          ...(database ? { DATABASE_URL: database.url } : {}),
        };
        const usage = spawnSync(process.execPath, [path.join(outdir, 'admin.mjs')], { env, encoding: 'utf8' });
        expect(usage.status).toBe(2);
        expect(usage.stderr + usage.stdout).toContain('Usage:');
        const refused = spawnSync(process.execPath, [path.join(outdir, 'admin.mjs'), 'grant', 'nobody@example.com', '5'], {
          env,
          encoding: 'utf8',
        });
        expect(refused.status).toBe(1);
        // And the models CLI: it finds its catalogue from the build.
        const list = spawnSync(process.execPath, [path.join(outdir, 'models.mjs'), 'list'], {
          env: { ...env, MODELS_DIR: dataDir },
          encoding: 'utf8',
        });
        expect(list.stderr).toBe('');
        expect(list.stdout).toMatch(/^ {2}kokoro-multi-lang-v1_0 {2}kokoro /m);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        await exited;
        await database?.drop();
      }
    },
    // Two engines warm up and a sample is measured on a machine the other test files share.
    120_000,
  );
});
