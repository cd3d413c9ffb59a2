/**
 * `npx tsx bench/sms-pumping.ts`: SMS pumping against real server processes, on SQLite and on PostgreSQL.
 * 1. One address asks for codes to 1,000 distinct numbers (every proof-of-work solved, as a determined attacker
 *    would), alternately from two server processes on one database without Redis: how many messages leave, against
 *    SMS_LIMIT_PER_IP_HOUR.
 * 2. Two server processes on one database, 200 requests for distinct numbers spread over both at once, with
 *    SMS_DAILY_CAP=25 and no per-address limit in the way: how many messages leave.
 * Messages are counted in the file outbox both processes share (SMS_URL default).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { freePort } from './server.js';
import { waitUntilReady } from './wait.js';

const root = path.resolve(import.meta.dirname, '..');
const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function start(dataDir: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      WEB_DIST: path.join(dataDir, 'none'),
      PREVIEW_PRERENDER: 'false',
      SPEECH_WARMUP: 'false',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(url, 3000);
  return { url, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await done;
}

async function send(url: string, mobile: string, challenge?: string): Promise<number> {
  const res = await fetch(`${url}/verification/mobile?lang=en`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mobile, ...(challenge ? { challenge } : {}) }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function solved(url: string): Promise<string> {
  const challenge = (await (await fetch(`${url}/verification/challenge`)).json()) as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

const outboxCount = async (dir: string) =>
  (await fs.readdir(path.join(dir, 'sms')).catch(() => [])).filter((f) => f.endsWith('.txt')).length;

async function run(dialect: 'sqlite' | 'postgres') {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-sms-bench-'));
  let dropDb: (() => Promise<void>) | null = null;
  const env: Record<string, string> = { SMS_POW_DIFFICULTY: '3' };
  if (dialect === 'postgres') {
    const name = `sms_bench_${Date.now()}`;
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    env.DATABASE_URL = PG.replace(/\/[^/]*$/, `/${name}`);
    dropDb = async () => {
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  }
  const out: Record<string, number> = {};
  try {
    // 1. One address, 1,000 numbers, each request with a solved proof-of-work, spread over two processes on one
    //    database without Redis (the limits are counted in the database).
    const limits = { ...env, SMS_LIMIT_PER_IP_HOUR: '10', SMS_FREE_PER_IP_DAY: '2' };
    const pair = [await start(dataDir, limits), await start(dataDir, limits)];
    const statuses: Record<number, number> = {};
    let powMs = 0;
    for (let i = 0; i < 1000; i++) {
      const url = pair[i % 2]!.url;
      const t0 = performance.now();
      const challenge = i < 2 ? undefined : await solved(url);
      powMs += performance.now() - t0;
      const s = await send(url, `+86136${String(10_000_000 + i)}`, challenge);
      statuses[s] = (statuses[s] ?? 0) + 1;
    }
    out.pumping_requests = 1000;
    out.pumping_processes = 2;
    out.pumping_sent = await outboxCount(dataDir);
    out.pumping_429 = statuses[429] ?? 0;
    out.pumping_pow_ms_mean = Math.round(powMs / 998);
    await Promise.all(pair.map((p) => stop(p.child)));

    // 2. Two processes, one database, a daily cap of 25.
    await fs.rm(path.join(dataDir, 'sms'), { recursive: true, force: true });
    const capEnv = {
      ...env,
      SMS_LIMIT_PER_IP_HOUR: '100000',
      SMS_FREE_PER_IP_DAY: '100000',
      SMS_DAILY_CAP: String(out.pumping_sent! + 25),
    };
    // The first part sent some today: the cap counts the whole day, so it is set to what was sent plus 25.
    const a = await start(dataDir, capEnv);
    const b = await start(dataDir, capEnv);
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) => send(i % 2 ? a.url : b.url, `+86135${String(10_000_000 + i)}`)),
    );
    out.cap_requests = 200;
    out.cap_sent = await outboxCount(dataDir);
    out.cap_ok = replies.filter((s) => s === 200).length;
    out.cap_before = out.pumping_sent;
    await Promise.all([stop(a.child), stop(b.child)]);
  } finally {
    await dropDb?.();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  return out;
}

for (const dialect of ['sqlite', 'postgres'] as const) console.log(dialect, JSON.stringify(await run(dialect)));
