import type { ConsoleMessage, Request } from '@playwright/test';
import { env, LANGS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';

const TITLES: Record<(typeof LANGS)[number], string> = {
  en: 'Polyvox API',
  'zh-CN': 'Polyvox 接口',
  'zh-TW': 'Polyvox 介面',
};

/** The first section of the reference: the public speech API, named in the page's language. */
const FIRST_SECTION: Record<(typeof LANGS)[number], string> = { en: 'synthesis', 'zh-CN': '语音合成', 'zh-TW': '語音合成' };

/** The label of Scalar's search box in the pack it uses for each language. */
const SEARCH: Record<(typeof LANGS)[number], string> = { en: 'Search', 'zh-CN': '搜索', 'zh-TW': '搜索' };

/**
 * The API reference (Scalar at /reference) in each of the console's languages (the shell flow checks that the
 * dashboard's "View docs" names the console's language),
 * without Scalar's own buttons (Ask AI, MCP, Deploy, Share, the API client), asking no other host for anything and
 * logging no error.
 */
export function referenceTests(): void {
  test('the API reference asks only this server, logs no error, and shows none of Scalar’s own buttons', async () => {
    const origin = new URL(env.server.baseUrl).origin;
    for (const lang of LANGS) {
      const page = await env.page.context().newPage();
      const foreign: string[] = [];
      const errors: string[] = [];
      const onRequest = (r: Request) => {
        const url = new URL(r.url());
        if (url.protocol === 'data:' || url.protocol === 'blob:') return;
        if (url.origin !== origin) foreign.push(r.url());
      };
      const onConsole = (m: ConsoleMessage) => {
        if (m.type() === 'error') errors.push(`${m.text()} ${m.location().url}`);
      };
      page.on('request', onRequest);
      page.on('console', onConsole);
      page.on('pageerror', (e) => errors.push(e.message));
      try {
        // The reference's script is 4 MB: on a loaded machine it takes a while to arrive and start.
        await page.goto(`${env.server.baseUrl}/reference/?lang=${lang}`, { waitUntil: 'load', timeout: 120_000 });
        // The document is in: its title, in the page's language, heads the reference.
        await page.getByText(TITLES[lang], { exact: true }).first().waitFor({ timeout: 120_000 });
        assertEqual(await page.title(), TITLES[lang], `title in ${lang}`);
        // Scalar's own words too, where it has the language (no Traditional Chinese pack: Simplified there).
        await page.getByText(SEARCH[lang], { exact: true }).first().waitFor();
        // The public speech API leads, in the page's language; the account's internals come after it.
        const first = page.getByText(FIRST_SECTION[lang], { exact: true }).first();
        await first.waitFor();
        const accounts = page.getByText(lang === 'en' ? 'accounts' : lang === 'zh-CN' ? '账户' : '帳戶', { exact: true }).first();
        const [a, b] = [await first.boundingBox(), await accounts.boundingBox()];
        assert(a !== null && b !== null && a.y < b.y, `${FIRST_SECTION[lang]} is listed before the account's routes (${lang})`);
        for (const label of ['Ask AI', 'Generate MCP', 'Deploy', 'Share', 'Open API Client', 'Test Request']) {
          assertEqual(await page.getByRole('button', { name: label, exact: true }).count(), 0, `no "${label}" button (${lang})`);
          assertEqual(await page.getByRole('link', { name: label, exact: true }).count(), 0, `no "${label}" link (${lang})`);
        }
        assert(foreign.length === 0, `requests to other hosts (${lang}): ${foreign.join(', ')}`);
        assert(errors.length === 0, `console errors (${lang}): ${errors.join(' | ')}`);
      } finally {
        await page.close();
      }
    }
  });
}
