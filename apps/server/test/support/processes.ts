import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { childEnv } from './child-env.js';
import { freePort } from './ports.js';

const root = path.resolve(import.meta.dirname, '../../../..');
const main = path.join(root, 'apps/server/src/main.ts');

/** The longest a server process may take to answer /healthz before its start counts as hung. */
export const START_DEADLINE_MS = 300_000;

/** A server process (`main.ts` as `npm start` runs it), its output and its exit. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
  /** The OS threads of the process right now (Linux): engines are worker threads. */
  threads: () => number;
}

export const running: ServerProcess[] = [];

/** Kills what is still running (in afterEach / afterAll). */
export function killAll(): void {
  for (const p of running.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
}

/** Starts `main.ts` on a free port with `env` (the server's settings; tests set every one they need). */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    cwd: root,
    env: {
      ...childEnv(),
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      PREVIEW_PRERENDER: 'false',
      ACCOUNT_LIMIT_PER_IP_HOUR: '100000',
      TRIAL_GRANTS_PER_IP_DAY: '100000',
      PLAN_GRANTS_PER_IP_DAY: '100000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const proc: ServerProcess = {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    threads: () => fs.readdirSync(`/proc/${child.pid}/task`).length,
  };
  running.push(proc);
  // Waits for health, or the process's exit; the deadline only bounds a hung start (a start on a machine
  // other work keeps busy can take a minute), it paces nothing.
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    try {
      if ((await fetch(`${proc.url}/healthz`)).status === 200) return proc;
    } catch {
      /* not listening yet */
    }
    if (child.exitCode !== null) throw new Error(`server exited: ${out}`);
    if (Date.now() > deadline) throw new Error(`server never became healthy: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Kills a process with SIGKILL (nothing of it runs after this resolves). */
export async function kill(proc: ServerProcess): Promise<void> {
  proc.child.kill('SIGKILL');
  await proc.exited;
}
