import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { waitUntilReady } from './wait.js';
import { buildServer, serverBuildIsCurrent } from '../scripts/build-server.mjs';
import { SERVER_NODE_FLAGS } from '../scripts/node-flags.mjs';

const root = path.resolve(import.meta.dirname, '..');

export interface BenchServer {
  url: string;
  sid: string;
  /** The server process's id (its memory and CPU time are read from /proc). */
  pid: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Starts the real server as its own process (SQLite, fresh DATA_DIR) and signs in an account with credits. */
export async function startServer(
  opts: {
    execArgv?: string[];
    webDist?: string;
    env?: Record<string, string>;
    /** Another checkout's server. */ root?: string;
    /** The compiled server with production's V8 flags, as `npm start` runs it (built first when out of date), rather
     * than the TypeScript sources through tsx. */
    compiled?: boolean;
  } = {},
): Promise<BenchServer> {
  const base = opts.root ?? root;
  if (opts.compiled && !opts.root && !serverBuildIsCurrent()) await buildServer({ quiet: true });
  const entry = opts.compiled
    ? [...SERVER_NODE_FLAGS, ...(opts.execArgv ?? []), path.join(base, 'apps/server/dist/main.mjs')]
    : [...(opts.execArgv ?? []), '--import', 'tsx', path.join(base, 'apps/server/src/main.ts')];
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-bench-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, entry, {
    cwd: base,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      WEB_DIST: opts.webDist ?? path.join(dataDir, 'none'),
      PREVIEW_PRERENDER: 'false',
      ...opts.env,
    },
    // BENCH_SERVER_STDOUT=<file>: the server's standard output kept there (V8's --trace-* flags print to it).
    stdio: ['ignore', process.env.BENCH_SERVER_STDOUT ? openSync(process.env.BENCH_SERVER_STDOUT, 'w') : 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // Up to five minutes: on a loaded machine tsx compiles the sources slowly.
  await waitUntilReady(url, 3000);
  const anon = (await (
    await fetch(`${url}/accounts/anonymous`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ device: { udid: 'web-bench', model: 'bench', brand: 'other', os: 'other' } }),
    })
  ).json()) as { sid: string };
  const email = 'bench@example.com';
  await fetch(`${url}/verification/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  const outbox = path.join(dataDir, 'outbox');
  const file = (await fs.readdir(outbox))[0]!;
  const vcode = /\b(\d{6})\b/.exec(await fs.readFile(path.join(outbox, file), 'utf8'))![1];
  const signed = (await (
    await fetch(`${url}/accounts/me/email`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-sid': anon.sid },
      body: JSON.stringify({ email, vcode }),
    })
  ).json()) as { sid: string; account: { id: string } };
  // Enough credits for every run of the benchmark.
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path.join(dataDir, 'polyvox.db'));
  db.prepare('UPDATE accounts SET credits = credits + 10000000, records_balance = records_balance + 10000000 WHERE id = ?').run(
    signed.account.id,
  );
  // Texts up to 5,000 characters are a subscriber's: the bench account is on the annual plan.
  db.prepare("UPDATE accounts SET vip_level = 'annual', vip_expire = ? WHERE id = ?").run(
    new Date(Date.now() + 365 * 86_400_000).toISOString(),
    signed.account.id,
  );
  db.prepare(
    "INSERT INTO credit_ledger (id, account_id, kind, amount, balance_after, record_type, note, created_at) SELECT 'rec_bench', id, 'grant', 10000000, credits, 'grant', 'benchmark', ? FROM accounts WHERE id = ?",
  ).run(new Date().toISOString(), signed.account.id);
  db.close();
  return {
    url,
    sid: signed.sid,
    pid: child.pid!,
    async stop() {
      child.kill('SIGINT');
      await new Promise((r) => child.once('exit', r));
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
