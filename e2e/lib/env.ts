import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Console } from './browser';
import { ROOT, type RunningServer } from './server';

/** What every test shares: set by the entry point before the suite runs. */
export const env = {} as { server: RunningServer; browser: Browser; page: Page; ui: Console };

/** What one test learns and a later one checks. */
export const state: {
  email: string;
  anonymousId?: string;
  anonymousSid?: string;
  registeredId?: string;
  registeredSid?: string;
} = { email: `e2e-${Date.now()}@example.com` };

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
