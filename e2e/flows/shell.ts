import { errorMessage } from '@polyvox/contracts';
import type { Request } from '@playwright/test';
import { apiMe, Console, SID_KEY } from '../lib/browser';
import { env, PNG_1X1, shot, TEXT } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';

/** The profile, route guards for signed-in users, languages, documents, not-found, start-up failures. */
export function shellTests(): void {
  test('the profile page refuses a sensitive name, saves a good one, and uploads an avatar', async () => {
    await env.ui.goto('/app/my-profile');
    const name = env.page.getByTestId('profile-name');
    await name.fill('shit happens');
    await env.page.getByTestId('profile-name-save').click();
    await env.page.getByText(errorMessage('SENSITIVE_WORDS', 'en'), { exact: true }).waitFor();
    await name.fill('E2E Tester');
    const saved = env.page.waitForResponse((r) => new URL(r.url()).pathname === '/accounts/me' && r.request().method() === 'PUT');
    await env.page.getByTestId('profile-name-save').click();
    assertEqual((await saved).status(), 200, 'PUT /accounts/me {name}');

    // The type is checked before anything is sent.
    let uploads = 0;
    const count = (r: Request) => {
      if (new URL(r.url()).pathname === '/uploads') uploads++;
    };
    env.page.on('request', count);
    const input = env.page.locator('input[type="file"]');
    await input.setInputFiles({ name: 'a.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
    await env.page.getByTestId('profile-avatar-hint').getByText('Please choose a PNG, JPEG or WebP image').waitFor();
    await env.page.waitForTimeout(300);
    assertEqual(uploads, 0, 'no upload for a GIF');
    env.page.off('request', count);

    const uploaded = env.page.waitForResponse((r) => new URL(r.url()).pathname === '/uploads');
    const updated = env.page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/accounts/me' && r.request().method() === 'PUT',
    );
    await input.setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(PNG_1X1, 'base64') });
    const upload = await uploaded;
    assertEqual(upload.status(), 201, 'POST /uploads');
    const { url } = (await upload.json()) as { url: string };
    assertEqual((await updated).status(), 200, 'PUT /accounts/me {avatar}');
    await env.page.waitForFunction(
      (u) => document.querySelector('[data-testid="profile-avatar"] img')?.getAttribute('src') === u,
      url,
    );

    await env.page.reload();
    await env.page.getByTestId('profile-name').waitFor();
    assertEqual(await env.page.getByTestId('profile-name').inputValue(), 'E2E Tester', 'the name is kept');
    await shot('profile-edited-en');
  });

  test('a signed-in user is sent from home to the dashboard and from /pricing to /app/pricing', async () => {
    await env.ui.goto('/');
    await env.ui.waitForHash('/app/dashboard');
    await env.ui.goto('/pricing');
    await env.ui.waitForHash('/app/pricing');
    await env.page.getByTestId('pricing-page').waitFor();
  });

  test('switching language changes the visible text, and the choice persists', async () => {
    await env.ui.goto('/app/my-profile');
    for (const lang of ['zh-CN', 'zh-TW', 'en'] as const) {
      await env.ui.chooseLanguage(lang);
      assertEqual(await env.ui.text('nav-dashboard'), TEXT.dashboard[lang], `side bar in ${lang}`);
      assertEqual(await env.ui.text('page-title'), TEXT.profile[lang], `page title in ${lang}`);
      assertEqual(await env.page.evaluate(() => document.documentElement.lang), lang, `<html lang> in ${lang}`);
    }
    await env.ui.chooseLanguage('zh-TW');
    await env.page.reload();
    await env.page.getByTestId('nav-dashboard').waitFor();
    assertEqual(await env.ui.text('nav-dashboard'), TEXT.dashboard['zh-TW'], 'zh-TW is kept after a reload');
    // A locale without a translation shows English, keeps its flag, and asks the server in English.
    await env.ui.chooseLanguage('ja');
    const next = env.page.waitForRequest((r) => new URL(r.url()).pathname === '/accounts/me');
    assertEqual(await env.ui.text('nav-dashboard'), TEXT.dashboard.en, 'ja falls back to English');
    // An SVG image, which every system draws (an emoji flag is two letters on Windows).
    const src = await env.page.waitForFunction(() => {
      const img = document.querySelector('[data-testid="language-menu"] img[data-flag="jp"]') as HTMLImageElement | null;
      return img && img.complete && img.naturalWidth > 0 ? img.getAttribute('src') : null;
    });
    const flag = (await src.jsonValue()) as string;
    assert(/\.svg$|^data:image\/svg/.test(flag), `the menu shows the Japanese flag as an SVG (${flag})`);
    await env.page.reload();
    assertEqual(new URL((await next).url()).searchParams.get('lang'), 'en', 'lang=en for a locale without a translation');
    await env.ui.chooseLanguage('en');
  });

  test('the dashboard has credits and calls cards and quick start steps 1 to 3; usage lists the records', async () => {
    await env.ui.goto('/app/dashboard');
    await env.page.getByTestId('dashboard-page').waitFor();
    await env.page.getByTestId('dashboard-credits').waitFor();
    await env.page.getByTestId('dashboard-calls').waitFor();
    for (const n of [1, 2, 3]) await env.page.getByTestId(`dashboard-step-${n}`).waitFor();
    const docs = env.page.getByTestId('dashboard-view-docs');
    assertEqual(await docs.getAttribute('href'), '/guide/', 'View docs opens the documentation site in the console’s language');
    const guide = await fetch(`${env.server.baseUrl}/guide/`);
    assertEqual(guide.status, 200, 'the documentation site is served');
    assert((await guide.text()).includes('/guide/reference'), 'the site links the API reference');
    assertEqual((await fetch(`${env.server.baseUrl}/reference`)).status, 200, 'the API reference is served');
    await shot('dashboard-steps-en');
    await env.page.getByTestId('dashboard-create-key').click();
    await env.ui.waitForHash('/app/api-keys?create=1');
    await env.page.getByTestId('key-name').waitFor();
    await env.page.keyboard.press('Escape');

    await env.ui.goto('/app/usage');
    const usage = env.page.getByTestId('usage-page');
    await usage.waitFor();
    // The account has been granted its free plan and charged in the playground: those are its records.
    await env.page.getByTestId('record-row').first().waitFor();
    const text = await usage.innerText();
    assert(!/no records yet|coming soon/i.test(text), `the usage page lists the records (${text.slice(0, 200)})`);
  });

  test('documents render from GET /docs/{name}', async () => {
    for (const name of ['terms', 'privacy', 'updates']) {
      await env.ui.goto(`/${name}`);
      const title = env.page.getByTestId('doc-title');
      await title.waitFor();
      assert((await title.innerText()).trim().length > 0, `${name} has a title`);
      assert((await env.page.getByTestId('markdown').innerText()).trim().length > 50, `${name} has content`);
      const page = await env.page.getByTestId(`doc-${name}`).innerText();
      const dates = page.match(/last updated/gi)?.length ?? 0;
      assert(dates <= 1, `${name} states its last-updated date once (${dates})`);
      assert((await env.page.locator('[data-testid="markdown"] h2').count()) > 0, `${name} has its sections as headings`);
    }
  });

  test('unknown paths show the not-found page', async () => {
    await env.ui.goto('/no-such-page');
    await env.page.getByTestId('not-found').waitFor();
    await env.ui.goto('/app/no-such-page');
    await env.page.getByTestId('not-found').waitFor();
  });

  test('a refused stored session on a console route goes back to the root', async () => {
    const fresh = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
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
      const other = new Console(p, env.server.baseUrl);
      await other.goto('/app/dashboard');
      await other.waitForHash('/');
      const sid = await other.waitForSid('not-a-real-session');
      assertEqual(
        (await apiMe(env.server.baseUrl, sid)).body.anonymous,
        true,
        'a new anonymous account replaces the refused session',
      );
      await other.signInForm().waitFor({ state: 'visible' });
    } finally {
      await fresh.close();
    }
  });

  test('the browser warning shows outside Chromium only', async () => {
    assertEqual(await env.page.getByTestId('browser-warning').count(), 0, 'no warning in Chromium');
    const firefox = await env.browser.newContext({
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
      viewport: { width: 1280, height: 800 },
    });
    try {
      const p = await firefox.newPage();
      // A string, not a function: helpers a TypeScript transform adds (__name) do not exist in the page.
      await p.addInitScript({
        content: "Object.defineProperty(Navigator.prototype, 'userAgentData', { get: () => undefined });",
      });
      await p.goto(`${env.server.baseUrl}/#/`);
      await p.getByTestId('browser-warning').waitFor();
    } finally {
      await firefox.close();
    }
  });
}
