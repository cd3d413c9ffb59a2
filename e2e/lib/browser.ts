import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** What the fake microphone says: jfk.wav (real speech), looped; Chromium's beep if it is missing. */
export const FAKE_MICROPHONE = path.join(
  process.env.SPEECH_FIXTURES ?? path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'speech'),
  'jfk.wav',
);

/** How the tests' Chromium is started (playwright.config.ts): headless, no sandbox, a fake microphone. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
  // A microphone for the recording tests: granted without asking, fed from a file.
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  ...(fs.existsSync(FAKE_MICROPHONE) ? [`--use-file-for-fake-audio-capture=${FAKE_MICROPHONE}`] : []),
];

export const SID_KEY = 'polyvox.sid';
export const UDID_KEY = 'polyvox.udid';

/** Page-level steps the tests share: reading the session, waiting for routes, switching language. */
export class Console {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  async goto(hash: string): Promise<void> {
    await this.page.goto(`${this.baseUrl}/#${hash}`);
  }

  hash(): Promise<string> {
    return this.page.evaluate(() => window.location.hash);
  }

  async waitForHash(expected: string, timeout = 10_000): Promise<void> {
    await this.page
      .waitForFunction((h) => window.location.hash === h, `#${expected}`, { timeout })
      .catch(async () => {
        throw new Error(`expected the route #${expected}, still at ${await this.hash()}`);
      });
  }

  storage(key: string): Promise<string | null> {
    return this.page.evaluate((k) => localStorage.getItem(k), key);
  }

  /** Waits for a stored session id, optionally one different from `previous`. */
  async waitForSid(previous?: string | null, timeout = 45_000): Promise<string> {
    const handle = await this.page.waitForFunction(
      ([key, prev]) => {
        const sid = localStorage.getItem(key as string);
        return sid && sid !== prev ? sid : null;
      },
      [SID_KEY, previous ?? null],
      { timeout },
    );
    return (await handle.jsonValue()) as string;
  }

  async chooseLanguage(code: string): Promise<void> {
    const menu = menuCode(code);
    const option = this.page.getByTestId(`lang-option-${menu}`);
    // A click that lands while the dropdown is still moving (a loaded machine) can miss: the menu is opened and the
    // option clicked again until the console reports the language. The 45 s overall only guards against a hang (on a
    // loaded two-core machine a step can take seconds); each step waits 10 s at most, so that an option that moved or
    // was re-rendered under the click is tried again.
    // The menu is closed before going on: a closing dropdown left in the page is what the next step would see.
    const deadline = Date.now() + 45_000;
    const step = () => ({ timeout: Math.max(1_000, Math.min(10_000, deadline - Date.now())) });
    for (;;) {
      try {
        if (!(await option.isVisible())) await this.page.getByTestId('language-menu').click(step());
        await option.click(step());
        await this.page.waitForFunction(
          (c) => document.querySelector('[data-testid="language-menu"]')?.getAttribute('data-locale') === c,
          menu,
          step(),
        );
        await option.waitFor({ state: 'hidden', ...step() });
        return;
      } catch (err) {
        if (Date.now() >= deadline) throw err;
      }
    }
  }

  /** Opens the sign-in dialog and picks the way in (email by default; `default`: as the language offers it first). */
  async openSignInFromHeader(method: 'email' | 'phone' | 'default' = 'email'): Promise<void> {
    await this.page.getByTestId('header-signin').click();
    await this.signInForm().waitFor({ state: 'visible' });
    if (method !== 'default') {
      await this.page.getByTestId(`signin-by-${method}`).click();
      await this.page.getByTestId(method === 'email' ? 'signin-email' : 'signin-mobile').waitFor();
    }
  }

  signInForm() {
    return this.page.getByTestId('signin-form');
  }

  async closeSignIn(): Promise<void> {
    await this.page.keyboard.press('Escape');
    await this.signInForm().waitFor({ state: 'hidden' });
  }

  async text(testId: string): Promise<string> {
    return (await this.page.getByTestId(testId).first().innerText()).trim();
  }
}

export async function apiMe(
  baseUrl: string,
  sid: string,
): Promise<{ status: number; body: { id?: string; email?: string | null; anonymous?: boolean } }> {
  const res = await fetch(`${baseUrl}/api/me`, { headers: { authorization: `Bearer ${sid}` } });
  return {
    status: res.status,
    body: res.status === 200 ? ((await res.json()) as { id: string; email: string | null; anonymous: boolean }) : {},
  };
}

/** The language menu lists the seed's codes: the English and Traditional Chinese translations sit under en-US and zh-HK. */
export function menuCode(ui: string): string {
  return ui === 'en' ? 'en-US' : ui === 'zh-TW' ? 'zh-HK' : ui;
}
