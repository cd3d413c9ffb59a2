import { errorMessage } from '@polyvox/contracts';
import type { Page } from '@playwright/test';
import { apiMe, SID_KEY } from '../lib/browser';
import { env, kept, LANGS, shot, state, HANG_GUARD_MS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { listMails, waitForCode } from '../lib/outbox';

/**
 * The credits economy in the console: pricing in each language's currency, buying a monthly plan
 * through the server's own sandbox checkout, the result and orders pages, usage records and the
 * chart, and API keys (created once, copied, used from outside the browser, renamed, limited, deleted).
 */

const CURRENCY = { en: 'USD', 'zh-CN': 'CNY', 'zh-TW': 'CNY' } as const;
const SPEECH = { text: 'Hello from an API key.', voice_id: 'voice_flite.slt', format: 'mp3' };

const economy = kept<{
  email: string;
  sid?: string;
  creditsBefore?: number;
  orderId?: string;
  keyId?: string;
  key?: string;
}>('economy', { email: `e2e-economy-${Date.now()}@example.com` });

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${env.server.baseUrl}${path}`, {
    method,
    headers: { 'x-sid': economy.sid ?? '', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function balance(): Promise<number> {
  const me = await api<{ vip: { credits: number } }>('GET', '/accounts/me');
  assertEqual(me.status, 200, 'GET /accounts/me');
  return me.body.vip.credits;
}

/**
 * The flows before this one leave a registered account signed in; run alone (E2E_FLOWS=economy),
 * the browser's anonymous account is registered here with a mailed code, as the console would. Returns the session
 * id. The one helper of every flow that needs a registered account (economy, design, the admin flows).
 */
export async function ensureRegistered(page: Page): Promise<string> {
  await env.ui.goto('/');
  let sid = await env.ui.waitForSid();
  const me = await apiMe(env.server.baseUrl, sid);
  if (me.body.anonymous !== false) {
    const seen = new Set(listMails(env.server.outbox));
    const headers = { 'x-sid': sid, 'content-type': 'application/json' };
    const sent = await fetch(`${env.server.baseUrl}/verification/email`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email: economy.email }),
    });
    assertEqual(sent.status, 200, 'POST /verification/email');
    const { code } = await waitForCode(env.server.outbox, economy.email, seen);
    const res = await fetch(`${env.server.baseUrl}/accounts/me/email`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ email: economy.email, vcode: code }),
    });
    assertEqual(res.status, 200, 'PUT /accounts/me/email');
    sid = ((await res.json()) as { sid: string }).sid;
    await page.evaluate(([k, v]) => localStorage.setItem(k!, v!), [SID_KEY, sid]);
    // A new hash alone does not reload the page: the console reads the stored session at start.
    await page.reload();
    state.registeredSid = sid;
  }
  economy.sid = sid;
  await env.ui.goto('/app/dashboard');
  await page.getByTestId('dashboard-page').waitFor();
  return sid;
}

/** Clicks the sandbox checkout's button for `outcome` on the server's own payment page. */
async function completeSandbox(popup: Page, outcome: 'success' | 'fail'): Promise<void> {
  await popup.waitForURL(/\/pay\/sandbox\//);
  const button = popup.locator(`[data-outcome="${outcome}"], button[name="outcome"][value="${outcome}"]`).first();
  await button.click();
}

function numberIn(text: string): number {
  return Number(text.replace(/[^\d-]/g, ''));
}

export function economyTests(): void {
  test('an anonymous visitor sees public prices and is asked to sign in to buy', async () => {
    // A fresh browser context: its own anonymous account, nothing shared with the signed-in page.
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(HANG_GUARD_MS);
      await page.goto(`${env.server.baseUrl}/#/pricing`);
      const monthly = page.locator('[data-plan="monthly"]');
      await monthly.waitFor();
      // The first visit speaks zh-CN: prices in yuan.
      assertEqual(await monthly.getByTestId('product-price').getAttribute('data-currency'), 'CNY', 'zh-CN shows CNY');
      let orders = 0;
      page.on('request', (r) => {
        if (new URL(r.url()).pathname === '/accounts/me/orders') orders++;
      });
      await monthly.getByTestId('product-buy').click();
      await page.getByTestId('signin-form').waitFor();
      assertEqual(orders, 0, 'no order is placed before signing in');
      assertEqual(await page.getByTestId('checkout-dialog').count(), 0, 'no checkout for an anonymous visitor');
    } finally {
      await context.close();
    }
  });

  test('pricing lists plans and credit packs in the currency of the language (screenshots)', async () => {
    const page = env.page;
    await ensureRegistered(page);
    await env.ui.goto('/app/pricing');
    for (const lang of LANGS) {
      await env.ui.chooseLanguage(lang);
      const monthly = page.locator('[data-plan="monthly"]');
      await monthly.waitFor();
      const price = monthly.getByTestId('product-price');
      await page.waitForFunction(
        ([c]) =>
          document.querySelector('[data-plan="monthly"] [data-testid="product-price"]')?.getAttribute('data-currency') === c,
        [CURRENCY[lang]] as const,
      );
      const shown = await price.innerText();
      assert(/\d/.test(shown), `the monthly price shows a number in ${lang}: ${shown}`);
      assert(lang === 'en' ? shown.includes('$') : shown.includes('¥'), `the ${lang} price is in ${CURRENCY[lang]}: ${shown}`);
      for (const plan of ['quarterly', 'half_year', 'annual']) await page.locator(`[data-plan="${plan}"]`).waitFor();
      await page.waitForTimeout(300);
      await shot(`pricing-${lang}`);
    }
    await env.ui.chooseLanguage('en');
    await page.getByTestId('pricing-kind').getByText('Credit packs').click();
    await page.locator('[data-kind="credits"]').first().waitFor();
    assertEqual(await page.locator('[data-kind="plan"]').count(), 0, 'the credit packs tab shows packs only');
  });

  test('buys a monthly plan through the sandbox checkout and sees the credits rise', async () => {
    const page = env.page;
    economy.creditsBefore = await balance();
    await env.ui.goto('/app/pricing');
    const monthly = page.locator('[data-plan="monthly"]');
    await monthly.waitFor();
    const granted = numberIn(await monthly.getByTestId('product-credits').innerText());
    assert(granted > 0, 'the monthly plan grants credits');
    await monthly.getByTestId('product-buy').click();
    const dialog = page.getByTestId('checkout-dialog');
    await page.getByTestId('method-sandbox').waitFor();
    for (const method of ['card', 'alipay', 'wechat']) {
      assertEqual(await page.getByTestId(`method-${method}`).count(), 0, `${method} is not offered: it is not configured`);
    }
    const popupPromise = page.context().waitForEvent('page');
    const paying = page.waitForResponse((r) => /\/payment\/sandbox$/.test(new URL(r.url()).pathname));
    await page.getByTestId('checkout-pay').click();
    const popup = await popupPromise;
    assertEqual((await paying).status(), 200, 'POST …/payment/sandbox');
    await dialog.locator('[data-testid="checkout-pending"][data-phase="waiting"]').waitFor();
    await dialog.getByText('Processing, please wait...').first().waitFor();
    await shot('checkout-waiting-en');
    await completeSandbox(popup, 'success');
    // The provider sends the buyer back to the order's result page (in the checkout tab).
    await popup.waitForURL(/#\/app\/orders\/[^/]+\/result$/);
    await popup.close();

    // The console's own tab followed the order to the same page.
    await page.waitForURL(/#\/app\/orders\/[^/]+\/result$/);
    economy.orderId = decodeURIComponent(/orders\/([^/]+)\/result/.exec(page.url())![1]!);
    const result = page.getByTestId('order-result');
    await page.locator('[data-testid="order-result"][data-status="successful"]').waitFor();
    await result.getByText('Payment successful').waitFor();
    const after = await balance();
    assertEqual(after, economy.creditsBefore + granted, 'the balance rose by the plan’s credits');
    await page.waitForFunction(
      (n) => Number(document.querySelector('[data-testid="order-result-balance"]')?.textContent?.replace(/\D/g, '')) === n,
      after,
    );
    await shot('order-result-en');

    await env.ui.goto('/app/dashboard');
    await page.waitForFunction(
      (n) => Number(document.querySelector('[data-testid="dashboard-credits"]')?.textContent?.replace(/\D/g, '')) === n,
      after,
    );
    assertEqual(await page.getByTestId('dashboard-plan').innerText(), 'Monthly', 'the account is on the monthly plan');
  });

  test('the orders page lists the paid order with its localized status and amount', async () => {
    const page = env.page;
    await env.ui.goto('/app/orders');
    const row = page.locator(`[data-testid="order-row"][data-order-id="${economy.orderId}"]`);
    await row.waitFor();
    assertEqual(await row.getByTestId('order-status').innerText(), 'PAID', 'status in English');
    assert((await row.getByTestId('order-amount').innerText()).includes('$'), 'amount with its currency');
    await env.ui.chooseLanguage('zh-CN');
    await page.waitForFunction(
      (id) => document.querySelector(`[data-order-id="${id}"] [data-testid="order-status"]`)?.textContent === '已支付',
      economy.orderId,
    );
    await env.ui.chooseLanguage('en');
  });

  test('a payment refused at the checkout ends as a failed order, nothing credited (zh-CN)', async () => {
    const page = env.page;
    const before = await balance();
    await env.ui.goto('/app/pricing?kind=credits');
    await env.ui.chooseLanguage('zh-CN');
    const pack = page.locator('[data-kind="credits"]').first();
    await pack.waitFor();
    await pack.getByTestId('product-buy').click();
    const popupPromise = page.context().waitForEvent('page');
    await page.getByTestId('checkout-pay').click();
    const popup = await popupPromise;
    await page.getByText('处理中，请稍候...').first().waitFor();
    await completeSandbox(popup, 'fail');
    await popup.waitForURL(/#\/app\/orders\/[^/]+\/result$/);
    await popup.close();
    await page.locator('[data-testid="order-result"][data-status="failed"]').waitFor();
    assertEqual(await page.getByTestId('order-result-title').innerText(), '支付失败', 'the failure in Chinese');
    assertEqual(await balance(), before, 'nothing was credited');
    await shot('order-failed-zh-CN');
    await env.ui.chooseLanguage('en');
  });

  test('a blocked checkout tab is offered as a link; an unconfigured method says to try another', async () => {
    const page = env.page;
    await env.ui.goto('/app/pricing?kind=credits');
    const pack = page.locator('[data-kind="credits"]').first();
    await pack.waitFor();
    // The browser refuses the tab, as a popup blocker does.
    await page.evaluate(() => {
      window.open = () => null;
    });
    await pack.getByTestId('product-buy').click();
    await page.getByTestId('checkout-pay').click();
    await page.getByTestId('checkout-blocked').waitFor();
    const href = await page.getByTestId('checkout-open-link').getAttribute('href');
    assert(href && new URL(href).pathname.startsWith('/pay/sandbox/'), `the link opens the sandbox checkout: ${href}`);
    await shot('checkout-blocked-en');
    await page.keyboard.press('Escape');
    await page.getByTestId('checkout-dialog').waitFor({ state: 'detached' });

    // A method the server has not configured: its 422 is shown in the dialog, in the seed's words.
    await page.route('**/payments/methods**', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ items: ['card', 'sandbox'] }) }),
    );
    await env.ui.goto('/app/pricing?kind=credits');
    await page.reload();
    await page.locator('[data-kind="credits"]').first().getByTestId('product-buy').click();
    await page.getByTestId('method-card').click();
    const refused = page.waitForResponse((r) => /\/payment\/card$/.test(new URL(r.url()).pathname));
    await page.getByTestId('checkout-pay').click();
    assertEqual((await refused).status(), 422, 'an unconfigured method answers 422');
    const problem = await page.getByTestId('checkout-problem').innerText();
    assertEqual(problem, errorMessage('PAYMENT_METHOD_UNAVAILABLE', 'en'), 'the message of PAYMENT_METHOD_UNAVAILABLE');
    await page.unroute('**/payments/methods**');
    await page.keyboard.press('Escape');
  });

  test('an order left awaiting payment is paid later from the orders page', async () => {
    const page = env.page;
    await page.reload(); // the popup blocker of the test before is gone
    await env.ui.goto('/app/orders');
    const pending = page.locator('[data-testid="order-row"]:has([data-status="pending_payment"])').first();
    await pending.waitFor();
    assertEqual(await pending.getByTestId('order-status').innerText(), 'AWAITING PAYMENT', 'status in English');
    const id = await pending.getAttribute('data-order-id');
    const before = await balance();
    await pending.getByRole('link').first().click();
    await env.ui.waitForHash(`/app/orders/${id}/result`);
    await page.getByTestId('order-pay').click();
    const popupPromise = page.context().waitForEvent('page');
    await page.getByTestId('checkout-pay').click();
    const popup = await popupPromise;
    await completeSandbox(popup, 'success');
    await popup.close();
    await page.locator('[data-testid="order-result"][data-status="successful"]').waitFor();
    assert((await balance()) > before, 'the credits of the order were added');
    const orders = await api<{ items: { id: string; status: string }[] }>('GET', '/api/accounts/me/orders?limit=100');
    assertEqual(orders.body.items.find((o) => o.id === id)?.status, 'successful', 'the same order was paid, no new one');
  });

  test('usage shows the purchase in its records, filters by type, and charts credits per day (screenshots)', async () => {
    const page = env.page;
    await env.ui.goto('/app/usage');
    const purchase = page.locator('[data-testid="record-row"][data-type="purchase"]').first();
    await purchase.waitFor();
    assert(Number(await purchase.getAttribute('data-amount')) > 0, 'the purchase adds credits');
    await page.getByTestId('credits-chart').waitFor();
    await page.getByTestId('filter-type').selectOption('purchase');
    await page.waitForFunction(() => {
      const rows = Array.from(document.querySelectorAll('[data-testid="record-row"]'));
      return rows.length > 0 && rows.every((r) => r.getAttribute('data-type') === 'purchase');
    });
    // A range that ended before the purchase finds nothing.
    await page.getByTestId('filter-to').fill('2020-01-01');
    await page.getByText('No matching records').waitFor();
    await page.getByTestId('filter-clear').click();
    await page.locator('[data-testid="record-row"]').first().waitFor();
    for (const lang of LANGS) {
      await env.ui.chooseLanguage(lang);
      await page.locator('.recharts-surface').first().waitFor();
      await page.waitForTimeout(400);
      await shot(`usage-${lang}`);
    }
    await env.ui.chooseLanguage('en');
  });

  test('creates an API key, shown once with a copy button, and calls the API with it', async () => {
    const page = env.page;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.baseUrl });
    await env.ui.goto('/app/api-keys');
    await page.getByTestId('key-create').click();
    await page.getByTestId('key-create-submit').click();
    await page.getByText('Please give the key a name').waitFor();
    await page.getByTestId('key-name').fill('e2e server');
    await page.getByTestId('key-limit').fill('-3');
    await page.getByTestId('key-create-submit').click();
    await page.getByText('Enter a whole number of credits, or leave it empty').waitFor();
    await page.getByTestId('key-limit').fill('5000');
    await page.getByTestId('key-create-submit').click();
    const secretInput = page.getByTestId('key-secret');
    await secretInput.waitFor();
    const secret = await secretInput.inputValue();
    assert(secret.length >= 20, 'the secret is shown');
    await page.getByTestId('key-copy').click();
    await page.getByTestId('key-copied').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assertEqual(copied, secret, 'the clipboard holds the secret');
    await shot('key-created-en');
    await page.getByTestId('key-done').click();
    economy.key = copied;

    const row = page.locator('[data-testid="key-row"][data-name="e2e server"]');
    await row.waitFor();
    economy.keyId = (await row.getAttribute('data-key-id')) ?? undefined;
    const prefix = (await row.getByTestId('key-row-prefix').innerText()).replace(/…$/, '');
    assert(secret.startsWith(prefix), `the list shows the secret's prefix (${prefix}) and not the secret`);
    assert(!(await page.getByTestId('api-keys-page').innerText()).includes(secret), 'the secret is not shown again');
    assertEqual(await row.getByTestId('key-row-last-used').innerText(), 'Never', 'a new key was never used');

    // The key works from outside the browser, as a program would use it.
    const tts = await fetch(`${env.server.baseUrl}/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${copied}`, 'content-type': 'application/json' },
      body: JSON.stringify(SPEECH),
    });
    assertEqual(tts.status, 200, 'POST /tts with the key');
    assertEqual(tts.headers.get('content-type'), 'audio/mpeg', 'audio comes back');
    const charged = Number(tts.headers.get('x-credits-charged'));
    assert(charged > 0 && (await tts.arrayBuffer()).byteLength > 1000, 'the call was charged and returned audio');
    const me = await fetch(`${env.server.baseUrl}/api/me`, { headers: { 'xi-api-key': copied } });
    assertEqual(me.status, 200, 'GET /api/me with xi-api-key');

    await page.reload();
    await page.waitForFunction(
      ([id, used]) => document.querySelector(`[data-key-id="${id}"] [data-testid="key-row-used"]`)?.textContent === String(used),
      [economy.keyId, charged] as const,
    );
    assert((await row.getByTestId('key-row-last-used').innerText()) !== 'Never', 'last used is set');
    for (const lang of LANGS) {
      await env.ui.chooseLanguage(lang);
      await page.waitForTimeout(300);
      await shot(`api-keys-${lang}`);
    }
    await env.ui.chooseLanguage('en');
  });

  test('usage lists the API call with its key, and filters by the key', async () => {
    const page = env.page;
    await env.ui.goto('/app/usage');
    await page.getByTestId('filter-key').selectOption(economy.keyId!);
    const apiRow = page.locator('[data-testid="record-row"][data-type="api"]').first();
    await apiRow.waitFor();
    await page.waitForFunction(() => {
      const rows = Array.from(document.querySelectorAll('[data-testid="record-row"]'));
      return rows.length === 1 && rows[0]!.getAttribute('data-type') === 'api';
    });
    assert((await apiRow.innerText()).includes('e2e server'), 'the record names its key');
    const charged = -Number(await apiRow.getAttribute('data-amount'));

    // The chart and the dashboard count the call and its credits.
    await page.waitForFunction(
      (n) => Number(document.querySelector('[data-testid="credits-chart"]')?.getAttribute('data-total')) >= n,
      charged,
    );
    await env.ui.goto('/app/dashboard');
    // "API calls" counts the calls made with a key (one so far), not the console's own use.
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="dashboard-calls"]')?.textContent) === 1);
    await page.getByTestId('credits-chart').waitFor();
    await page.locator('.recharts-surface').first().waitFor();
    // Credits as bars on the left axis, calls as a line on an axis of their own on the right.
    await page.waitForFunction(
      () =>
        document.querySelectorAll('[data-testid="credits-chart"] .recharts-yAxis').length === 2 &&
        document.querySelectorAll('[data-testid="credits-chart"] .recharts-line').length === 1 &&
        document.querySelectorAll('[data-testid="credits-chart"] .recharts-bar').length === 1,
    );
    await shot('dashboard-stats-en');
  });

  test('the copy button says so when the browser refuses the clipboard', async () => {
    const page = env.page;
    await env.ui.goto('/app/api-keys');
    await page.getByTestId('keys-table').waitFor();
    await page.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));
    });
    await page.getByTestId('key-create').click();
    await page.getByTestId('key-name').fill('e2e denied');
    await page.getByTestId('key-create-submit').click();
    await page.getByTestId('key-secret').waitFor();
    await page.getByTestId('key-copy').click();
    const denied = await page.getByTestId('key-copy-denied').innerText();
    assertEqual(denied, 'Your browser did not allow copying. Select the key and copy it by hand.', 'the denied message');
    await page.getByTestId('key-done').click();
  });

  test('renames a key, changes its limit, and a deleted key stops working at once', async () => {
    const page = env.page;
    await env.ui.goto('/app/api-keys');
    const row = page.locator(`[data-testid="key-row"][data-key-id="${economy.keyId}"]`);
    await row.waitFor();
    await row.getByTestId('key-rename').click();
    await page.getByTestId('key-name').fill('e2e renamed');
    await page.getByTestId('key-edit-submit').click();
    await page.waitForFunction(
      (id) => document.querySelector(`[data-key-id="${id}"] [data-testid="key-row-name"]`)?.textContent === 'e2e renamed',
      economy.keyId,
    );
    await row.getByTestId('key-change-limit').click();
    await page.getByTestId('key-limit').fill('');
    await page.getByTestId('key-edit-submit').click();
    await page.waitForFunction(
      (id) => document.querySelector(`[data-key-id="${id}"] [data-testid="key-row-limit"]`)?.textContent === 'No limit',
      economy.keyId,
    );

    await row.getByTestId('key-delete').click();
    await page.getByTestId('key-delete-dialog').getByText('“e2e renamed” stops working at once').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('key-delete-dialog').waitFor({ state: 'detached' });
    const stillThere = await fetch(`${env.server.baseUrl}/api/me`, { headers: { authorization: `Bearer ${economy.key}` } });
    assertEqual(stillThere.status, 200, 'cancelling the confirmation keeps the key');
    await row.getByTestId('key-delete').click();
    await page.getByTestId('key-delete-confirm').click();
    await row.waitFor({ state: 'detached' });
    const gone = await fetch(`${env.server.baseUrl}/api/me`, { headers: { authorization: `Bearer ${economy.key}` } });
    assertEqual(gone.status, 401, 'the deleted key is refused');
  });
}
