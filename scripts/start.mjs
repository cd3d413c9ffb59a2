#!/usr/bin/env node
// Starts the whole platform on the embedded default: builds the console when no build exists,
// then runs the server (which applies migrations). Signals go to the server, which shuts down cleanly.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const webDist = process.env.WEB_DIST ? path.resolve(process.env.WEB_DIST) : path.join(root, 'apps/web/dist');

// Only the default location is built here; a custom WEB_DIST is the operator's own build.
if (!process.env.WEB_DIST && !fs.existsSync(path.join(webDist, 'index.html'))) {
  console.log('[polyvox] no console build found: building apps/web …');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) {
    console.error('[polyvox] the console build failed; the API starts without it');
  }
}

const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
  cwd: process.cwd(),
  stdio: 'inherit',
  env: process.env,
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => server.kill(signal));
}
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
