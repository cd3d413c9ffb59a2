import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface RunningServer {
  baseUrl: string;
  dataDir: string;
  outbox: string;
  logs: () => string;
  stop: () => Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function newestMtime(entry: string, skip?: string): number {
  if (entry === skip) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name), skip));
  return newest;
}

/** The server serves apps/web/dist; rebuild it when the console's sources are newer, so the test sees this code. */
export function ensureConsoleBuild(): void {
  const web = path.join(ROOT, 'apps/web');
  const built = path.join(web, 'dist/index.html');
  const sources = ['src', 'index.html', 'vite.config.ts', 'package.json', 'public']
    .map((p) => path.join(web, p))
    .filter((p) => fs.existsSync(p));
  const contracts = path.join(ROOT, 'packages/contracts/src');
  if (fs.existsSync(contracts)) sources.push(contracts);
  const stale = !fs.existsSync(built) || sources.some((s) => newestMtime(s) > fs.statSync(built).mtimeMs);
  if (!stale) return;
  console.log('[e2e] building the console (apps/web) …');
  const res = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (res.status !== 0) throw new Error('npm run build -w apps/web failed');
}

/** The server serves the documentation site from docs/site/dist (/guide/): built when missing or older than its pages. */
export function ensureDocsBuild(): void {
  const built = path.join(ROOT, 'docs/site/dist/index.html');
  const sources = [path.join(ROOT, 'docs'), path.join(ROOT, 'scripts/build-docs.mjs')];
  const stale =
    !fs.existsSync(built) || sources.some((s) => newestMtime(s, path.join(ROOT, 'docs/site/dist')) > fs.statSync(built).mtimeMs);
  if (!stale) return;
  console.log('[e2e] building the documentation site (docs/site) …');
  const res = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-docs.mjs')], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (res.status !== 0) throw new Error('node scripts/build-docs.mjs failed');
}

async function waitHealthy(baseUrl: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`GET /healthz did not answer 200 within ${timeoutMs / 1000} s`);
}

/** How long the platform may take to answer /healthz: E2E_START_TIMEOUT_MS on a machine loaded beyond the usual. */
const START_TIMEOUT_MS = Number(process.env.E2E_START_TIMEOUT_MS) || 180_000;

/** Starts the platform on a fresh DATA_DIR (MODELS_DIR: its empty `models`); `extra` adds settings (a payment provider's, say). */
export async function startServer(timeoutMs = START_TIMEOUT_MS, extra: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-e2e-'));
  // An empty MODELS_DIR, watched: the library flow drops a tiny neural model into it and takes it out again.
  const modelsDir = path.join(dataDir, 'models');
  fs.mkdirSync(modelsDir);
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PREVIEW_PRERENDER: 'false',
      TRUST_PROXY: 'true',
      MODELS_DIR: modelsDir,
      // Passkeys cannot be bound to an IP address: the admin-passkey flow opens the console on localhost.
      ALLOWED_ORIGINS: `http://localhost:${port}`,
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await waitHealthy(baseUrl, child, timeoutMs);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- server output ---\n${output.slice(-4000)}`);
  }
  return { baseUrl, dataDir, outbox: path.join(dataDir, 'outbox'), logs: () => output, stop };
}
