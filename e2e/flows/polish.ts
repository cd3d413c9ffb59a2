import { Console } from '../lib/browser';
import { env, HANG_GUARD_MS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';

/** Opens the home page in a fresh browser set to `locale`, nothing stored: what a first visit looks like. */
async function firstVisit<T>(locale: string, viewport: { width: number; height: number }, work: (ui: Console) => Promise<T>) {
  const context = await env.browser.newContext({ viewport, locale });
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(HANG_GUARD_MS);
    const ui = new Console(page, env.server.baseUrl);
    await ui.goto('/');
    await page.getByTestId('language-menu').waitFor();
    return await work(ui);
  } finally {
    await context.close();
  }
}

/**
 * The console's rough edges a review in Chromium found (issue 29, point 10): the language menu and the first
 * language, the phone's tables and voice picker, the API keys page and its code sample, and the polish list.
 */
export function polishTests(): void {
  test('a first visit opens in the browser’s language when the console speaks it, zh-CN otherwise', async () => {
    const expected = [
      ['en-US', 'en-US', 'en'],
      ['en-GB', 'en-US', 'en'],
      ['zh-TW', 'zh-HK', 'zh-TW'],
      ['zh-CN', 'zh-CN', 'zh-CN'],
      ['fr-FR', 'zh-CN', 'zh-CN'],
    ] as const;
    for (const [browser, menu, html] of expected) {
      await firstVisit(browser, { width: 1280, height: 800 }, async (ui) => {
        await ui.page.waitForFunction(
          (c) => document.querySelector('[data-testid="language-menu"]')?.getAttribute('data-locale') === c,
          menu,
        );
        assertEqual(await ui.page.evaluate(() => document.documentElement.lang), html, `<html lang> for a ${browser} browser`);
      });
    }
  });

  test('the language menu says which languages show an English interface before one is picked, and names each', async () => {
    await firstVisit('zh-CN', { width: 390, height: 844 }, async (ui) => {
      const page = ui.page;
      // On a phone the button names the language beside its flag.
      assertEqual(await ui.text('language-menu-short'), '简', 'the phone button names the language');
      await page.getByTestId('language-menu').click();
      const note = (code: string) => page.getByTestId(`lang-option-${code}`).getByTestId('lang-option-note').innerText();
      // Each flag is labelled with its language, in the interface's language.
      assertEqual(await note('zh-HK'), '繁体中文', '繁體中文 (Hong Kong’s flag) is labelled Traditional Chinese');
      assertEqual(await note('en-US'), '英语', 'English (the US flag) is labelled English');
      assertEqual(await note('pt'), '葡萄牙语 · 界面为英文', 'Português says it shows an English interface');
      const fallbacks = await page.locator('[data-testid^="lang-option-"][data-fallback="en"]').count();
      assertEqual(fallbacks, 37, 'the 37 locales without a translation are marked');
      for (const code of ['ja', 'de', 'ar']) {
        const text = await note(code);
        assert(text.endsWith('界面为英文'), `${code} says before it is picked that the interface is in English (${text})`);
      }
      for (const code of ['zh-CN', 'zh-HK', 'en-US']) {
        assert(!(await note(code)).includes('英文'), `${code} is shown in its own translation`);
      }
      // No bare "EN" badge is left to guess at.
      const list = await page.getByTestId('language-list').innerText();
      assert(!/(^|\s)EN(\s|$)/.test(list), 'no bare EN marks');
      await ui.chooseLanguage('en');
      await page.getByTestId('language-menu').click();
      assertEqual(await note('zh-HK'), 'Traditional Chinese', 'in English: Traditional Chinese');
      assertEqual(await note('ja'), 'Japanese · interface in English', 'in English: Japanese, English interface');
      await page.keyboard.press('Escape');
    });
  });
}
