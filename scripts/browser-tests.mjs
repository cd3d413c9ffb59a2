#!/usr/bin/env node
// Runs the browser tests (Chromium driven by playwright-core); their last line is "N passed, M failed".
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
const res = spawnSync(tsx, [path.join(root, 'e2e/console.e2e.ts')], { cwd: root, stdio: 'inherit' });
process.exit(res.status ?? 1);
