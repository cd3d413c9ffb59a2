import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Console, SID_KEY } from '../lib/browser';
import { ensureSignedIn } from '../lib/account';
import { env, shot, HANG_GUARD_MS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { givePlan } from '../lib/plan';
import { chooseOption, waitForRowsOfModel } from '../lib/speech';

/** Writes the server's SQLite database, as the operator's tools would (here: a trial spent to nothing). */
function setCredits(accountId: string, credits: number): void {
  const db = new SQLite(path.join(env.server.dataDir, 'polyvox.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('UPDATE accounts SET credits = ? WHERE id = ?').run(credits, accountId);
  } finally {
    db.close();
  }
}

async function accountOf(sid: string): Promise<{ id: string; vip: { credits: number; level: string } }> {
  const res = await fetch(`${env.server.baseUrl}/accounts/me`, { headers: { 'x-sid': sid } });
  return (await res.json()) as { id: string; vip: { credits: number; level: string } };
}

/** The home page's try-it box, the pricing and orders pages after a purchase, the voice picker, the key dialog. */
export function uxTests(): void {
  test('a visitor tries a voice on the home page with the trial credits, and sees why when none are left', async () => {
    // A new visitor from an address of its own: the flows before it spent this machine's trial grants per address.
    const context = await env.browser.newContext({
      viewport: { width: 390, height: 844 },
      extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.90' },
    });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(HANG_GUARD_MS);
      const ui = new Console(page, env.server.baseUrl);
      await ui.goto('/');
      const sid = await ui.waitForSid();
      const credits = page.getByTestId('home-try-credits');
      await page.locator('[data-testid="home-try-credits"][data-credits]').waitFor();
      const before = Number(await credits.getAttribute('data-credits'));
      assert(before > 0, `the trial credits are shown (${before})`);
      assert((await credits.innerText()).includes(new Intl.NumberFormat('zh-CN').format(before)), 'in the UI language');
      await page.getByTestId('home-try-text').fill('你好，世界');
      const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/tts' && r.request().method() === 'POST');
      await page.getByTestId('home-try-play').click();
      const answer = await answered;
      const asked = answer.request().postDataJSON() as { text: string; voice_id: string };
      // The element plays what came: its clock runs, and it reports no error (a JSON body in an audio/mpeg blob
      // failed here with DEMUXER_ERROR_COULD_NOT_OPEN and never played).
      const audio = page.locator('[data-testid="home-try-result"] audio');
      await audio.waitFor({ state: 'attached' });
      await page.waitForFunction(() => {
        const a = document.querySelector<HTMLAudioElement>('[data-testid="home-try-result"] audio');
        if (a?.error) throw new Error(`the audio failed: ${a.error.code} ${a.error.message}`);
        return a !== null && a.currentTime > 0.2;
      });
      assertEqual(await audio.evaluate((a: HTMLAudioElement) => a.error), null, 'the audio plays without an error');
      await page.waitForFunction(
        (b) => Number(document.querySelector('[data-testid="home-try-credits"]')?.getAttribute('data-credits')) < b,
        before,
      );
      const after = (await accountOf(sid)).vip.credits;
      assertEqual(Number(await credits.getAttribute('data-credits')), after, 'the box shows the balance the server keeps');
      // What it cost is the price of the words spoken, as the estimate gives it, and no more.
      const estimate = (await (
        await fetch(`${env.server.baseUrl}/tts/estimate`, {
          method: 'POST',
          headers: { 'x-sid': sid, 'content-type': 'application/json' },
          body: JSON.stringify({ text: asked.text, voice_id: asked.voice_id }),
        })
      ).json()) as { credits: number };
      assertEqual(before - after, estimate.credits, "the trial pays the spoken text's price");
      assertEqual(Number(answer.headers()['x-credits-charged']), estimate.credits, 'as the answer says');
      await shot('home-try-phone');

      // The trial spent: the box says so, in the visitor's language, and offers to sign up instead of a bare error.
      setCredits((await accountOf(sid)).id, 0);
      await page.getByTestId('home-try-play').click();
      const spent = page.getByTestId('home-try-spent');
      await spent.waitFor();
      assert((await spent.innerText()).includes('试用点数已用完'), 'the trial is said to be spent, in zh-CN');
      assertEqual(await page.getByTestId('home-try-error').count(), 0, 'no bare "Insufficient Balance"');
      await page.locator('[data-testid="home-try-credits"][data-credits="0"]').waitFor();
      assert(await page.getByTestId('home-try-play').isDisabled(), 'nothing more to play with no credits');
      await page.getByTestId('home-try-signup').click();
      await page.getByRole('dialog').waitFor();
    } finally {
      await context.close();
    }
  });

  test('pricing marks the plan the account is on and offers to renew it; a pending order can be paid from the list', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('en');
    await givePlan('monthly');
    await env.ui.goto('/app/pricing');
    const monthly = page.locator('[data-testid^="product-"][data-plan="monthly"]');
    await monthly.getByTestId('product-current').waitFor();
    assertEqual((await monthly.getByTestId('product-buy').innerText()).trim(), 'Renew', 'the current plan renews');
    assertEqual(await page.locator('[data-current="true"]').count(), 1, 'one current plan');
    const other = page
      .locator('[data-testid^="product-"][data-kind="plan"]:not([data-current])')
      .filter({ has: page.getByTestId('product-buy') });
    assertEqual((await other.first().getByTestId('product-buy').innerText()).trim(), 'Subscribe', 'other plans subscribe');

    const sid = (await env.ui.storage(SID_KEY))!;
    const productId = await monthly.getAttribute('data-product-id');
    const created = await fetch(`${env.server.baseUrl}/accounts/me/orders`, {
      method: 'POST',
      headers: { 'x-sid': sid, 'content-type': 'application/json' },
      body: JSON.stringify({ product: productId }),
    });
    assert(created.status === 200 || created.status === 201, `POST /accounts/me/orders: ${created.status}`);
    const order = (await created.json()) as { id: string };
    await page.setViewportSize({ width: 1440, height: 900 });
    try {
      await env.ui.goto('/app/orders');
      const row = page.locator(`[data-testid="order-row"][data-order-id="${order.id}"]`);
      const badge = row.getByTestId('order-status');
      await badge.waitFor();
      const fits = await badge.evaluate((el) => {
        const label = el.querySelector('.mantine-Badge-label') ?? el;
        return label.scrollWidth <= label.clientWidth;
      });
      assert(fits, 'the status badge shows its whole text');
      await shot('orders-pending-1440');
      await row.getByTestId('order-continue').click();
      await env.ui.waitForHash(`/app/orders/${order.id}/result`);
      await page.getByTestId('order-pay').waitFor();
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  test('the voice picker shows 20 voices a page, keeps its filters when reopened, and Enter picks a typed language', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('en');
    await env.ui.goto('/app/playground');
    await page.getByTestId('playground-page').waitFor();
    const open = page.getByTestId('playground-change-voice');
    await open.click();
    const picker = page.getByTestId('voice-picker');
    await picker.waitFor();
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="voice-picker"] [data-testid="voice-row"]').length === 20,
    );

    // The model first: choosing a model clears the language.
    await chooseOption(page, picker.getByTestId('filter-model'), 'eSpeak NG');
    await waitForRowsOfModel(page, '[data-testid="voice-picker"]', 'espeak-ng');
    const language = picker.locator('input[data-testid="filter-language"]');
    await language.click();
    await language.fill('Bashkir');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() =>
      (
        document.querySelector('[data-testid="voice-picker"] input[data-testid="filter-language"]') as HTMLInputElement | null
      )?.value.startsWith('Bashkir'),
    );
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll('[data-testid="voice-picker"] [data-testid="voice-row"]')).some((r) =>
        (r.textContent ?? '').includes('Bashkir'),
      ),
    );
    await page.keyboard.press('Escape');
    await picker.waitFor({ state: 'detached' });
    await open.click();
    await picker.waitFor();
    const kept = await picker.locator('input[data-testid="filter-language"]').inputValue();
    assert(kept.startsWith('Bashkir'), `the language filter is kept on reopening (${kept})`);
    await page.keyboard.press('Escape');
  });

  test('closing the show-once API key dialog with Escape asks first', async () => {
    const page = env.page;
    await ensureSignedIn();
    await env.ui.chooseLanguage('en');
    await env.ui.goto('/app/api-keys?create=1');
    // Mantine's modal root is a layout-less wrapper: wait for what the dialog shows.
    await page.getByTestId('key-create-submit').waitFor();
    await page.getByRole('dialog').locator('input').first().fill('escape test');
    await page.getByTestId('key-create-submit').click();
    await page.getByTestId('key-done').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('key-close-warning').waitFor();
    assert(await page.getByTestId('key-done').isVisible(), 'the key is still shown');
    await page.getByTestId('key-keep-open').click();
    await page.getByTestId('key-close-warning').waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await page.getByTestId('key-close-anyway').click();
    await page.getByTestId('key-done').waitFor({ state: 'detached' });
  });
}
