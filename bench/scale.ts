/**
 * Scale-out rows (`npm run bench -- --only scale`): synthesis throughput with one worker process and
 * with two (each one engine thread), the queue's overhead per request (first byte of a stream through
 * the queue against the same request on an embedded server) and the API's p99 while the workers are
 * saturated. One API process (ROLE=api) on a fresh PostgreSQL database and Redis under a prefix of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startServer as startEmbedded } from './server.js';
import { median, quantile } from './stats.js';
import { waitUntilReady } from './wait.js';
import { freePort } from './server.js';

const root = path.resolve(import.meta.dirname, '..');
const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const VOICE = 'voice_espeak.en-us';
const SENTENCE = 'The morning train left the station slowly, carrying travellers towards the distant mountains.';
/** One request of the throughput rows: three sentences, a whole mp3 file. */
const WORK = `${SENTENCE} ${SENTENCE.replace('morning', 'evening')} ${SENTENCE.replace('train', 'coach')}`;

export interface ScaleRow {
  metric: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
}

async function start(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn', PREVIEW_PRERENDER: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(url, 600);
  return { url, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

async function post(url: string, sid: string, body: Record<string, unknown>): Promise<{ firstByteMs: number; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/tts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sid': sid },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST /tts ${res.status}: ${await res.text()}`);
  let firstByteMs = -1;
  for await (const chunk of res.body!) {
    if (firstByteMs < 0 && chunk.length > 0) firstByteMs = performance.now() - t0;
  }
  return { firstByteMs, ms: performance.now() - t0 };
}

/** CPU seconds a process has used so far (Linux /proc: user + system). */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Syntheses per second with `parallel` requests in flight, `total` in all (distinct texts: no cache hits). */
async function throughput(
  url: string,
  sid: string,
  total: number,
  parallel: number,
  tag: string,
  work: { voice: string; text: string; format: 'mp3' | 'wav' } = { voice: VOICE, text: WORK, format: 'mp3' },
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < total) {
        const i = next++;
        await post(url, sid, { text: `${work.text} Run ${tag} ${i}.`, voice_id: work.voice, format: work.format });
      }
    }),
  );
  return total / ((performance.now() - t0) / 1000);
}

/**
 * The engine-bound workload: GnuSpeech's articulatory synthesis; as WAV nearly all of it is the engine thread,
 * as mp3 the encoder thread works beside it, so one worker process keeps more than one core busy.
 */
const HEAVY = { voice: 'voice_gnuspeech.male', text: SENTENCE, format: 'wav' as const };
const HEAVY_MP3 = { ...HEAVY, format: 'mp3' as const };

export async function scaleRows(): Promise<ScaleRow[]> {
  const name = `polyvox_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const dbUrl = new URL(PG_ADMIN);
  dbUrl.pathname = `/${name}`;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-bench-scale-'));
  const run = Math.random().toString(36).slice(2, 10);
  const common = {
    DATA_DIR: dataDir,
    WEB_DIST: path.join(dataDir, 'none'),
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL,
    REDIS_PREFIX: `polyvox-bench-${run}:`,
    QUEUE_PREFIX: `polyvox-bench-${run}`,
    SECRET: `bench-scale-secret-${run}`,
  };
  const children: ChildProcess[] = [];
  const rows: ScaleRow[] = [];
  try {
    const api = await start({ ...common, ROLE: 'api' });
    children.push(api.child);
    // A worker takes work once its engines are up: wait for that, so no row measures a warm-up.
    const worker = async (n: number) => {
      const w = await start({ ...common, ROLE: 'worker', SPEECH_WORKERS: '1', QUEUE_CONCURRENCY: String(n) });
      for (let i = 0; i < 1200; i++) {
        const health = (await (await fetch(`${w.url}/healthz`)).json()) as { taking_work?: boolean };
        if (health.taking_work) return w;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the worker never took work');
    };
    const w1 = await worker(2);
    children.push(w1.child);

    // An account with plenty of credits.
    const anon = (await (
      await fetch(`${api.url}/accounts/anonymous`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ device: { udid: 'web-bench-scale', model: 'bench', brand: 'other', os: 'other' } }),
      })
    ).json()) as { sid: string; account: { id: string } };
    const db = new pg.Client({ connectionString: dbUrl.toString() });
    await db.connect();
    await db.query('UPDATE accounts SET credits = credits + 10000000 WHERE id = $1', [anon.account.id]);
    await db.end();
    const sid = anon.sid;

    // Warm both paths, then the queue's overhead: a one-sentence stream's first byte, idle.
    await post(api.url, sid, { text: 'Warming up.', voice_id: VOICE, format: 'mp3', stream: true });
    const queued: number[] = [];
    for (let i = 0; i < 15; i++) {
      queued.push(
        (await post(api.url, sid, { text: `First byte ${i}, through the queue.`, voice_id: VOICE, format: 'mp3', stream: true }))
          .firstByteMs,
      );
    }
    const embedded = await startEmbedded();
    const direct: number[] = [];
    try {
      await post(embedded.url, embedded.sid, { text: 'Warming up.', voice_id: VOICE, format: 'mp3', stream: true });
      for (let i = 0; i < 15; i++) {
        direct.push(
          (
            await post(embedded.url, embedded.sid, {
              text: `First byte ${i}, through the queue.`,
              voice_id: VOICE,
              format: 'mp3',
              stream: true,
            })
          ).firstByteMs,
        );
      }
    } finally {
      await embedded.stop();
    }
    rows.push({
      metric: `queue overhead per request: stream first byte ${median(queued).toFixed(1)} ms queued vs ${median(direct).toFixed(1)} ms embedded`,
      value: median(queued) - median(direct),
      unit: 'ms',
    });

    // Where each request's CPU goes with one worker: the API process's share is what a second worker cannot take.
    const cpu0 = { api: await cpuSeconds(api.child.pid!), worker: await cpuSeconds(w1.child.pid!) };
    const one = await throughput(api.url, sid, 24, 4, 'one');
    const cpu1 = { api: await cpuSeconds(api.child.pid!), worker: await cpuSeconds(w1.child.pid!) };
    await post(api.url, sid, { text: 'Warming GnuSpeech.', voice_id: HEAVY.voice, format: 'mp3' });
    const heavyOne = await throughput(api.url, sid, 12, 4, 'heavy-one', HEAVY);
    const heavyMp3One = await throughput(api.url, sid, 12, 4, 'heavy-mp3-one', HEAVY_MP3);
    const w2 = await worker(2);
    children.push(w2.child);
    await post(api.url, sid, { text: 'Warming the second worker.', voice_id: VOICE, format: 'mp3' });
    await post(api.url, sid, { text: 'Warming GnuSpeech again.', voice_id: HEAVY.voice, format: 'mp3' });
    await post(api.url, sid, { text: 'Warming GnuSpeech once more.', voice_id: HEAVY.voice, format: 'mp3' });
    const two = await throughput(api.url, sid, 24, 4, 'two');
    const heavyTwo = await throughput(api.url, sid, 12, 4, 'heavy-two', HEAVY);
    const heavyMp3Two = await throughput(api.url, sid, 12, 4, 'heavy-mp3-two', HEAVY_MP3);
    const perRequest = (k: 'api' | 'worker') => ((cpu1[k] - cpu0[k]) / 24) * 1000;
    rows.push({
      metric: `throughput, eSpeak, 1 worker process (1 engine thread); CPU per request: worker ${perRequest('worker').toFixed(0)} ms, API process ${perRequest('api').toFixed(0)} ms`,
      value: one,
      unit: 'syntheses/s (3 sentences, mp3)',
    });
    rows.push({
      metric: 'throughput, eSpeak, 2 worker processes (1 engine thread each)',
      value: two,
      unit: 'syntheses/s (3 sentences, mp3)',
    });
    rows.push({ metric: 'throughput ratio, eSpeak (request overhead bound), 2 workers / 1', value: two / one, unit: '×' });
    rows.push({
      metric: 'throughput, GnuSpeech mp3, 1 worker process',
      value: heavyMp3One,
      unit: 'syntheses/s (1 sentence, mp3)',
    });
    rows.push({
      metric: 'throughput, GnuSpeech mp3, 2 worker processes',
      value: heavyMp3Two,
      unit: 'syntheses/s (1 sentence, mp3)',
    });
    rows.push({
      metric: 'throughput ratio, GnuSpeech mp3 (an engine and an encoder thread busy per worker), 2 workers / 1',
      value: heavyMp3Two / heavyMp3One,
      unit: '×',
    });
    rows.push({
      metric: 'throughput, GnuSpeech wav, 1 worker process (1 engine thread)',
      value: heavyOne,
      unit: 'syntheses/s (1 sentence, wav)',
    });
    rows.push({
      metric: 'throughput, GnuSpeech wav, 2 worker processes (1 engine thread each)',
      value: heavyTwo,
      unit: 'syntheses/s (1 sentence, wav)',
    });
    rows.push({
      metric: 'throughput ratio, GnuSpeech wav (one busy engine thread per worker), 2 workers / 1',
      value: heavyTwo / heavyOne,
      unit: '×',
      target: '≥ 1.8',
      pass: heavyTwo / heavyOne >= 1.8,
    });

    // The API's latency while both workers are saturated (a cheap authenticated read).
    let busy = true;
    const load = Promise.all(
      Array.from({ length: 4 }, async (_, k) => {
        for (let i = 0; busy; i++) await post(api.url, sid, { text: `${WORK} Load ${k} ${i}.`, voice_id: VOICE, format: 'mp3' });
      }),
    );
    await new Promise((r) => setTimeout(r, 1000));
    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      const res = await fetch(`${api.url}/accounts/me`, { headers: { 'x-sid': sid } });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
    }
    busy = false;
    await load;
    rows.push({
      metric: `API p99 while workers are saturated (GET /accounts/me, median ${median(latencies).toFixed(1)} ms)`,
      value: quantile(latencies, 0.99),
      unit: 'ms',
    });
  } finally {
    for (const child of children.reverse()) await stop(child);
    await fs.rm(dataDir, { recursive: true, force: true });
    const c = new pg.Client({ connectionString: PG_ADMIN });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  }
  return rows;
}
