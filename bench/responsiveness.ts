/**
 * `--only responsiveness`: does the API answer while the engines work, and does a stream start at once?
 *
 * 1. p99 of GET /accounts/me while eight syntheses run at once (eight clients, each a 600-character text: whole mp3
 *    files, which are labelled and C2PA-signed, streamed mp3, whole wav and streamed mp3 with timestamps, in turn),
 *    with what the server's main thread did: its event-loop delay (p99) under that load, and, under the same load
 *    without our calls, its CPU time per synthesis (Linux's per-thread counter, which other processes on a busy
 *    machine do not inflate as they do wall-clock figures), read by a probe preloaded into the server (loop-probe.mjs).
 *    On a shared machine the p99 mostly measures the other processes (the main thread waiting for a core: a row says
 *    how long); the rows that do not depend on them are the main thread's CPU per synthesis and its loop blocks
 *    (stalls over 10 ms whose own CPU time is over 10 ms).
 * 2. The first byte of a streamed multi-sentence mp3 (2,000 characters) against a whole POST /tts of its first
 *    sentence alone, interleaved, as a ratio of medians.
 *
 * BENCH_SERVER_ROOT runs another checkout's server (an older commit, for a before/after in the same conditions).
 */
import { fork, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startServer, type BenchServer } from './server.js';
import { median, quantile, type BenchRow } from './stats.js';

const SENTENCE = 'The morning train left the station slowly, carrying travellers towards the distant mountains.';
const LONG = Array.from({ length: 40 }, (_, i) => `${SENTENCE.replace('morning', i % 2 ? 'evening' : 'morning')} Stop ${i + 1}.`)
  .join(' ')
  .slice(0, 2000);

/** POST /tts read to its end: the time to its first byte and to its last. */
async function post(s: BenchServer, body: Record<string, unknown>): Promise<{ firstByteMs: number; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${s.url}/tts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sid': s.sid },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST /tts ${res.status}: ${await res.text()}`);
  let firstByteMs = -1;
  for await (const _ of res.body!) if (firstByteMs < 0) firstByteMs = performance.now() - t0;
  return { firstByteMs, ms: performance.now() - t0 };
}

/** The clients' requests, in turn: the shapes a synthesis takes on its way out. */
const LOAD_SHAPES: Record<string, unknown>[] = [
  { format: 'mp3' },
  { format: 'mp3', stream: true },
  { format: 'wav' },
  { format: 'mp3', stream: true, timestamps: true },
];

interface Probe {
  mainThreadCpuMs: number;
  /** The main thread's time runnable but waiting for a core (the machine's other work). */
  mainThreadRunqueueMs: number;
  mainThreadActiveMs: number;
  utilization: number;
  processCpuMs: number;
  /** A 5 ms timer's lateness over 10 ms, split by the scheduler's counters (loop-probe.mjs). */
  stalls: {
    count: number;
    totalMs: number;
    maxMs: number;
    /** Stalls whose main-thread CPU alone is over 10 ms: the loop held by its own work. */
    blocks: number;
    maxBlockCpuMs: number;
    cpuMs: number;
    runqueueMs: number;
    asleepMs: number;
    gc: { count: number; totalMs: number; over10: number; maxMs: number };
  };
  delay: { p50: number; p99: number; max: number };
}

/** Starts (`end` false) or ends the probe's window, and reads what it wrote. */
async function probeWindow(pid: number, file: string, end: boolean): Promise<Probe | null> {
  await fs.rm(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  if (!end) return null;
  for (;;) {
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    if (text) return JSON.parse(text) as Probe;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * `clients` clients each make one synthesis to warm the server, then `rounds` syntheses (BENCH_RESPONSIVENESS_ROUNDS,
 * default 4: about 900 calls, so the p99 is the ninth slowest call, not the fifth), twice: alone, for the main
 * thread's CPU per synthesis (the probe's window spans the whole load, so it divides by a whole number of syntheses)
 * and its stalls, then with GET /accounts/me called every 5 ms, a call counting only if all the clients had a synthesis
 * under way from its start to its end. The calls come from a process of
 * their own (latency-probe.mjs), so the load's eight streams read in this process do not delay them.
 */
async function underLoad(
  s: BenchServer,
  probeFile: string,
  clients = 8,
  rounds = Number(process.env.BENCH_RESPONSIVENESS_ROUNDS) || 4,
): Promise<BenchRow[]> {
  let inFlight = 0;
  // Stretches (epoch ms) when every client has a synthesis under way: only calls wholly inside one count.
  const busy: [number, number][] = [];
  let busySince = -1;
  const epoch = () => performance.timeOrigin + performance.now();
  const onFlight = () => {
    if (inFlight === clients && busySince < 0) busySince = epoch();
    else if (inFlight < clients && busySince >= 0) {
      busy.push([busySince, epoch()]);
      busySince = -1;
    }
  };
  const load = async (n: number, times = rounds) => {
    for (let i = 0; i < times; i++) {
      const shape = LOAD_SHAPES[(n + i) % LOAD_SHAPES.length]!;
      inFlight += 1;
      onFlight();
      try {
        await post(s, { text: `${LONG.slice(0, 600)} ${n}-${i}-${Date.now()}`, voice_id: 'voice_espeak.en-us', ...shape });
      } finally {
        inFlight -= 1;
        onFlight();
      }
    }
  };
  // A round of the same load first, unmeasured: the server's code is compiled and optimised by then (on a fresh server
  // V8's compiler threads otherwise take cores all through the first windows).
  await Promise.all(Array.from({ length: clients }, (_, n) => load(n, 1)));
  // Then the load alone, for the main thread's CPU per synthesis (no calls of ours in it).
  await probeWindow(s.pid, probeFile, false);
  // BENCH_PERF=<file>: Linux perf samples the main thread's CPU (on-CPU time only, so other processes do not blur it)
  // over this window; run the server with BENCH_SERVER_ARGS=--perf-basic-prof to name its JavaScript functions.
  const perf = process.env.BENCH_PERF
    ? spawn(
        'perf',
        [
          'record',
          // BENCH_PERF_EVENT=sched:sched_switch: where the main thread leaves its core (asleep, or pushed off) instead.
          ...(process.env.BENCH_PERF_EVENT ? ['-e', process.env.BENCH_PERF_EVENT] : ['-F', '997']),
          '-g',
          // BENCH_PERF_THREADS=all: every thread of the server, not only its main thread.
          process.env.BENCH_PERF_THREADS === 'all' ? '-p' : '-t',
          String(s.pid),
          '-o',
          process.env.BENCH_PERF,
        ],
        { stdio: 'ignore' },
      )
    : undefined;
  await Promise.all(Array.from({ length: clients }, (_, n) => load(n)));
  const alone = (await probeWindow(s.pid, probeFile, true))!;
  if (perf) {
    perf.kill('SIGINT');
    await new Promise((r) => perf.once('exit', r));
  }
  if (process.env.BENCH_RESPONSIVENESS_VERBOSE) console.error('probe, load alone:', JSON.stringify(alone));
  // Then the same load again with the calls, made by a process of their own (latency-probe.mjs): this one's event
  // loop also reads the eight streams, and its delays are not the server's.
  await probeWindow(s.pid, probeFile, false);
  const caller = fork(path.join(import.meta.dirname, 'latency-probe.mjs'), [], {
    env: { ...process.env, PROBE_URL: `${s.url}/accounts/me`, PROBE_SID: s.sid, PROBE_EVERY_MS: '5' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const answered = new Promise<[number, number, number][]>((resolve, reject) => {
    caller.once('message', (m) => resolve((m as { calls: [number, number, number][] }).calls));
    caller.once('exit', (code) => reject(new Error(`the latency probe ended (${code}) before it answered`)));
  });
  busy.length = 0;
  await Promise.all(Array.from({ length: clients }, (_, n) => load(n)));
  caller.send('stop');
  const calls = await answered;
  const failed = calls.filter(([, , status]) => status !== 200);
  if (failed.length) throw new Error(`GET /accounts/me answered ${failed[0]![2]} under load`);
  const latencies = calls
    .filter(([start, end]) => busy.some(([from, to]) => start >= from && end <= to))
    .map(([start, end]) => end - start);
  const probe = (await probeWindow(s.pid, probeFile, true))!;
  if (process.env.BENCH_RESPONSIVENESS_VERBOSE)
    console.error(
      'probe, with the calls:',
      JSON.stringify(probe.stalls),
      'slowest calls:',
      latencies
        .toSorted((a, b) => b - a)
        .slice(0, 12)
        .map((l) => l.toFixed(1))
        .join(' '),
    );
  const done = clients * rounds;
  const p99 = quantile(latencies, 0.99);
  return [
    {
      metric: `p99 GET /accounts/me with ${clients} syntheses running (${latencies.length} calls, p50 ${median(latencies).toFixed(1)} ms)`,
      value: p99,
      unit: 'ms',
      target: '< 10',
      pass: p99 < 10,
    },
    {
      metric: `server event-loop delay under that load, p99 (max ${probe.delay.max.toFixed(1)} ms)`,
      value: probe.delay.p99,
      unit: 'ms',
    },
    {
      metric: `server main thread's CPU per synthesis (${done} syntheses of 600 chars, alone; event-loop utilization ${(alone.utilization * 100).toFixed(0)} %)`,
      value: alone.mainThreadCpuMs / done,
      unit: 'ms',
    },
    { metric: 'server process CPU per synthesis (all its threads)', value: alone.processCpuMs / done, unit: 'ms' },
    {
      metric: `server loop blocks per synthesis, alone: stalls over 10 ms whose own main-thread CPU is over 10 ms (longest ${alone.stalls.maxBlockCpuMs.toFixed(1)} ms of CPU)`,
      value: alone.stalls.blocks / done,
      unit: '',
    },
    {
      metric: `server event-loop stalls over 10 ms per synthesis, alone (${alone.stalls.count} in all, ${alone.stalls.totalMs.toFixed(0)} ms late: ${alone.stalls.cpuMs.toFixed(0)} ms own CPU, ${alone.stalls.runqueueMs.toFixed(0)} ms waiting for a core, ${alone.stalls.asleepMs.toFixed(0)} ms asleep; longest ${alone.stalls.maxMs.toFixed(1)} ms)`,
      value: alone.stalls.count / done,
      unit: '',
    },
    {
      metric: `server main thread's garbage collection per synthesis, alone (${alone.stalls.gc.count} pauses, ${alone.stalls.gc.over10} over 10 ms, longest ${alone.stalls.gc.maxMs.toFixed(1)} ms)`,
      value: alone.stalls.gc.totalMs / done,
      unit: 'ms',
    },
    {
      metric: `server main thread's wait for a core per synthesis, alone (the machine's load: other processes and threads)`,
      value: alone.mainThreadRunqueueMs / done,
      unit: 'ms',
    },
    {
      metric: `server event-loop stalls over 10 ms per synthesis, with the calls (${probe.stalls.count} in all, ${probe.stalls.blocks} blocks, longest ${probe.stalls.maxMs.toFixed(1)} ms)`,
      value: probe.stalls.count / done,
      unit: '',
    },
  ];
}

/** A streamed 2,000-character mp3's first byte against a whole one-sentence mp3, interleaved, the order alternating. */
async function firstByte(s: BenchServer, runs = 15): Promise<BenchRow[]> {
  const sentence = LONG.split(/(?<=\.)\s/)[0]!;
  await post(s, { text: `w ${LONG}`.slice(0, 2000), voice_id: 'voice_espeak.en-us', format: 'mp3', stream: true });
  await post(s, { text: `w ${sentence}`, voice_id: 'voice_espeak.en-us', format: 'mp3' });
  const alone: number[] = [];
  const streamed: number[] = [];
  for (let i = 0; i < runs; i++) {
    const whole = async () =>
      alone.push((await post(s, { text: `r${i} ${sentence}`, voice_id: 'voice_espeak.en-us', format: 'mp3' })).ms);
    const stream = async () =>
      streamed.push(
        (await post(s, { text: `r${i} ${LONG}`.slice(0, 2000), voice_id: 'voice_espeak.en-us', format: 'mp3', stream: true }))
          .firstByteMs,
      );
    for (const step of i % 2 ? [whole, stream] : [stream, whole]) await step();
  }
  const value = median(streamed) / median(alone);
  return [
    {
      metric: `first byte of a streamed 2,000-char mp3 ÷ a whole one-sentence mp3 (medians of ${runs}: ${median(streamed).toFixed(1)} vs ${median(alone).toFixed(1)} ms)`,
      value,
      unit: '×',
      target: '< 0.5',
      pass: value < 0.5,
    },
  ];
}

export async function responsivenessRows(): Promise<BenchRow[]> {
  const probeFile = path.join(os.tmpdir(), `polyvox-probe-${process.pid}-${Date.now()}.json`);
  const root = process.env.BENCH_SERVER_ROOT;
  const s = await startServer({
    // BENCH_SERVER_ARGS: more flags for the server's node (say `--cpu-prof --cpu-prof-dir=/tmp/prof`, to profile it).
    execArgv: [
      '--import',
      path.join(import.meta.dirname, 'loop-probe.mjs'),
      ...(process.env.BENCH_SERVER_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
    env: { BENCH_PROBE_FILE: probeFile },
    ...(root ? { root } : {}),
    // What `npm start` runs: the compiled build with production's V8 flags (BENCH_RESPONSIVENESS_SOURCES=1: the
    // TypeScript sources through tsx instead, as `npm run dev`).
    compiled: !process.env.BENCH_RESPONSIVENESS_SOURCES,
  });
  try {
    // BENCH_RESPONSIVENESS_LOAD_ONLY=1 skips the first-byte rows (to profile the load alone).
    const first = process.env.BENCH_RESPONSIVENESS_LOAD_ONLY ? [] : await firstByte(s);
    return [...first, ...(await underLoad(s, probeFile))];
  } finally {
    await s.stop();
    await fs.rm(probeFile, { force: true });
  }
}
