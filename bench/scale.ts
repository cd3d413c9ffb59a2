/**
 * Scale-out rows (`npm run bench -- --only scale`): synthesis throughput with one worker process and
 * with two (each one engine thread), the queue's overhead per request (first byte of a stream through
 * the queue against the same request on an embedded server) and the API's p99 while the workers are
 * saturated. One API process (ROLE=api) on a fresh PostgreSQL database and Redis under a prefix of its own.
 *
 * The processes run as in production: the compiled build with the server's V8 flags (scripts/node-flags.mjs).
 * The client is plain `node:http` with keep-alive, the cheapest a caller can be, since it shares the two
 * cores with the processes under test. Throughput is measured in rounds (one worker, then a second worker
 * started beside it, then stopped again) after a warm-up, and each ratio is the median of the rounds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildServer, serverBuildIsCurrent } from '../scripts/build-server.mjs';
import { SERVER_NODE_FLAGS } from '../scripts/node-flags.mjs';
import { startServer as startEmbedded } from './server.js';
import { median, quantile } from './stats.js';
import { waitUntilReady } from './wait.js';
import { freePort } from './server.js';

const root = path.resolve(import.meta.dirname, '..');
const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const VOICE = 'voice_espeak.en-us';
const SENTENCE = 'The morning train left the station slowly, carrying travellers towards the distant mountains.';
/** Three sentences: the eSpeak request of the throughput rows. */
const WORK = `${SENTENCE} ${SENTENCE.replace('morning', 'evening')} ${SENTENCE.replace('train', 'coach')}`;
/** `SCALE_NODE_FLAGS="…"` runs the processes with other V8 flags (an empty string: none), to compare. */
const NODE_FLAGS =
  process.env.SCALE_NODE_FLAGS !== undefined ? process.env.SCALE_NODE_FLAGS.split(' ').filter(Boolean) : SERVER_NODE_FLAGS;
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 5);
/**
 * Cheap requests before anything is measured, so the API's and the workers' code is as compiled as in a server that
 * has run a while (V8 optimizes a function only after many calls); a second worker gets a quarter as many.
 */
const WARM_REQUESTS = Number(process.env.SCALE_WARM ?? 800);
/**
 * Requests in flight during a throughput run: twice the slots of two workers (2 × QUEUE_CONCURRENCY 2), so the queue
 * always holds work. With exactly as many as the slots, each answer leaves a slot empty until its caller's next
 * request arrives, and a worker holding two jobs on its one engine thread can leave the other worker idle.
 */
const IN_FLIGHT = 8;

export interface ScaleRow {
  metric: string;
  value: number;
  unit: string;
  target?: string;
  pass?: boolean;
}

interface Work {
  voice: string;
  text: string;
  format: 'mp3' | 'wav';
}

/** GnuSpeech's articulatory synthesis as WAV: nearly all of a request is its one engine thread. */
const HEAVY: Work = { voice: 'voice_gnuspeech.male', text: SENTENCE, format: 'wav' };
/** The same as mp3: the encoder thread works beside the engine thread. */
const HEAVY_MP3: Work = { ...HEAVY, format: 'mp3' };
/** Three sentences of GnuSpeech as WAV: a paragraph rather than a sentence per request. */
const HEAVY_PARAGRAPH: Work = { ...HEAVY, text: WORK };
/** eSpeak: the engine is cheap next to the rest of a request (encoding, queue, ledger), so this is overhead-bound. */
const LIGHT: Work = { voice: VOICE, text: WORK, format: 'mp3' };

/** One server process of the compiled build (ROLE in `env`), up and ready. */
export async function start(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, path.join(root, 'apps/server/dist/main.mjs')], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn', PREVIEW_PRERENDER: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(url, 600);
  return { url, child };
}

/** Stops a process started by `start` and waits for it. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

/** POST /tts, reading the whole answer; the first byte's time is taken as it arrives. */
function post(url: string, sid: string, body: Record<string, unknown>): Promise<{ firstByteMs: number; ms: number }> {
  const data = JSON.stringify(body);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/tts`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'x-sid': sid },
      },
      (res) => {
        if (res.statusCode !== 200) {
          const errorBody: Buffer[] = [];
          res.on('data', (chunk: Buffer) => errorBody.push(chunk));
          res.on('end', () => reject(new Error(`POST /tts ${res.statusCode}: ${Buffer.concat(errorBody).toString()}`)));
          return;
        }
        // The bytes are read and dropped (no listener per chunk once the first has come): the client's own
        // CPU counts against the two cores the processes under test share.
        let firstByteMs = -1;
        res.once('data', () => {
          firstByteMs = performance.now() - t0;
          res.resume();
        });
        res.once('end', () =>
          firstByteMs < 0 ? reject(new Error('POST /tts: no audio')) : resolve({ firstByteMs, ms: performance.now() - t0 }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** Per-thread CPU seconds of a process (Linux /proc: user + system). */
async function threadCpu(pid: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const tid of await fs.readdir(`/proc/${pid}/task`).catch(() => [])) {
    const stat = await fs.readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    if (!stat) continue;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, (Number(f[11]) + Number(f[12])) / 100);
  }
  return out;
}

/** CPU seconds of every process whose command is `name` (PostgreSQL's backends, Redis), by pid. */
async function cpuByName(name: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const pid of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (!stat.includes(`(${name})`)) continue;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(pid, (Number(f[11]) + Number(f[12])) / 100);
  }
  return out;
}

const sum = (xs: Iterable<number>) => [...xs].reduce((a, b) => a + b, 0);
/** CPU used between two readings; a process or thread that appeared in between counts from zero. */
const used = (before: Map<string, number>, after: Map<string, number>) =>
  sum([...after].map(([k, v]) => Math.max(0, v - (before.get(k) ?? 0))));

interface CpuSplit {
  api: number;
  engine: number;
  workerRest: number;
  postgres: number;
  redis: number;
  client: number;
}

/**
 * Syntheses per second with `parallel` requests in flight, `total` in all (distinct texts: no cache hits), in the steady state,
 * and where the CPU went per request (ms): each worker's busiest thread is its engine thread.
 */
async function throughput(
  url: string,
  sid: string,
  total: number,
  parallel: number,
  tag: string,
  work: Work,
  pids: { api: number; workers: number[] },
): Promise<{ rate: number; cpu: CpuSplit }> {
  const read = async () => ({
    api: await threadCpu(pids.api),
    workers: await Promise.all(pids.workers.map((p) => threadCpu(p))),
    postgres: await cpuByName('postgres'),
    redis: await cpuByName('redis-server'),
  });
  const before = await read();
  let next = 0;
  const clientBefore = process.cpuUsage();
  const done: number[] = [];
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < total) {
        const i = next++;
        await post(url, sid, { text: `${work.text} Run ${tag} ${i}.`, voice_id: work.voice, format: work.format });
        done.push(performance.now());
      }
    }),
  );
  // Steady state: from the `parallel`-th answer to the `parallel`-th last, so neither the ramp-up (workers not yet
  // all busy) nor the tail (the last answers, while the other workers have nothing left) counts.
  const from = parallel - 1;
  const to = total - parallel;
  const rate = (to - from) / ((done[to]! - done[from]!) / 1000);
  const client = process.cpuUsage(clientBefore);
  const after = await read();
  let engine = 0;
  let workerRest = 0;
  after.workers.forEach((threads, i) => {
    const byThread = [...threads].map(([tid, v]) => Math.max(0, v - (before.workers[i]!.get(tid) ?? 0)));
    const busiest = Math.max(0, ...byThread);
    engine += busiest;
    workerRest += sum(byThread) - busiest;
  });
  const per = (seconds: number) => (seconds / total) * 1000;
  return {
    rate,
    cpu: {
      api: per(used(before.api, after.api)),
      engine: per(engine),
      workerRest: per(workerRest),
      postgres: per(used(before.postgres, after.postgres)),
      redis: per(used(before.redis, after.redis)),
      client: per((client.user + client.system) / 1e6),
    },
  };
}

const describe = (c: CpuSplit) =>
  `engine threads ${c.engine.toFixed(0)}, rest of the workers ${c.workerRest.toFixed(1)}, API ${c.api.toFixed(1)}, ` +
  `PostgreSQL ${c.postgres.toFixed(1)}, Redis ${c.redis.toFixed(1)}, client ${c.client.toFixed(1)}`;

export async function scaleRows(): Promise<ScaleRow[]> {
  if (!serverBuildIsCurrent()) await buildServer({ quiet: true });
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
  const children = new Set<ChildProcess>();
  const rows: ScaleRow[] = [];
  try {
    const api = await start({ ...common, ROLE: 'api' });
    children.add(api.child);
    // A worker takes work once its engines are up: wait for that, so no row measures a warm-up.
    const worker = async () => {
      const w = await start({ ...common, ROLE: 'worker', SPEECH_WORKERS: '1', QUEUE_CONCURRENCY: '2' });
      children.add(w.child);
      for (let i = 0; i < 1200; i++) {
        const health = (await (await fetch(`${w.url}/healthz`)).json()) as { taking_work?: boolean };
        if (health.taking_work) return w;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the worker never took work');
    };
    const w1 = await worker();

    // An account with plenty of credits, on a plan that allows paragraphs.
    const anon = (await (
      await fetch(`${api.url}/accounts/anonymous`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ device: { udid: 'web-bench-scale', model: 'bench', brand: 'other', os: 'other' } }),
      })
    ).json()) as { sid: string; account: { id: string } };
    const db = new pg.Client({ connectionString: dbUrl.toString() });
    await db.connect();
    await db.query(
      'UPDATE accounts SET credits = credits + 10000000, records_balance = records_balance + 10000000 WHERE id = $1',
      [anon.account.id],
    );
    await db.end();
    const sid = anon.sid;

    // Warm-up: the API's and the workers' code paths compiled, every engine loaded, as in a server that has run a while.
    const warm = async (tag: string, count: number) => {
      let i = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (i < count) {
            const n = i++;
            await post(api.url, sid, { text: `Warming up ${tag} ${n}.`, voice_id: VOICE, format: n % 2 ? 'mp3' : 'wav' });
          }
        }),
      );
      for (const work of [HEAVY, HEAVY_MP3, HEAVY, HEAVY_MP3])
        await Promise.all(
          [0, 1].map((k) => post(api.url, sid, { text: `Warming ${tag} ${k}.`, voice_id: work.voice, format: work.format })),
        );
    };
    await warm('first', WARM_REQUESTS);

    // The queue's overhead: a one-sentence stream's first byte, idle, through the queue and on an embedded server.
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

    // Rounds: one worker, then a second one beside it, then the second stopped again.
    const workloads = [
      {
        key: 'heavy',
        work: HEAVY,
        total: 60,
        label: 'GnuSpeech wav (one busy engine thread per worker)',
        unit: '1 sentence, wav',
      },
      { key: 'paragraph', work: HEAVY_PARAGRAPH, total: 36, label: 'GnuSpeech wav, paragraphs', unit: '3 sentences, wav' },
      {
        key: 'mp3',
        work: HEAVY_MP3,
        total: 40,
        label: 'GnuSpeech mp3 (an engine and an encoder thread per worker)',
        unit: '1 sentence, mp3',
      },
      { key: 'light', work: LIGHT, total: 48, label: 'eSpeak mp3 (request overhead bound)', unit: '3 sentences, mp3' },
    ].filter((w) => !process.env.SCALE_WORKLOADS || process.env.SCALE_WORKLOADS.split(',').includes(w.key));
    const results = new Map<string, { one: number[]; two: number[]; ratio: number[]; cpuOne: CpuSplit[]; cpuTwo: CpuSplit[] }>(
      workloads.map((w) => [w.key, { one: [], two: [], ratio: [], cpuOne: [], cpuTwo: [] }]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const one = new Map<string, { rate: number; cpu: CpuSplit }>();
      for (const w of workloads)
        one.set(
          w.key,
          await throughput(api.url, sid, w.total, IN_FLIGHT, `one-${round}-${w.key}`, w.work, {
            api: api.child.pid!,
            workers: [w1.child.pid!],
          }),
        );
      const w2 = await worker();
      await warm(`second-${round}`, WARM_REQUESTS / 4);
      for (const w of workloads) {
        const two = await throughput(api.url, sid, w.total, IN_FLIGHT, `two-${round}-${w.key}`, w.work, {
          api: api.child.pid!,
          workers: [w1.child.pid!, w2.child.pid!],
        });
        const r = results.get(w.key)!;
        r.one.push(one.get(w.key)!.rate);
        r.two.push(two.rate);
        r.ratio.push(two.rate / one.get(w.key)!.rate);
        r.cpuOne.push(one.get(w.key)!.cpu);
        r.cpuTwo.push(two.cpu);
      }
      await stop(w2.child);
      children.delete(w2.child);
    }
    const medianCpu = (xs: CpuSplit[]): CpuSplit =>
      Object.fromEntries(
        Object.keys(xs[0]!).map((k) => [k, median(xs.map((x) => x[k as keyof CpuSplit]))]),
      ) as unknown as CpuSplit;
    for (const w of workloads) {
      const r = results.get(w.key)!;
      rows.push({
        metric: `throughput, ${w.label}, 1 worker process (1 engine thread)`,
        value: median(r.one),
        unit: `syntheses/s (${w.unit})`,
      });
      rows.push({
        metric: `throughput, ${w.label}, 2 worker processes (1 engine thread each)`,
        value: median(r.two),
        unit: `syntheses/s (${w.unit})`,
      });
      const ratio = median(r.ratio);
      rows.push({
        metric: `throughput ratio, ${w.label}, 2 workers / 1 (median of ${ROUNDS} rounds: ${r.ratio.map((x) => x.toFixed(2)).join(', ')})`,
        value: ratio,
        unit: '×',
        ...(w.key === 'heavy' || w.key === 'paragraph' ? { target: '≥ 1.8', pass: ratio >= 1.8 } : {}),
      });
      rows.push({
        metric: `CPU per request (ms), ${w.label}, 1 worker: ${describe(medianCpu(r.cpuOne))}`,
        value: sum(Object.values(medianCpu(r.cpuOne))),
        unit: 'ms CPU',
      });
      rows.push({
        metric: `CPU per request (ms), ${w.label}, 2 workers: ${describe(medianCpu(r.cpuTwo))}`,
        value: sum(Object.values(medianCpu(r.cpuTwo))),
        unit: 'ms CPU',
      });
    }

    // The API's latency while both workers are saturated (a cheap authenticated read).
    const w2 = await worker();
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
    await stop(w2.child);
    children.delete(w2.child);
    rows.push({
      metric: `API p99 while workers are saturated (GET /accounts/me, median ${median(latencies).toFixed(1)} ms)`,
      value: quantile(latencies, 0.99),
      unit: 'ms',
    });
  } finally {
    for (const child of [...children].reverse()) await stop(child);
    agent.destroy();
    await fs.rm(dataDir, { recursive: true, force: true });
    const c = new pg.Client({ connectionString: PG_ADMIN });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  }
  return rows;
}
