/**
 * Browser tests of the console, in Chromium driven by playwright-core, against the real server
 * started on a free port with a fresh DATA_DIR. Run: `npx tsx e2e/console.e2e.ts`.
 * Screenshots go to artifacts/screenshots/. The last line printed is "N passed, M failed".
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { errorMessage } from '@polyvox/contracts';
import { apiMe, Console, launchBrowser, SID_KEY, UDID_KEY } from './lib/browser';
import { assert, assertEqual, Suite } from './lib/harness';
import { listMails, mailsTo, waitForCode } from './lib/outbox';
import { ensureConsoleBuild, ROOT, startServer, type RunningServer } from './lib/server';

const SHOTS = path.join(ROOT, 'artifacts/screenshots');
const LANGS = ['en', 'zh-CN', 'zh-TW'] as const;
const TEXT = {
  signIn: { en: 'Sign in', 'zh-CN': '登录', 'zh-TW': '登入' },
  modalTitle: { en: 'Sign in to Polyvox', 'zh-CN': '登录 Polyvox', 'zh-TW': '登入 Polyvox' },
  dashboard: { en: 'Dashboard', 'zh-CN': '控制台', 'zh-TW': '主控台' },
  profile: { en: 'Profile', 'zh-CN': '个人资料', 'zh-TW': '個人資料' },
} as const;

const suite = new Suite();
let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let ui: Console;

const email = `e2e-${Date.now()}@example.com`;
const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const state: { anonymousId?: string; anonymousSid?: string; registeredId?: string; registeredSid?: string } = {};

function shot(name: string): Promise<Buffer> {
  return page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

async function fillCodeFromOutbox(address: string, seen: Set<string>): Promise<void> {
  const { code, file } = await waitForCode(server.outbox, address, seen);
  seen.add(file);
  await page.getByTestId('signin-code').fill(code);
}

suite.test('a first visit creates an anonymous account, in Simplified Chinese by default', async () => {
  const apiRequests: Request[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/accounts/anonymous') apiRequests.push(r);
  });
  await ui.goto('/');
  const sid = await ui.waitForSid();
  const me = await apiMe(server.baseUrl, sid);
  assertEqual(me.status, 200, 'GET /api/me with the stored sid');
  assertEqual(me.body.anonymous, true, 'the first account is anonymous');
  state.anonymousId = me.body.id;
  state.anonymousSid = sid;
  assert((await ui.storage(UDID_KEY))?.startsWith('web-'), 'the udid is kept in local storage as web-…');
  assertEqual(await ui.text('header-signin'), TEXT.signIn['zh-CN'], 'the header speaks zh-CN by default');

  assertEqual(apiRequests.length, 1, 'one POST /accounts/anonymous');
  const req = apiRequests[0]!;
  const url = new URL(req.url());
  assertEqual(url.searchParams.get('from'), 'web', 'query from');
  assert(url.searchParams.get('cv'), 'query cv is set');
  assertEqual(url.searchParams.get('lang'), 'zh-CN', 'query lang');
  const body = req.postDataJSON() as { channel: string; device: { udid: string; os: string; brand: string; model: string } };
  assertEqual(body.channel, 'def_web', 'channel');
  assertEqual(body.device.udid, await ui.storage(UDID_KEY), 'device.udid is the stored udid');
  assert(['android', 'ios', 'osx', 'windows', 'other'].includes(body.device.os), `device.os from the list: ${body.device.os}`);

  // Later calls carry the session header.
  const meReq = page.waitForRequest((r) => new URL(r.url()).pathname === '/docs/terms');
  await ui.goto('/terms');
  const headers = (await meReq).headers();
  assertEqual(headers['x-sid'], sid, 'x-sid header on later requests');
});

suite.test('the sign-in modal in en, zh-CN and zh-TW (screenshots)', async () => {
  await ui.goto('/');
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const lang of LANGS) {
    await ui.chooseLanguage(lang);
    assertEqual(await ui.text('header-signin'), TEXT.signIn[lang], `header sign-in button in ${lang}`);
    await ui.openSignInFromHeader();
    await page.getByRole('dialog', { name: TEXT.modalTitle[lang] }).waitFor({ state: 'visible' });
    await page.waitForTimeout(400); // let the opening transition finish before the picture
    const file = path.join(SHOTS, `signin-modal-${lang}.png`);
    await page.screenshot({ path: file });
    assert(fs.statSync(file).size > 10_000, `screenshot ${file} was written`);
    await ui.closeSignIn();
  }
});

suite.test('client-side validation messages, without calling the server', async () => {
  await ui.chooseLanguage('en');
  await ui.openSignInFromHeader();
  let verificationCalls = 0;
  const count = (r: Request) => {
    if (new URL(r.url()).pathname === '/verification/email') verificationCalls++;
  };
  page.on('request', count);
  const form = ui.signInForm();
  await page.getByTestId('signin-email').fill('');
  await page.getByTestId('signin-submit').click();
  await form.getByText('Please enter email', { exact: true }).waitFor();
  await page.getByTestId('signin-email').fill('not-an-email');
  await page.getByTestId('signin-send').click();
  await form.getByText('The email format is incorrect, please re-enter', { exact: true }).waitFor();
  await page.getByTestId('signin-email').fill(email);
  await page.getByTestId('signin-submit').click();
  await form.getByText('Please enter the verification code', { exact: true }).waitFor();
  await page.getByTestId('signin-code').fill('123');
  await page.getByTestId('signin-submit').click();
  await form.getByText('The verification code is 6 digits', { exact: true }).waitFor();
  await page.waitForTimeout(300);
  page.off('request', count);
  assertEqual(verificationCalls, 0, 'no code was requested for an invalid email');
  await ui.closeSignIn();
});

suite.test('registers the anonymous account under a new email with a mailed code', async () => {
  const seen = new Set(listMails(server.outbox));
  await ui.openSignInFromHeader();
  await page.getByTestId('signin-email').fill(email);
  await page.getByTestId('signin-send').click();
  await page.waitForFunction(
    () => Number(document.querySelector('[data-testid="signin-send"]')?.getAttribute('data-countdown')) > 50,
  );
  assert(await page.getByTestId('signin-send').isDisabled(), 'the send button is disabled during the countdown');
  await page.getByTestId('signin-send').click({ force: true });
  await fillCodeFromOutbox(email, seen);
  await page.waitForTimeout(500);
  assertEqual((await mailsTo(server.outbox, email)).length, 1, 'clicks during the countdown send nothing');

  // Submitting without the agreement asks for it; agreeing ticks the box and carries on.
  assert(!(await page.getByTestId('signin-agree').isChecked()), 'the agreement starts unticked');
  const refreshes: number[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/accounts/me' && r.method() === 'GET') refreshes.push(Date.now());
  });
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('agree-dialog').waitFor({ state: 'visible' });
  await page.waitForTimeout(400);
  await shot('agreement-dialog-en');
  const registered = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/accounts/me/email' && r.request().method() === 'PUT',
  );
  await page.getByTestId('agree-confirm').click();
  const response = await registered;
  const registeredAt = Date.now();
  assertEqual(response.status(), 200, 'PUT /accounts/me/email');

  await ui.waitForHash('/app/dashboard');
  await page.getByTestId('dashboard-email').getByText(email).waitFor();
  await shot('dashboard-en');
  const sid = await ui.waitForSid(state.anonymousSid);
  const me = await apiMe(server.baseUrl, sid);
  assertEqual(me.body.anonymous, false, 'registered account is not anonymous');
  assertEqual(me.body.email, email, 'registered email');
  assertEqual(me.body.id, state.anonymousId, 'the anonymous account was registered in place');
  state.registeredId = me.body.id;
  state.registeredSid = sid;

  // The account is fetched again about 5 s after registering.
  await page.waitForTimeout(Math.max(0, registeredAt + 7000 - Date.now()));
  const later = refreshes.filter((t) => t - registeredAt >= 4500 && t - registeredAt <= 7000);
  assert(
    later.length >= 1,
    `GET /accounts/me about 5 s after registration (saw ${refreshes.map((t) => t - registeredAt).join(', ') || 'none'})`,
  );
});

suite.test('signing out ends the session and starts a new anonymous one', async () => {
  await page.getByTestId('account-menu').click();
  await page.getByTestId('account-signout').click();
  await ui.waitForHash('/');
  const sid = await ui.waitForSid(state.registeredSid);
  await page.getByTestId('header-signin').waitFor({ state: 'visible' });
  const me = await apiMe(server.baseUrl, sid);
  assertEqual(me.body.anonymous, true, 'the new session is anonymous');
  assert(me.body.id !== state.registeredId, 'the new session is another account');
  assertEqual((await apiMe(server.baseUrl, state.registeredSid!)).status, 401, 'the old session no longer works');
});

suite.test('a guarded route while anonymous opens the sign-in modal at the root', async () => {
  await ui.goto('/app/my-profile');
  await ui.signInForm().waitFor({ state: 'visible' });
  await ui.waitForHash('/');
  await shot('guarded-route-signin-en');
});

suite.test('signs in again to the same email with a new code and lands on the remembered page', async () => {
  // The form opened by the guard in the previous test; the countdown for this email still runs.
  await ui.signInForm().waitFor({ state: 'visible' });
  await page.getByTestId('signin-email').fill(email);
  const send = page.getByTestId('signin-send');
  assert(await send.isDisabled(), 'the resend countdown for this email is still running');
  await page.waitForFunction(
    () => !(document.querySelector('[data-testid="signin-send"]') as HTMLButtonElement | null)?.disabled,
    null,
    {
      timeout: 75_000,
    },
  );
  const seen = new Set(listMails(server.outbox));
  await send.click();
  await fillCodeFromOutbox(email, seen);
  await page.getByTestId('signin-agree').check();
  const signIn = page.waitForResponse((r) => new URL(r.url()).pathname === '/auth/email');
  await page.getByTestId('signin-submit').click();
  assertEqual((await signIn).status(), 200, 'POST /auth/email');
  await ui.waitForHash('/app/my-profile');
  await page.getByTestId('profile-email').getByText(email).waitFor();
  const sid = await ui.waitForSid(state.registeredSid);
  const me = await apiMe(server.baseUrl, sid);
  assertEqual(me.body.id, state.registeredId, 'signed in to the registered account');
  state.registeredSid = sid;
  await shot('profile-en');
});

suite.test('the profile page refuses a sensitive name, saves a good one, and uploads an avatar', async () => {
  await ui.goto('/app/my-profile');
  const name = page.getByTestId('profile-name');
  await name.fill('shit happens');
  await page.getByTestId('profile-name-save').click();
  await page.getByText(errorMessage('SENSITIVE_WORDS', 'en'), { exact: true }).waitFor();
  await name.fill('E2E Tester');
  const saved = page.waitForResponse((r) => new URL(r.url()).pathname === '/accounts/me' && r.request().method() === 'PUT');
  await page.getByTestId('profile-name-save').click();
  assertEqual((await saved).status(), 200, 'PUT /accounts/me {name}');

  // The type is checked before anything is sent.
  let uploads = 0;
  const count = (r: Request) => {
    if (new URL(r.url()).pathname === '/uploads') uploads++;
  };
  page.on('request', count);
  const input = page.locator('input[type="file"]');
  await input.setInputFiles({ name: 'a.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
  await page.getByTestId('profile-avatar-hint').getByText('Please choose a PNG, JPEG or WebP image').waitFor();
  await page.waitForTimeout(300);
  assertEqual(uploads, 0, 'no upload for a GIF');
  page.off('request', count);

  const uploaded = page.waitForResponse((r) => new URL(r.url()).pathname === '/uploads');
  const updated = page.waitForResponse((r) => new URL(r.url()).pathname === '/accounts/me' && r.request().method() === 'PUT');
  await input.setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(PNG_1x1, 'base64') });
  const upload = await uploaded;
  assertEqual(upload.status(), 201, 'POST /uploads');
  const { url } = (await upload.json()) as { url: string };
  assertEqual((await updated).status(), 200, 'PUT /accounts/me {avatar}');
  await page.waitForFunction((u) => document.querySelector('[data-testid="profile-avatar"] img')?.getAttribute('src') === u, url);

  await page.reload();
  await page.getByTestId('profile-name').waitFor();
  assertEqual(await page.getByTestId('profile-name').inputValue(), 'E2E Tester', 'the name is kept');
  await shot('profile-edited-en');
});

suite.test('a signed-in user is sent from home to the dashboard and from /pricing to /app/pricing', async () => {
  await ui.goto('/');
  await ui.waitForHash('/app/dashboard');
  await ui.goto('/pricing');
  await ui.waitForHash('/app/pricing');
  await page.getByTestId('pricing-page').waitFor();
});

suite.test('switching language changes the visible text, and the choice persists', async () => {
  await ui.goto('/app/my-profile');
  for (const lang of ['zh-CN', 'zh-TW', 'en'] as const) {
    await ui.chooseLanguage(lang);
    assertEqual(await ui.text('nav-dashboard'), TEXT.dashboard[lang], `side bar in ${lang}`);
    assertEqual(await ui.text('page-title'), TEXT.profile[lang], `page title in ${lang}`);
    assertEqual(await page.evaluate(() => document.documentElement.lang), lang, `<html lang> in ${lang}`);
  }
  await ui.chooseLanguage('zh-TW');
  await page.reload();
  await page.getByTestId('nav-dashboard').waitFor();
  assertEqual(await ui.text('nav-dashboard'), TEXT.dashboard['zh-TW'], 'zh-TW is kept after a reload');
  // A locale without a translation shows English, keeps its flag, and asks the server in English.
  await ui.chooseLanguage('ja');
  const next = page.waitForRequest((r) => new URL(r.url()).pathname === '/accounts/me');
  assertEqual(await ui.text('nav-dashboard'), TEXT.dashboard.en, 'ja falls back to English');
  assert((await ui.text('language-menu')).includes('🇯🇵'), 'the menu shows the Japanese flag');
  await page.reload();
  assertEqual(new URL((await next).url()).searchParams.get('lang'), 'en', 'lang=en for a locale without a translation');
  await ui.chooseLanguage('en');
});

suite.test('documents render from GET /docs/{name}', async () => {
  for (const name of ['terms', 'privacy', 'updates']) {
    await ui.goto(`/${name}`);
    const title = page.getByTestId('doc-title');
    await title.waitFor();
    assert((await title.innerText()).trim().length > 0, `${name} has a title`);
    assert((await page.getByTestId('markdown').innerText()).trim().length > 50, `${name} has content`);
  }
});

suite.test('unknown paths show the not-found page', async () => {
  await ui.goto('/no-such-page');
  await page.getByTestId('not-found').waitFor();
  await ui.goto('/app/no-such-page');
  await page.getByTestId('not-found').waitFor();
});

suite.test('a refused stored session on a console route goes back to the root', async () => {
  const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const p = await fresh.newPage();
    await p.addInitScript(
      ([key]) => {
        if (!sessionStorage.getItem('e2e-seeded')) {
          localStorage.setItem(key as string, 'not-a-real-session');
          localStorage.setItem('polyvox.lang', 'en');
          sessionStorage.setItem('e2e-seeded', '1');
        }
      },
      [SID_KEY],
    );
    const other = new Console(p, server.baseUrl);
    await other.goto('/app/dashboard');
    await other.waitForHash('/');
    const sid = await other.waitForSid('not-a-real-session');
    assertEqual((await apiMe(server.baseUrl, sid)).body.anonymous, true, 'a new anonymous account replaces the refused session');
    await other.signInForm().waitFor({ state: 'visible' });
  } finally {
    await fresh.close();
  }
});

suite.test('the browser warning shows outside Chromium only', async () => {
  assertEqual(await page.getByTestId('browser-warning').count(), 0, 'no warning in Chromium');
  const firefox = await browser.newContext({
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    viewport: { width: 1280, height: 800 },
  });
  try {
    const p = await firefox.newPage();
    // A string, not a function: tsx's helpers (__name) do not exist in the page.
    await p.addInitScript({ content: "Object.defineProperty(Navigator.prototype, 'userAgentData', { get: () => undefined });" });
    await p.goto(`${server.baseUrl}/#/`);
    await p.getByTestId('browser-warning').waitFor();
  } finally {
    await firefox.close();
  }
});

async function main(): Promise<number> {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const f of fs.readdirSync(SHOTS)) if (f.startsWith('failed-')) fs.rmSync(path.join(SHOTS, f));
  try {
    ensureConsoleBuild();
    server = await startServer();
  } catch (error) {
    console.log(`could not start the platform: ${(error as Error).message}`);
    console.log(`0 passed, ${suite.size} failed`);
    return 1;
  }
  try {
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    ui = new Console(page, server.baseUrl);
    console.log(`console e2e against ${server.baseUrl} (DATA_DIR ${server.dataDir})`);
    await suite.run(async (name) => {
      await page.screenshot({ path: path.join(SHOTS, `failed-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.png`) });
    });
  } catch (error) {
    console.log(`the browser could not start: ${(error as Error).message}`);
    suite.failed = suite.size - suite.passed;
  } finally {
    await browser?.close().catch(() => undefined);
    await server.stop();
  }
  if (suite.failed > 0) console.log(`--- server output (tail) ---\n${server.logs().slice(-3000)}`);
  console.log(`${suite.passed} passed, ${suite.failed} failed`);
  return suite.failed > 0 ? 1 : 0;
}

process.exitCode = await main();
