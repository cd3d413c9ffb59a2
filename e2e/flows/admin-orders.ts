import path from 'node:path';
import SQLite from 'better-sqlite3';
import { generate } from 'otplib';
import type { Page } from '@playwright/test';
import { apiMe } from '../lib/browser';
import { env, kept, shot, HANG_GUARD_MS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { dismissToasts } from '../lib/speech';
import { ensureRegistered } from './economy';
import { assertFits } from '../lib/layout-checks';

/**
 * Orders in the console, both sides: the customer downloads a receipt and requests a 发票 on the orders page; the
 * operator (the browser's account, named owner and past TOTP) filters orders with the filters in the URL, opens an
 * order's provider events, refunds with the previewed amount, sees the reconciliation, and issues the 发票 with its
 * file, which the customer then downloads. Each operator page is checked at 390 px and 1440 px, in en, zh-CN, zh-TW.
 */

const flow = kept<{ email: string; sid?: string; invoiceOrder?: string; refundOrder?: string }>('admin-orders', {
  email: `e2e-admin-orders-${Date.now()}@example.com`,
});

async function api<T>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${env.server.baseUrl}${url}`, {
    method,
    headers: { 'x-sid': flow.sid ?? '', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* HTML or empty */
  }
  return { status: res.status, body: parsed as T };
}

/** Names the account an owner (as `npm run admin -- operator add` does) and passes TOTP with this session. */
async function elevate(): Promise<void> {
  const me = await apiMe(env.server.baseUrl, flow.sid!);
  const db = new SQLite(path.join(env.server.dataDir, 'polyvox.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(
      'INSERT INTO operators (account_id, role, created_at, created_by) VALUES (?, ?, ?, NULL) ON CONFLICT DO NOTHING',
    ).run(me.body.id, 'owner', new Date().toISOString());
  } finally {
    db.close();
  }
  const status = await api<{ elevated: boolean; role: string }>('GET', '/admin/api/auth/status');
  assertEqual(status.status, 200, 'GET /admin/api/auth/status');
  // After the admin-core flow the session is an elevated owner already.
  if (status.body.elevated && status.body.role === 'owner') return;
  const enrol = await api<{ secret: string }>('POST', '/admin/api/auth/totp/enrol');
  assertEqual(enrol.status, 200, 'POST /admin/api/auth/totp/enrol');
  const confirmed = await api('POST', '/admin/api/auth/totp/confirm', { code: await generate({ secret: enrol.body.secret }) });
  assertEqual(confirmed.status, 200, `POST /admin/api/auth/totp/confirm ${JSON.stringify(confirmed.body)}`);
}

/** A credit pack bought through the sandbox; its order id. */
async function paidOrder(): Promise<string> {
  const order = await api<{ id: string }>('POST', '/accounts/me/orders', { product: 'credits_100k' });
  assertEqual(order.status, 201, 'POST /accounts/me/orders');
  const pay = await api<{ pay_url: string }>('POST', `/accounts/me/orders/${order.body.id}/payment/sandbox?pf=web`, {
    pay_platform: 'web',
    return_url: '/#/app/orders',
  });
  assertEqual(pay.status, 200, 'start the sandbox payment');
  const token = new URL(pay.body.pay_url, env.server.baseUrl).searchParams.get('token');
  const done = await api('POST', `/pay/sandbox/${order.body.id}/complete`, { token, outcome: 'success' });
  assertEqual(done.status, 303, 'complete the sandbox payment');
  return order.body.id;
}

async function atWidths(page: Page, where: string, ready: () => Promise<void>): Promise<void> {
  for (const width of [390, 1440]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await ready();
    // What the page itself shows, not a toast a step before it left.
    await dismissToasts(page);
    await assertFits(page, `${where} at ${width} px`);
    await shot(`admin-${where}-${width}`);
  }
}

export function adminOrdersTests(): void {
  test.describe.configure({ timeout: 180_000 });

  test('the customer downloads a receipt and requests a 发票 on the orders page', async () => {
    const page = env.page;
    test.setTimeout(HANG_GUARD_MS * 3);
    flow.sid = await ensureRegistered(page);
    flow.invoiceOrder = await paidOrder();
    flow.refundOrder = await paidOrder();
    await env.ui.goto('/app/orders');
    // The flows before may have left another language chosen: this one reads the zh-CN labels.
    await env.ui.chooseLanguage('zh-CN');
    const row = page.locator(`[data-testid="order-row"][data-order-id="${flow.invoiceOrder}"]`);
    await row.waitFor();
    const download = page.waitForEvent('download');
    await row.getByTestId('order-receipt').click();
    const file = await download;
    assert(file.suggestedFilename() === `receipt-${flow.invoiceOrder}.pdf`, `receipt file name ${file.suggestedFilename()}`);
    await row.getByTestId('order-invoice').click();
    const dialog = page.getByTestId('invoice-dialog');
    await dialog.getByTestId('invoice-title').waitFor();
    await dialog.getByText('增值税专用发票').click();
    await dialog.getByTestId('invoice-title').fill('声韵测试有限公司');
    await dialog.getByTestId('invoice-email').fill(flow.email);
    await dialog.getByTestId('invoice-submit').click();
    // A special invoice needs the tax number: the form says so before anything is sent.
    await dialog.getByText('专用发票需要填写纳税人识别号').waitFor();
    await dialog.getByTestId('invoice-tax').fill('91110000600037341L');
    await dialog.getByTestId('invoice-submit').click();
    await dialog.locator('[data-testid="invoice-state"][data-status="requested"]').waitFor();
    await page.keyboard.press('Escape');
    await row.locator('[data-testid="order-invoice"][data-invoice-status="requested"]').waitFor();
  });

  test('the operator filters orders (in the URL), reads provider events and refunds the previewed amount', async () => {
    const page = env.page;
    test.setTimeout(HANG_GUARD_MS * 3);
    flow.sid = await ensureRegistered(page);
    await elevate();
    await env.ui.goto('/admin/orders');
    await page.getByTestId('orders-filter-status').selectOption('successful');
    await page.getByTestId('orders-filter-method').selectOption('sandbox');
    await page.getByTestId('orders-apply').click();
    await page.waitForFunction(() => /status=successful/.test(location.hash) && /method=sandbox/.test(location.hash));
    const row = page.locator(`[data-testid="admin-order-row"][data-order-id="${flow.refundOrder}"]`);
    await row.waitFor();
    await atWidths(page, 'orders', () => row.waitFor());
    await row.click();
    const drawer = page.getByTestId('order-drawer');
    await drawer.locator('[data-testid="order-event"][data-outcome="applied"][data-verification="verified"]').waitFor();
    await page.waitForFunction((id) => location.hash.includes(`order=${id}`), flow.refundOrder);
    await drawer.getByTestId('order-refund').click();
    const dialog = page.getByTestId('refund-dialog');
    const preview = dialog.getByTestId('refund-preview');
    await preview.waitFor();
    const previewed = Number(await preview.getAttribute('data-amount'));
    assert(previewed > 0, 'a refund of an unused credit pack returns money');
    await dialog.getByTestId('refund-confirm').click();
    await dialog.getByText(/reason is required|请填写原因|請填寫原因/).waitFor();
    await dialog.getByTestId('refund-reason').fill('e2e: customer asked');
    await dialog.getByTestId('refund-confirm').click();
    await dialog.waitFor({ state: 'hidden' });
    const order = await api<{ order: { refunded_at: string | null; refund_amount: number } }>(
      'GET',
      `/admin/api/orders/${flow.refundOrder}`,
    );
    assert(order.body.order.refunded_at !== null, 'the order is refunded');
    assertEqual(order.body.order.refund_amount, previewed, 'refunded the amount previewed');
    await drawer.locator('[data-testid="admin-order-status"][data-status="refunded"]').waitFor();
  });

  test('reconciliation and the invoices desk, in three languages; the customer downloads the issued 发票', async () => {
    const page = env.page;
    test.setTimeout(HANG_GUARD_MS * 4);
    flow.sid = await ensureRegistered(page);
    await env.ui.goto('/admin/reconciliation');
    await atWidths(page, 'reconciliation', () => page.getByTestId('reconciliation-table').waitFor());

    await env.ui.goto('/admin/invoices');
    const row = page.locator(`[data-testid="invoice-row"][data-order-id="${flow.invoiceOrder}"]`);
    for (const lang of ['en', 'zh-TW', 'zh-CN']) {
      await env.ui.chooseLanguage(lang);
      await row.waitFor();
      await atWidths(page, `invoices-${lang}`, () => row.waitFor());
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    const tr = page.locator('tr', { has: row });
    await tr.getByTestId('invoice-issue').click();
    const dialog = page.getByTestId('invoice-issue-dialog');
    await dialog.locator('input[type="file"]').setInputFiles({
      name: 'invoice.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4\n% e2e invoice\n%%EOF\n'),
    });
    await dialog.getByTestId('invoice-number').fill('24312000000000000001');
    // The answer, not the dialog, says it is done (the dialog's root has no box of its own: "hidden" holds at once).
    const issued = page.waitForResponse(
      (r) => r.request().method() === 'POST' && /^\/admin\/api\/invoices\/[^/]+\/issue$/.test(new URL(r.url()).pathname),
    );
    await dialog.getByTestId('invoice-issue-confirm').click();
    assertEqual((await issued).status(), 200, 'the invoice is issued');
    await dialog.waitFor({ state: 'hidden' });
    const mine = await api<{ status: string }>('GET', `/api/accounts/me/orders/${flow.invoiceOrder}/invoice`);
    assertEqual(mine.body.status, 'issued', 'the customer sees the invoice issued');

    await env.ui.goto('/app/orders');
    // The customer comes back later: the order list is read afresh (this page still holds the list it read earlier).
    await page.reload();
    const order = page.locator(`[data-testid="order-row"][data-order-id="${flow.invoiceOrder}"]`);
    await order.locator('[data-testid="order-invoice"][data-invoice-status="issued"]').click();
    const download = page.waitForEvent('download');
    await page.getByTestId('invoice-download').click();
    assertEqual((await download).suggestedFilename(), `invoice-${flow.invoiceOrder}.pdf`, 'the issued invoice downloads');
  });
}
