#!/usr/bin/env node
// Runs the browser tests: @playwright/test (e2e/playwright.config.ts) driving the system's Chromium.
// Arguments go to `playwright test` (say, `-g "sign-in"`); the last line printed is "N passed, M failed",
// the JSON report is artifacts/playwright-report.json.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const playwright = path.join(root, 'node_modules/.bin/playwright');
const res = spawnSync(playwright, ['test', '-c', path.join(root, 'e2e/playwright.config.ts'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  // The tests drive the system's Chromium (CHROMIUM_PATH): Playwright never fetches a browser of its own.
  env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', ...process.env },
});
if (res.error) console.error(`could not run playwright: ${res.error.message}`);
process.exit(res.status ?? 1);
