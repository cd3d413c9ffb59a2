/**
 * `--only start`: the server started from the compiled build (plain node with the server's V8 flags,
 * apps/server/dist) against the TypeScript sources through tsx, interleaved: time from spawn to the "ready" log line, to the
 * first 200 on /healthz and to "speech engines ready", and the process's resident memory once the
 * engines are up and after one synthesis.
 *
 * Then, on a fresh compiled server each run, the first streamed request once /readyz says ready: its first byte against
 * a whole one-sentence file (`--only first-stream` runs these rows alone).
 *
 * `--only sizing`: syntheses per second on one worker core by engine (a pool of one thread, one
 * request at a time, ~100 characters to mp3), the figure docs/deploy.md sizes workers with.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSpeech } from '@polyvox/speech';
import { buildServer, serverBuildIsCurrent } from '../scripts/build-server.mjs';
import { SERVER_NODE_FLAGS } from '../scripts/node-flags.mjs';
import { freePort } from './server.js';
import { median } from './stats.js';

const root = path.resolve(import.meta.dirname, '..');

interface Row {
  metric: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
}

interface StartSample {
  readyMs: number;
  healthzMs: number;
  enginesMs: number;
  rssStartMb: number;
  rssAfterMb: number;
}

async function rssMb(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function startOnce(mode: 'compiled' | 'tsx'): Promise<StartSample> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-bench-start-'));
  const port = await freePort();
  const args =
    mode === 'compiled'
      ? [...SERVER_NODE_FLAGS, path.join(root, 'apps/server/dist/main.mjs')]
      : ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      WEB_DIST: path.join(dataDir, 'none'),
      PREVIEW_PRERENDER: 'false',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const seen = new Map<string, number>();
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (const line of ['Polyvox is ready', 'speech engines ready'])
      if (!seen.has(line) && out.includes(line)) seen.set(line, performance.now() - t0);
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    let healthzMs = -1;
    for (let i = 0; healthzMs < 0; i++) {
      if (child.exitCode !== null || i > 6000) throw new Error(`the ${mode} server did not start`);
      try {
        if ((await fetch(`${url}/healthz`)).ok) healthzMs = performance.now() - t0;
      } catch {
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    while (!seen.has('speech engines ready')) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 500));
    const rssStartMb = await rssMb(child.pid!);
    const anon = (await (
      await fetch(`${url}/accounts/anonymous`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ device: { udid: `web-bench-start-${mode}`, model: 'bench', brand: 'other', os: 'other' } }),
      })
    ).json()) as { sid: string };
    const res = await fetch(`${url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': anon.sid },
      body: JSON.stringify({ text: 'The morning train left the station slowly.', voice_id: 'voice_espeak.en-us', format: 'mp3' }),
    });
    if (!res.ok) throw new Error(`POST /tts ${res.status}`);
    await res.arrayBuffer();
    const rssAfterMb = await rssMb(child.pid!);
    return {
      readyMs: seen.get('Polyvox is ready')!,
      healthzMs,
      enginesMs: seen.get('speech engines ready')!,
      rssStartMb,
      rssAfterMb,
    };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

interface FirstStreamSample {
  readyzMs: number;
  firstStreamByteMs: number;
  wholeMs: number;
  warmStreamByteMs: number;
  warmWholeMs: number;
}

/** Time to the first byte of a response (headers and one chunk of the body), then its remainder read. */
async function firstByte(url: string, sid: string, body: unknown): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/tts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sid': sid },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST /tts ${res.status}`);
  const reader = res.body!.getReader();
  const first = await reader.read();
  const ms = performance.now() - t0;
  if (first.done) throw new Error('empty response');
  while (!(await reader.read()).done);
  return ms;
}

async function wholeFile(url: string, sid: string, text: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/tts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sid': sid },
    body: JSON.stringify({ text, voice_id: 'voice_espeak.en-us', format: 'mp3' }),
  });
  if (!res.ok) throw new Error(`POST /tts ${res.status}`);
  await res.arrayBuffer();
  return performance.now() - t0;
}

/**
 * The first streamed request a freshly started compiled server serves, once its /readyz says ready: its first byte
 * against a whole one-sentence file made right after it; then the same pair again, warm. Each text is new (no cache hit).
 */
async function firstStreamOnce(run: number): Promise<FirstStreamSample> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-bench-first-'));
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, path.join(root, 'apps/server/dist/main.mjs')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      WEB_DIST: path.join(dataDir, 'none'),
      PREVIEW_PRERENDER: 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    let readyzMs = -1;
    for (let i = 0; readyzMs < 0; i++) {
      if (child.exitCode !== null || i > 12000) throw new Error('the compiled server did not become ready');
      try {
        if ((await fetch(`${url}/readyz`)).ok) readyzMs = performance.now() - t0;
        else await new Promise((r) => setTimeout(r, 5));
      } catch {
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    const anon = (await (
      await fetch(`${url}/accounts/anonymous`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ device: { udid: `web-bench-first-${run}`, model: 'bench', brand: 'other', os: 'other' } }),
      })
    ).json()) as { sid: string };
    const stream = (text: string) =>
      firstByte(url, anon.sid, { text, voice_id: 'voice_espeak.en-us', format: 'mp3', stream: true });
    const firstStreamByteMs = await stream(`The first stream of run ${run} begins here. It goes on for a second sentence.`);
    const wholeMs = await wholeFile(url, anon.sid, `A whole sentence for run ${run}, spoken once.`);
    const warmStreamByteMs = await stream(`Another stream of run ${run} begins here. It also has a second sentence.`);
    const warmWholeMs = await wholeFile(url, anon.sid, `Another whole sentence for run ${run}, spoken once.`);
    return { readyzMs, firstStreamByteMs, wholeMs, warmStreamByteMs, warmWholeMs };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

/** `--only first-stream`: the first-stream rows of `--only start` alone. */
export async function firstStreamBenchRows(runs = 5): Promise<Row[]> {
  if (!serverBuildIsCurrent()) await buildServer({ quiet: true });
  const first: FirstStreamSample[] = [];
  for (let i = 0; i < runs; i++) first.push(await firstStreamOnce(i));
  return firstStreamRows(first);
}

function firstStreamRows(samples: FirstStreamSample[]): Row[] {
  const runs = samples.length;
  const m = (k: keyof FirstStreamSample) => median(samples.map((s) => s[k]));
  const ratio = (a: keyof FirstStreamSample, b: keyof FirstStreamSample) => median(samples.map((s) => s[a] / s[b]));
  return [
    { metric: `first stream: spawn to 200 on /readyz, compiled (median of ${runs})`, value: m('readyzMs'), unit: 'ms' },
    { metric: `first stream after /readyz: first byte (median of ${runs})`, value: m('firstStreamByteMs'), unit: 'ms' },
    {
      metric: `first stream after /readyz: the whole one-sentence file after it (median of ${runs})`,
      value: m('wholeMs'),
      unit: 'ms',
    },
    {
      metric: 'first stream after /readyz: first byte ÷ whole one-sentence file',
      value: ratio('firstStreamByteMs', 'wholeMs'),
      unit: '×',
      target: '≤ 1',
      pass: ratio('firstStreamByteMs', 'wholeMs') <= 1,
    },
    { metric: 'warm stream: first byte ÷ whole one-sentence file', value: ratio('warmStreamByteMs', 'warmWholeMs'), unit: '×' },
  ];
}

export async function startRows(runs = 5): Promise<Row[]> {
  let buildMs = -1;
  if (!serverBuildIsCurrent()) buildMs = (await buildServer({ quiet: true })).ms;
  const samples: Record<'compiled' | 'tsx', StartSample[]> = { compiled: [], tsx: [] };
  // One unmeasured start each first (tsx fills its transform cache, the OS its file cache), then interleaved.
  await startOnce('tsx');
  await startOnce('compiled');
  for (let i = 0; i < runs; i++) {
    for (const mode of i % 2 ? (['tsx', 'compiled'] as const) : (['compiled', 'tsx'] as const)) {
      samples[mode].push(await startOnce(mode));
    }
  }
  const m = (mode: 'compiled' | 'tsx', k: keyof StartSample) => median(samples[mode].map((s) => s[k]));
  const rows: Row[] = [];
  const pairs: [keyof StartSample, string, string][] = [
    ['readyMs', 'start: spawn to "ready" log line', 'ms'],
    ['healthzMs', 'start: spawn to first 200 on /healthz', 'ms'],
    ['enginesMs', 'start: spawn to "speech engines ready"', 'ms'],
    ['rssStartMb', 'RSS once the engines are up', 'MB'],
    ['rssAfterMb', 'RSS after one synthesis', 'MB'],
  ];
  for (const [k, label, unit] of pairs) {
    rows.push({ metric: `${label}, compiled (median of ${runs})`, value: m('compiled', k), unit });
    rows.push({ metric: `${label}, tsx (median of ${runs})`, value: m('tsx', k), unit });
  }
  rows.push({
    metric: 'start to "ready": compiled vs tsx',
    value: m('tsx', 'readyMs') / m('compiled', 'readyMs'),
    unit: '× faster',
  });
  // A freshly started server per run: only its first stream is cold.
  const first: FirstStreamSample[] = [];
  for (let i = 0; i < runs; i++) first.push(await firstStreamOnce(i));
  rows.push(...firstStreamRows(first));
  if (buildMs >= 0) rows.push({ metric: 'esbuild: the whole server build', value: buildMs, unit: 'ms' });
  return rows;
}

const SENTENCE = 'The morning train left the station slowly, carrying travellers towards the distant mountains.';

export async function sizingRows(): Promise<Row[]> {
  const speech = await createSpeech({ cache: false, poolSize: 1 });
  const rows: Row[] = [];
  try {
    const cases = [
      { label: 'eSpeak NG (en-us)', voiceId: 'espeak:en-us', runs: 30 },
      { label: 'Flite (slt)', voiceId: 'flite:slt', runs: 15 },
      { label: 'GnuSpeech (male)', voiceId: 'gnuspeech:male', runs: 8 },
    ];
    for (const c of cases) {
      if (!speech.getVoice(c.voiceId)) continue;
      await speech.synthesize({ text: `${SENTENCE} warm`, voiceId: c.voiceId, format: 'mp3' });
      let audio = 0;
      const t0 = performance.now();
      for (let i = 0; i < c.runs; i++) {
        const r = await speech.synthesize({ text: `${SENTENCE} ${i}`, voiceId: c.voiceId, format: 'mp3' });
        audio += r.durationSec;
      }
      const s = (performance.now() - t0) / 1000;
      rows.push({
        metric: `syntheses per second per worker core, ${c.label}, ~100 chars to mp3 (${(audio / c.runs).toFixed(1)} s audio each)`,
        value: c.runs / s,
        unit: '/s',
      });
      rows.push({ metric: `audio seconds made per second per worker core, ${c.label}`, value: audio / s, unit: '× real time' });
    }
  } finally {
    await speech.close();
  }
  return rows;
}
