#!/usr/bin/env node
// Starts the whole platform on the embedded default: builds the console and the documentation site when no build
// exists and the server when its compiled build is missing or older than its sources, then runs the compiled
// server with plain node (which applies migrations). Signals go to the server, which shuts down cleanly.
//
//   node scripts/start.mjs         the compiled build (npm start)
//   node scripts/start.mjs --dev   the TypeScript sources through tsx (npm run dev)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer, defaultOutdir, serverBuildIsCurrent } from './build-server.mjs';
import { SERVER_NODE_FLAGS } from './node-flags.mjs';
import { buildDocs } from './build-docs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const webDist = process.env.WEB_DIST ? path.resolve(process.env.WEB_DIST) : path.join(root, 'apps/web/dist');
const dev = process.argv.includes('--dev');

// Only the default location is built here; a custom WEB_DIST is the operator's own build.
if (!process.env.WEB_DIST && !fs.existsSync(path.join(webDist, 'index.html'))) {
  console.log('[polyvox] no console build found: building apps/web …');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) {
    console.error('[polyvox] the console build failed; the API starts without it');
  }
}

// The documentation site (/guide/), likewise only at its default location.
if (!process.env.GUIDE_DIST && !fs.existsSync(path.join(root, 'docs/site/dist/index.html'))) {
  console.log('[polyvox] no documentation build found: building docs/site …');
  try {
    buildDocs();
  } catch (error) {
    console.error(`[polyvox] ${error.message}; the server starts without /guide/`);
  }
}

let args;
if (dev) {
  args = ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')];
} else {
  if (!serverBuildIsCurrent()) {
    console.log('[polyvox] the server build is missing or older than its sources: building apps/server …');
    await buildServer();
    // esbuild's service process would otherwise stay beside the server for as long as it runs.
    (await import('esbuild')).stop();
  }
  args = [...SERVER_NODE_FLAGS, path.join(defaultOutdir, 'main.mjs')];
}

const server = spawn(process.execPath, args, {
  cwd: process.cwd(),
  stdio: 'inherit',
  env: process.env,
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => server.kill(signal));
}
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
