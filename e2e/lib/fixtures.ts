import fs from 'node:fs';
import { test as base, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from '@playwright/test';
import { Console } from './browser';
import { env, restoreKept, runFiles, saveKept, type ServerInfo, HANG_GUARD_MS } from './env';

/** The platform global-setup.ts started for the run. */
function serverInfo(): ServerInfo {
  const raw = process.env.E2E_SERVER;
  if (!raw) throw new Error('E2E_SERVER is not set: run the browser tests with `npm run test:browser`');
  return JSON.parse(raw) as ServerInfo;
}

/** Waits for `work` at most `ms`; a page that stopped answering must not hold up the next test. */
async function atMost(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).catch(() => undefined);
  clearTimeout(timer);
}

function readOutcomes(file: string): Record<string, string> {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>) : {};
}

/**
 * The console opens in the browser's language when it speaks it (else in zh-CN): the tests' browsers are set to
 * Simplified Chinese unless a test names another locale, so a fresh page opens as it does for the console's audience.
 */
export const BROWSER_LOCALE = 'zh-CN';

function chineseByDefault(browser: Browser): Browser {
  return new Proxy(browser, {
    get(target, prop) {
      if (prop === 'newContext') {
        return (options?: BrowserContextOptions) => target.newContext({ locale: BROWSER_LOCALE, ...options });
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

interface SignedInPage {
  context: BrowserContext;
  page: Page;
}

/**
 * One page for the whole run, in the order of the flows: the session flow signs in on it and the later flows use
 * that account (the playground tests follow one another on it). Playwright starts a new worker after a failed
 * test; the page's storage (so the signed-in account), its address and what the tests kept carry over to the new one.
 */
export const test = base.extend<{ hungOnly: void; shared: void }, { signedInPage: SignedInPage }>({
  signedInPage: [
    async ({ browser }, use) => {
      const { storage, url } = runFiles();
      restoreKept();
      const context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        locale: BROWSER_LOCALE,
        storageState: fs.existsSync(storage) ? storage : undefined,
      });
      const page = await context.newPage();
      page.setDefaultTimeout(HANG_GUARD_MS);
      // Where the last worker's page was: the next tests of a flow go on from there (the playground's follow one another).
      const last = fs.existsSync(url) ? fs.readFileSync(url, 'utf8') : '';
      if (/^https?:/.test(last)) await page.goto(last).catch(() => undefined);
      await use({ context, page });
      await atMost(10_000, context.close());
    },
    { scope: 'worker' },
  ],

  hungOnly: [
    // eslint-disable-next-line no-empty-pattern -- needs no other fixture: decides before the browser starts
    async ({}, use, testInfo) => {
      const { outcomes } = runFiles();
      const first = readOutcomes(outcomes)[testInfo.testId];
      // Only a test that hung (ran out of time) is run again; Playwright's retry of any other failure fails at once.
      if (testInfo.retry > 0 && first !== 'timedOut') {
        throw new Error(`not run again: only a test that hung is retried (the first run ${first ?? 'failed'})`);
      }
      await use();
      if (testInfo.status !== testInfo.expectedStatus) {
        const all = readOutcomes(outcomes);
        all[testInfo.testId] = testInfo.status ?? 'failed';
        fs.writeFileSync(outcomes, JSON.stringify(all));
      }
    },
    { auto: true },
  ],

  shared: [
    async ({ browser, signedInPage }, use) => {
      env.server = serverInfo();
      env.browser = chineseByDefault(browser);
      env.page = signedInPage.page;
      env.ui = new Console(signedInPage.page, env.server.baseUrl);
      await use();
      saveKept();
      const files = runFiles();
      fs.writeFileSync(files.url, signedInPage.page.url());
      await atMost(5_000, signedInPage.context.storageState({ path: files.storage }));
    },
    { auto: true },
  ],
});
