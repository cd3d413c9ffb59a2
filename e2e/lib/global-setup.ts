import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureConsoleBuild, ensureDocsBuild, ROOT, startServer } from './server';

/** Where the platform's output is written when the run ends; the summary reporter prints its tail after a failure. */
export const SERVER_LOG = path.join(ROOT, 'artifacts/e2e/server.log');

/**
 * Builds the console if its sources changed and starts the platform once for the run, on a free port with a
 * fresh DATA_DIR. The workers find it in E2E_SERVER; E2E_RUN_DIR holds what carries over between workers.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  ensureConsoleBuild();
  ensureDocsBuild();
  const server = await startServer();
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-e2e-run-'));
  process.env.E2E_RUN_DIR = runDir;
  process.env.E2E_SERVER = JSON.stringify({ baseUrl: server.baseUrl, dataDir: server.dataDir, outbox: server.outbox });
  console.log(`console e2e against ${server.baseUrl} (DATA_DIR ${server.dataDir})`);
  return async () => {
    await server.stop();
    fs.mkdirSync(path.dirname(SERVER_LOG), { recursive: true });
    fs.writeFileSync(SERVER_LOG, server.logs());
    fs.rmSync(runDir, { recursive: true, force: true });
  };
}
