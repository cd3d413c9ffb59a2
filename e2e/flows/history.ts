import fs from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { SID_KEY } from '../lib/browser';
import { ensureSignedIn } from '../lib/account';
import { env, shot } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { assertFits, waitForSettledPage } from '../lib/layout-checks';
import { dismissToasts, waitForPlayback, waitForWaveform } from '../lib/speech';

const TITLE = { en: 'History', 'zh-CN': '生成历史', 'zh-TW': '生成歷史' } as const;

/** One synthesis with the page's session, as the playground makes it: its audio as delivered. */
async function synthesize(page: Page, text: string): Promise<Buffer> {
  const sid = await page.evaluate((k) => localStorage.getItem(k), SID_KEY);
  const res = await fetch(`${env.server.baseUrl}/tts`, {
    method: 'POST',
    headers: { 'x-sid': sid ?? '', 'content-type': 'application/json' },
    body: JSON.stringify({ text, voice_id: 'voice_espeak.en-us', format: 'mp3' }),
  });
  assertEqual(res.status, 200, `POST /tts "${text}"`);
  return Buffer.from(await res.arrayBuffer());
}

async function historyStatus(page: Page, id: string): Promise<number> {
  const sid = await page.evaluate((k) => localStorage.getItem(k), SID_KEY);
  return (await fetch(`${env.server.baseUrl}/v1/history/${id}`, { headers: { 'x-sid': sid ?? '' } })).status;
}

async function credits(page: Page): Promise<number> {
  const sid = await page.evaluate((k) => localStorage.getItem(k), SID_KEY);
  const me = (await (await fetch(`${env.server.baseUrl}/accounts/me`, { headers: { 'x-sid': sid ?? '' } })).json()) as {
    vip: { credits: number };
  };
  return me.vip.credits;
}

/** The items the page lists now, by their text. */
const listed = (page: Page) => page.getByTestId('history-item');

export function historyTests(): void {
  test('history: two syntheses listed, one found by search, played, downloaded as delivered and deleted; 390 and 1440 px', async () => {
    const page = env.page;
    await ensureSignedIn();
    const stamp = Date.now().toString(36);
    const lighthouse = `The lighthouse ${stamp} blinked twice.`;
    const harbour = `The harbour ${stamp} was quiet.`;
    const delivered = await synthesize(page, lighthouse);
    await synthesize(page, harbour);

    await env.ui.goto('/app/dashboard');
    await env.ui.chooseLanguage('en');
    await page.getByTestId('nav-history').first().click();
    await env.ui.waitForHash('/app/history');
    await page.getByTestId('history-page').waitFor();
    await waitForSettledPage(page);
    assertEqual(await env.ui.text('page-title'), TITLE.en, 'the title');
    // Both, newest first (each is recorded once its last byte left).
    await page.locator('[data-testid="history-item"]', { hasText: harbour }).waitFor();
    await page.locator('[data-testid="history-item"]', { hasText: lighthouse }).waitFor();

    // Found by a word of its text, whatever its case.
    await page.getByTestId('history-search').fill(`LIGHTHOUSE ${stamp}`);
    await page.waitForFunction((text) => {
      const items = document.querySelectorAll('[data-testid="history-item"]');
      return items.length === 1 && (items[0]!.textContent ?? '').includes(text);
    }, lighthouse);
    const item = listed(page).first();
    const id = (await item.getAttribute('data-id'))!;
    assert(id.startsWith('hist_'), `an item id: ${id}`);
    assert(/\d+ credits/.test(await item.getByTestId('history-credits').innerText()), 'its price shown');

    // Played with its waveform.
    const balance = await credits(page);
    await item.getByTestId('history-play').click();
    await page.getByTestId('history-player').waitFor();
    await waitForWaveform(page);
    await waitForPlayback(page, 'result-audio', 0.2);
    await assertFits(page, '/app/history 1280px playing');

    // Downloaded again: the very bytes delivered, at no charge.
    const download = page.waitForEvent('download');
    await item.getByTestId('history-download').click();
    const file = await fs.readFile((await (await download).path())!);
    assert(file.equals(delivered), `the download is the audio delivered (${file.length} vs ${delivered.length} bytes)`);
    assertEqual(await credits(page), balance, 'no charge for playing and downloading again');

    // Fits a desktop and a phone, with the player open (a notification still leaving from an earlier flow's page is
    // not this page's layout).
    await dismissToasts(page);
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.getByTestId('history-player').waitFor();
      await assertFits(page, `/app/history ${width}px`);
      if (width === 390) await shot('history-phone-en');
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    // Deleted: gone from the list and from the server.
    await dismissToasts(page);
    await item.getByTestId('history-delete').click();
    await page.getByTestId('history-delete-confirm').click();
    await page.locator(`[data-testid="history-item"][data-id="${id}"]`).waitFor({ state: 'detached' });
    assertEqual(await historyStatus(page, id), 404, 'the deleted item is gone');
    await page.getByTestId('empty-state').waitFor();

    // The other is still there, and the page speaks Chinese.
    await page.getByTestId('history-search').fill('');
    await page.locator('[data-testid="history-item"]', { hasText: harbour }).waitFor();
    for (const lang of ['zh-CN', 'zh-TW'] as const) {
      await env.ui.chooseLanguage(lang);
      await page.getByTestId('page-title').filter({ hasText: TITLE[lang] }).waitFor();
      const text = await page.getByTestId('history-page').innerText();
      assert(!/\bhistory\.[a-zA-Z]/.test(text), `no raw message key in ${lang}`);
      assert(!text.includes('Download') && !text.includes('Delete'), `no English label in ${lang}`);
    }
    await env.ui.chooseLanguage('en');
  });
}
