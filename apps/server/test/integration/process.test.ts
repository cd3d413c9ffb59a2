import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgDatabase, DIALECTS } from '../support/app.js';
import { freePort } from '../support/ports.js';
import { childEnv } from '../support/child-env.js';

const root = path.resolve(import.meta.dirname, '../../../..');
const main = path.join(root, 'apps/server/src/main.ts');

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function run(env: Record<string, string>): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    cwd: root,
    env: { ...childEnv(), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Polls `check` until it holds, the process exits (a failure) or `ms` pass: a bound for a hung start, not a pace. */
async function waitFor(what: string, proc: Running, check: () => Promise<boolean> | boolean, ms = 300_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (proc.child.exitCode !== null) throw new Error(`server exited before ${what}: ${proc.output()}`);
    if (Date.now() > end) throw new Error(`no ${what} within ${ms} ms: ${proc.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitHealthy(url: string, proc: Running): Promise<void> {
  await waitFor('health', proc, async () => {
    try {
      return (await fetch(`${url}/healthz`)).status === 200;
    } catch {
      return false; /* not listening yet */
    }
  });
}

const started: Running[] = [];
afterEach(() => {
  for (const p of started.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

describe('the server process', () => {
  it('refuses to start on a bad setting and names it', async () => {
    const proc = run({ PORT: 'eighty', DATA_DIR: os.tmpdir() });
    started.push(proc);
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toContain('PORT');
    expect(proc.output()).toContain('"eighty"');
  });

  it.each(DIALECTS)(
    'applies migrations on a fresh %s database, answers /healthz, and on SIGINT finishes the request in flight',
    async (dialect) => {
      const database = dialect === 'postgres' ? await createPgDatabase() : null;
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-proc-'));
      const port = await freePort();
      const proc = run({
        PORT: String(port),
        DATA_DIR: dataDir,
        WEB_DIST: path.join(dataDir, 'none'),
        ...(database ? { DATABASE_URL: database.url } : {}),
      });
      started.push(proc);
      await waitHealthy(`http://127.0.0.1:${port}`, proc);
      const health = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
      expect(health).toMatchObject({ status: 'ok', database: dialect });
      if (dialect === 'sqlite') await fs.access(path.join(dataDir, 'polyvox.db'));

      // Send the headers and half the body; once the server has the request, stop it; once it is shutting
      // down, send the rest: the answer still comes. Each step waits for the server to have done the last
      // one (a busy machine may take seconds for any of them), never for a fixed time.
      const body = JSON.stringify({ device: { udid: 'web-shutdown', model: 'x', brand: 'other', os: 'other' } });
      const socket = net.connect(port, '127.0.0.1');
      let data = '';
      socket.on('data', (d) => (data += d));
      const answer = new Promise<string>((resolve, reject) => {
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /accounts/anonymous HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nx-request-id: in-flight-${dialect}\r\n\r\n`,
      );
      socket.write(body.slice(0, 20));
      await waitFor('the request in flight', proc, () => proc.output().includes(`"reqId":"in-flight-${dialect}"`));
      proc.child.kill('SIGINT');
      await waitFor('the shutdown', proc, () => proc.output().includes('shutting down'));
      socket.write(body.slice(20));
      const raw = await answer;
      expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
      expect(await proc.exited).toBe(0);
      expect(proc.output()).toContain('shutting down');
      // Nothing failed on the way out (a warmup the shutdown stopped is no failure).
      expect(
        proc
          .output()
          .split('\n')
          .filter((l) => l.includes('"level":50') || l.includes('"level":60')),
      ).toEqual([]);
      if (dialect === 'sqlite') {
        // The database was closed cleanly: the WAL was checkpointed and removed.
        await expect(fs.access(path.join(dataDir, 'polyvox.db-wal'))).rejects.toThrow();
      }
      if (database) {
        // The server's pool was closed: no connection to its database is left behind.
        const admin = new pg.Client({
          connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
        });
        await admin.connect();
        const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
          new URL(database.url).pathname.slice(1),
        ]);
        await admin.end();
        expect(rows[0].n).toBe(0);
        await database.drop();
      }
      await fs.rm(dataDir, { recursive: true, force: true });
    },
    // A bound for a hung server on a machine other work keeps busy; every step above waits for its condition.
    600_000,
  );
});
