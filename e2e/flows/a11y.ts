import fs from 'node:fs';
import path from 'node:path';
import { Console, SID_KEY } from '../lib/browser';
import { ensureSignedIn } from '../lib/account';
import { env, LANGS, SHOTS, shot, HANG_GUARD_MS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { axeViolations, busyReport, overflowReport, waitForSettledPage } from '../lib/layout-checks';

const PUBLIC_PAGES = ['/', '/pricing', '/check', '/terms', '/privacy', '/updates', '/no-such-page'];
const CONSOLE_PAGES = [
  '/app/dashboard',
  '/app/playground',
  '/app/text-to-voice',
  '/app/voice-cloning',
  '/app/mix',
  '/app/dialogue',
  '/app/studio',
  '/app/my-voices',
  '/app/history',
  '/app/models',
  '/app/voices',
  '/app/pricing',
  '/app/usage',
  '/app/orders',
  '/app/my-profile',
  '/app/api-keys',
  '/app/check',
  '/app/no-such-page',
];
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
];

/** Every page, at a phone's and a desktop's width, in the three languages: nothing sticks out, axe finds nothing serious. */
async function checkPages(ui: Console, pages: string[], label: string, langs: readonly string[] = LANGS): Promise<void> {
  const problems: string[] = [];
  for (const lang of langs) {
    await ui.goto(pages[0]!);
    await ui.chooseLanguage(lang);
    for (const viewport of VIEWPORTS) {
      await ui.page.setViewportSize(viewport);
      for (const route of pages) {
        await ui.goto(route);
        await waitForSettledPage(ui.page).catch(async (error: Error) =>
          problems.push(
            `${route} ${lang} ${viewport.width}px: no h1 or still loading (${error.message.split('\n')[0]}): ${await busyReport(ui.page)}`,
          ),
        );
        const where = `${route} ${lang} ${viewport.width}px`;
        const title = await ui.page.title();
        if (title === 'Polyvox' || title.trim() === '') problems.push(`${where}: the tab title is "${title}"`);
        // A chart drawn at the previous width re-measures itself a frame after the resize: wait for the
        // layout to settle (up to a few seconds), and report what still sticks out then.
        await ui.page
          .waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth, undefined, { timeout: 3000 })
          .catch(() => undefined);
        const overflow = await overflowReport(ui.page);
        if (overflow.scrollWidth > overflow.innerWidth)
          problems.push(`${where}: scrollWidth ${overflow.scrollWidth} > ${overflow.innerWidth}`);
        for (const o of overflow.offenders) problems.push(`${where}: beyond the right edge: ${o}`);
        for (const v of await axeViolations(ui.page)) problems.push(`${where}: ${v}`);
        if (viewport.width === 390 && lang === 'en')
          await ui.page.screenshot({ path: `${SHOTS}/phone-${label}-${route.replace(/[^a-z0-9]+/gi, '-')}.png`, fullPage: true });
      }
    }
  }
  await ui.page.setViewportSize({ width: 1280, height: 800 });
  // The whole list, for the reader of a failure (the failure's message names the first three).
  fs.writeFileSync(path.join(SHOTS, `a11y-problems-${label}.txt`), problems.join('\n'));
  assert(
    problems.length === 0,
    `${problems.length} problems (all in artifacts/screenshots/a11y-problems-${label}.txt):\n${problems.slice(0, 3).join('\n')}`,
  );
}

export function a11yTests(): void {
  test('public pages at 390 px and 1440 px in three languages: no overflow, no serious axe violation, a title', async () => {
    const context = await env.browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(HANG_GUARD_MS);
      const ui = new Console(page, env.server.baseUrl);
      await ui.goto('/');
      await ui.waitForSid();
      await checkPages(ui, PUBLIC_PAGES, 'public');
    } finally {
      await context.close();
    }
  });

  // One test a language: each visits every console page twice (390 px, 1440 px).
  for (const lang of LANGS)
    test(`console pages at 390 px and 1440 px in ${lang}: no overflow, no serious axe violation, an h1 and a title`, async () => {
      await ensureSignedIn();
      await checkPages(env.ui, CONSOLE_PAGES, `console-${lang}`, [lang]);
      await env.ui.chooseLanguage('en');
    });

  // A Studio project's editor has an address of its own: a book made through the API, then its page in three languages.
  test('the Studio editor at 390 px and 1440 px in three languages: no overflow, no serious axe violation', async () => {
    await ensureSignedIn();
    const sid = (await env.ui.storage(SID_KEY)) ?? '';
    const res = await fetch(`${env.server.baseUrl}/v1/studio/projects`, {
      method: 'POST',
      headers: { 'x-sid': sid, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'A11y book',
        text: '# One\n\nAnna: Hello.\n\nThe end of one.\n\n# Two\n\nBen: Goodbye.',
        text_format: 'markdown',
      }),
    });
    assertEqual(res.status, 200, 'POST /v1/studio/projects');
    const { project } = (await res.json()) as { project: { project_id: string } };
    // With the list between two visits: each visit of the editor shows a heading of its own to wait for.
    await checkPages(env.ui, ['/app/studio', `/app/studio/${project.project_id}`], 'studio-editor');
    await env.ui.chooseLanguage('en');
  });

  // The pages' checks see each page as it opens; these see the dialogs people meet on them.
  test('dialogs in three languages: sign-in, its agreement question linking both documents, the key shown once, the voice picker', async () => {
    const problems: string[] = [];
    // Once a dialog has finished opening: axe would read a fading dialog's colours as too little contrast.
    const axe = async (where: string, on = env.page) => {
      await on.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
      for (const v of await axeViolations(on)) problems.push(`${where}: ${v}`);
    };
    const page = env.page;
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      // A visitor's dialogs: a fresh context, not signed in.
      const visitor = new Console(await context.newPage(), env.server.baseUrl);
      visitor.page.setDefaultTimeout(HANG_GUARD_MS);
      await visitor.goto('/');
      await visitor.waitForSid();
      for (const lang of LANGS) {
        await visitor.chooseLanguage(lang);
        await visitor.openSignInFromHeader();
        await axe(`sign-in ${lang}`, visitor.page);
        await visitor.page.getByTestId('signin-email').fill('a11y-dialogs@example.com');
        await visitor.page.getByTestId('signin-code').fill('123456');
        // Submitted without the agreement ticked: the question names both documents, each a link that opens it.
        await visitor.page.getByTestId('signin-submit').click();
        const question = visitor.page.getByTestId('agree-dialog');
        await question.waitFor();
        for (const [id, href] of [
          ['agree-terms', '/#/terms'],
          ['agree-privacy', '/#/privacy'],
        ] as const) {
          const link = question.getByTestId(id);
          assertEqual(await link.getAttribute('href'), href, `${lang}: ${id} links the document`);
          assert((await link.innerText()).trim().length > 1, `${lang}: ${id} has a visible name`);
        }
        await axe(`agreement question ${lang}`, visitor.page);
        await question.getByTestId('agree-cancel').click();
        await question.waitFor({ state: 'hidden' });
        await visitor.closeSignIn();
      }

      // A signed-in user's: the key shown once, and the voice picker.
      await ensureSignedIn();
      for (const lang of LANGS) {
        await env.ui.chooseLanguage(lang);
        await env.ui.goto('/app/api-keys?create=1');
        await page.getByTestId('key-create-submit').waitFor();
        await axe(`new key ${lang}`);
        await page.getByRole('dialog').locator('input').first().fill(`a11y ${lang}`);
        await page.getByTestId('key-create-submit').click();
        await page.getByTestId('key-done').waitFor();
        await axe(`key shown once ${lang}`);
        await page.keyboard.press('Escape');
        await page.getByTestId('key-close-warning').waitFor();
        await axe(`closing the key ${lang}`);
        await page.getByTestId('key-close-anyway').click();
        await page.getByTestId('key-done').waitFor({ state: 'detached' });

        await env.ui.goto('/app/playground');
        await page.getByTestId('playground-page').waitFor();
        await page.getByTestId('playground-change-voice').click();
        await page.getByTestId('voice-picker').waitFor();
        await axe(`voice picker ${lang}`);
        await page.keyboard.press('Escape');
        await page.getByTestId('voice-picker').waitFor({ state: 'hidden' });
      }
    } finally {
      await context.close();
      await env.ui.chooseLanguage('en');
    }
    fs.writeFileSync(path.join(SHOTS, 'a11y-problems-dialogs.txt'), problems.join('\n'));
    assert(
      problems.length === 0,
      `${problems.length} problems (all in artifacts/screenshots/a11y-problems-dialogs.txt):\n${problems.slice(0, 3).join('\n')}`,
    );
  });

  test('the phone menu opens and closes with Escape and Back, and says whether it is open', async () => {
    const page = env.page;
    await ensureSignedIn();
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await env.ui.goto('/app/dashboard');
      await waitForSettledPage(page);
      const burger = page.getByTestId('nav-burger');
      assertEqual(await burger.getAttribute('aria-expanded'), 'false', 'aria-expanded when closed');
      const nav = page.getByTestId('nav-usage');
      await burger.click();
      await nav.waitFor({ state: 'visible' });
      assertEqual(await burger.getAttribute('aria-expanded'), 'true', 'aria-expanded when open');
      await page.keyboard.press('Escape');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="nav-burger"]')?.getAttribute('aria-expanded') === 'false',
      );
      await nav.waitFor({ state: 'hidden' });

      await env.ui.goto('/app/usage');
      await waitForSettledPage(page);
      await burger.click();
      await nav.waitFor({ state: 'visible' });
      await page.goBack();
      await env.ui.waitForHash('/app/dashboard');
      await nav.waitFor({ state: 'hidden' });
      assertEqual(await burger.getAttribute('aria-expanded'), 'false', 'closed after Back');
      await shot('phone-menu-closed');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
}

/** Lists whose request fails show an error with a retry, never the empty state. */
const FAILING_LISTS: Array<{ route: string; path: string; what: string; query?: string }> = [
  { route: '/app/usage', path: '/api/credits/records', what: 'records' },
  { route: '/app/orders', path: '/api/accounts/me/orders', what: 'orders' },
  { route: '/app/api-keys', path: '/api/authorization', what: 'keys' },
  { route: '/app/my-voices', path: '/voice', what: 'my-voices', query: 'source=mine' },
  { route: '/app/voices', path: '/voice', what: 'voices', query: 'source=official' },
  { route: '/app/pricing', path: '/products', what: 'products' },
  { route: '/app/dashboard', path: '/api/statistics/current', what: 'stats' },
  { route: '/app/text-to-voice', path: '/voice/previews', what: 'previews' },
  { route: '/app/studio', path: '/v1/studio/projects', what: 'projects' },
];

export function consoleListTests(): void {
  test('every list shows a load error with a retry when its request fails (500), then the list once it answers', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('zh-TW');
    for (const { route, path: apiPath, what, query } of FAILING_LISTS) {
      let failing = true;
      const matcher = (url: URL) => url.pathname === apiPath && (!query || url.search.includes(query));
      await page.route(matcher, async (r) => {
        if (failing && r.request().method() === 'GET')
          await r.fulfill({
            status: 500,
            contentType: 'application/json',
            body: JSON.stringify({ code: 'INTERNAL', message: '' }),
          });
        else await r.fallback();
      });
      try {
        await env.ui.goto(route);
        // A fresh document: nothing cached from an earlier visit stands in for the failed answer.
        await page.reload();
        const error = page.getByTestId(`load-error-${what}`);
        await error.waitFor({ timeout: 60_000 });
        assertEqual(await page.getByTestId('empty-state').count(), 0, `${route}: no empty state beside the error`);
        const text = await error.innerText();
        assert(text.includes('載入失敗') && text.includes('再試一次'), `${route}: the error speaks zh-TW: ${text}`);
        failing = false;
        await error.getByTestId('load-error-retry').click();
        await error.waitFor({ state: 'detached', timeout: 60_000 });
      } finally {
        await page.unroute(matcher);
      }
    }
    await shot('load-error-retried');
    await env.ui.chooseLanguage('en');
  });
}
