import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import type { Console } from './browser';
import { ROOT } from './server';

/** The platform the run started once (global-setup.ts), as the test workers see it. */
export interface ServerInfo {
  baseUrl: string;
  dataDir: string;
  outbox: string;
}

/** What every test shares: set by the fixtures (fixtures.ts) before each test. */
export const env = {} as { server: ServerInfo; browser: Browser; page: Page; ui: Console };

/**
 * The run's own files, in a folder global-setup.ts makes (E2E_RUN_DIR): the platform's address, the signed-in
 * page's storage and what tests learned (`kept`), so that a worker started after a failure goes on as one account.
 */
export function runFiles(): { server: string; storage: string; url: string; kept: string; outcomes: string } {
  const dir = process.env.E2E_RUN_DIR;
  if (!dir) throw new Error('E2E_RUN_DIR is not set: run the browser tests with `npm run test:browser`');
  return {
    server: path.join(dir, 'server.json'),
    storage: path.join(dir, 'storage.json'),
    url: path.join(dir, 'url.txt'),
    kept: path.join(dir, 'kept.json'),
    outcomes: path.join(dir, 'outcomes.json'),
  };
}

const keptObjects = new Map<string, object>();

/**
 * An object one test fills and a later one reads. Playwright starts a new worker process after a failed test;
 * the fixtures save these objects after every test and fill them again in the new worker.
 */
export function kept<T extends object>(key: string, initial: T): T {
  if (keptObjects.has(key)) throw new Error(`kept: ${key} is taken`);
  keptObjects.set(key, initial);
  return initial;
}

export function saveKept(): void {
  fs.writeFileSync(runFiles().kept, JSON.stringify(Object.fromEntries(keptObjects)));
}

export function restoreKept(): void {
  const file = runFiles().kept;
  if (!fs.existsSync(file)) return;
  const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, object>;
  for (const [key, target] of keptObjects) if (Object.hasOwn(saved, key)) Object.assign(target, saved[key]);
}

/** What one test learns and a later one checks. */
export const state = kept<{
  email: string;
  anonymousId?: string;
  anonymousSid?: string;
  registeredId?: string;
  registeredSid?: string;
}>('state', { email: `e2e-${Date.now()}@example.com` });

export const SHOTS = path.join(ROOT, 'artifacts/screenshots');
export const LANGS = ['en', 'zh-CN', 'zh-TW'] as const;

export const TEXT = {
  signIn: { en: 'Sign in', 'zh-CN': '登录', 'zh-TW': '登入' },
  modalTitle: { en: 'Sign in to Polyvox', 'zh-CN': '登录 Polyvox', 'zh-TW': '登入 Polyvox' },
  dashboard: { en: 'Dashboard', 'zh-CN': '控制台', 'zh-TW': '主控台' },
  profile: { en: 'Profile', 'zh-CN': '个人资料', 'zh-TW': '個人資料' },
} as const;

export const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export function shot(name: string): Promise<Buffer> {
  return env.page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/**
 * How long a page waits for anything before failing: a hang guard, not a pace. Every wait is for a condition, and on
 * a loaded two-core machine (the suite beside `stress-ng --cpu 2` and other work) what takes 2 s when quiet can take 20.
 */
export const HANG_GUARD_MS = 45_000;
