import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgDatabase, DIALECTS } from '../support/app.js';
import { freePort } from '../support/processes.js';

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
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitHealthy(url: string, proc: Running): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    if (proc.child.exitCode !== null) throw new Error(`server exited: ${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server never became healthy: ${proc.output()}`);
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

      // Send the headers and half the body, stop the server, then send the rest: the answer still comes.
      const body = JSON.stringify({ device: { udid: 'web-shutdown', model: 'x', brand: 'other', os: 'other' } });
      const answer = new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.write(
            `POST /accounts/anonymous HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
          );
          socket.write(body.slice(0, 20));
          setTimeout(() => {
            proc.child.kill('SIGINT');
            setTimeout(() => socket.write(body.slice(20)), 300);
          }, 200);
        });
        let data = '';
        socket.on('data', (d) => (data += d));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      const raw = await answer;
      expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
      expect(await proc.exited).toBe(0);
      expect(proc.output()).toContain('shutting down');
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
  );
});
