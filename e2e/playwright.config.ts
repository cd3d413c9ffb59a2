import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from './lib/browser';

/**
 * The console's browser tests: @playwright/test driving the system's Chromium (no browser download), against one
 * platform started for the run (lib/global-setup.ts). The flows share one signed-in account and run in order, in one
 * worker. E2E_FLOWS (console.spec.ts) picks flows; E2E_ONLY=part,part keeps the tests whose full titles (file, flow,
 * name) contain a part.
 */
const ARTIFACTS = path.resolve(import.meta.dirname, '..', 'artifacts');
const only = (process.env.E2E_ONLY ?? '')
  .split(',')
  .map((p) => p.trim())
  .filter(Boolean);

export default defineConfig({
  testDir: '.',
  testMatch: 'console.spec.ts',
  outputDir: path.join(ARTIFACTS, 'e2e'),
  globalSetup: './lib/global-setup.ts',
  workers: 1,
  fullyParallel: false,
  // A test that hangs past its timeout is run once more on a fresh page (lib/fixtures.ts skips other retries).
  retries: 1,
  timeout: 180_000,
  grep: only.length ? only.map((p) => new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))) : undefined,
  reporter: [['list'], ['json', { outputFile: path.join(ARTIFACTS, 'playwright-report.json') }], ['./lib/summary-reporter.ts']],
  use: {
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
  },
});
