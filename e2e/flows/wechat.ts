import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SID_KEY } from '../lib/browser';
import { env, SHOTS, HANG_GUARD_MS } from '../lib/env';
import { assert, assertEqual } from '../lib/assert';
import { test } from '../lib/fixtures';
import { waitForCode } from '../lib/outbox';
import { startServer } from '../lib/server';
import { deliver, fakeWechat, rsaPair } from '../../apps/server/test/support/payments';

/**
 * WeChat Pay's native QR checkout in the console, against a local server that speaks WeChat Pay's APIv3
 * (the integration tests' protocol fake): a second platform configured with WeChat Pay only, a fresh
 * browser context registered on it, the monthly plan bought by QR, the fake's signed and encrypted
 * notification delivered, and the order shown paid.
 */
const WECHAT = {
  mchId: '1900000109',
  appId: 'wxd678efh567hg6787',
  serialNo: '5157F09EFDC096DE15EBE81A47057A72',
  apiV3Key: randomBytes(16).toString('hex'),
};

export function wechatTests(): void {
  test('WeChat Pay: pricing shows the QR of a native order, its notification arrives, the order shows paid', async () => {
    const merchant = rsaPair();
    const platform = rsaPair();
    const fake = await fakeWechat({
      ...WECHAT,
      merchantPublicPem: merchant.publicPem,
      platformPrivatePem: platform.privatePem,
      platformSerial: 'PUB_KEY_ID_0114232134912410000000000000',
    });
    const server = await startServer(180_000, {
      PAYMENT_SANDBOX: 'false',
      WECHAT_MCH_ID: WECHAT.mchId,
      WECHAT_APP_ID: WECHAT.appId,
      WECHAT_API_V3_KEY: WECHAT.apiV3Key,
      WECHAT_PRIVATE_KEY: merchant.privatePem,
      WECHAT_SERIAL_NO: WECHAT.serialNo,
      WECHAT_PLATFORM_CERT: platform.publicPem,
      WECHAT_API_BASE: fake.url,
    });
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'zh-CN' });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(HANG_GUARD_MS);
      await page.goto(`${server.baseUrl}/#/app/dashboard`);
      await page.waitForFunction((key) => Boolean(localStorage.getItem(key)), SID_KEY);
      // Register the browser's anonymous account with a mailed code, as the sign-in form does.
      const anonymousSid = (await page.evaluate((key) => localStorage.getItem(key), SID_KEY))!;
      const email = `e2e-wechat-${Date.now()}@example.com`;
      const headers = { 'x-sid': anonymousSid, 'content-type': 'application/json' };
      const sent = await fetch(`${server.baseUrl}/verification/email`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ email }),
      });
      assertEqual(sent.status, 200, 'POST /verification/email');
      const { code } = await waitForCode(server.outbox, email, new Set());
      const registered = await fetch(`${server.baseUrl}/accounts/me/email`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ email, vcode: code }),
      });
      assertEqual(registered.status, 200, 'PUT /accounts/me/email');
      const { sid } = (await registered.json()) as { sid: string };
      await page.evaluate(([k, v]) => localStorage.setItem(k!, v!), [SID_KEY, sid]);
      // The console reads the stored session at start; then the pricing page is a route away.
      await page.reload();
      await page.getByTestId('dashboard-page').waitFor({ timeout: 60_000 });
      await page.goto(`${server.baseUrl}/#/app/pricing`);

      const monthly = page.locator('[data-plan="monthly"]');
      await monthly.waitFor({ timeout: 60_000 });
      await monthly.getByTestId('product-buy').click();
      const dialog = page.getByTestId('checkout-dialog');
      await dialog.getByTestId('method-wechat').waitFor();
      assertEqual(await dialog.getByTestId('method-sandbox').count(), 0, 'only the configured method is offered');
      await dialog.getByTestId('method-wechat').click();
      const paying = page.waitForResponse((r) => /\/payment\/wechat$/.test(new URL(r.url()).pathname));
      await dialog.getByTestId('checkout-pay').click();
      assertEqual((await paying).status(), 200, 'POST …/payment/wechat');

      // The QR encodes the code_url of the native order the fake received, priced in fen.
      const qr = dialog.getByTestId('qr-code');
      await qr.waitFor();
      const orders = [...fake.orders.values()];
      assertEqual(orders.length, 1, 'one native order reached WeChat Pay');
      const order = orders[0]!;
      assertEqual(await qr.getAttribute('data-text'), order.code_url, 'the QR carries the code_url');
      assertEqual(order.total, 2900, 'the monthly plan at 29.00 CNY, in fen');
      assert(await qr.isVisible(), 'the QR is shown');
      const modules = ((await qr.locator('path').getAttribute('d')) ?? '').split('M').length - 1;
      assert(modules > 100, `the QR is drawn (${modules} dark modules)`);
      await page.screenshot({ path: path.join(SHOTS, 'checkout-wechat-qr-zh-CN.png') });

      // WeChat Pay notifies the server: signed, its resource encrypted with the APIv3 key.
      const note = fake.paidNotification(order.out_trade_no);
      const delivered = await deliver(server.baseUrl, note.notifyUrl, note.body, note.headers);
      assertEqual(delivered.status, 200, 'the notification is accepted');

      // The dialog polls the order and follows it to its result page.
      await page.waitForURL(/#\/app\/orders\/[^/]+\/result$/, { timeout: 60_000 });
      await page.locator('[data-testid="order-result"][data-status="successful"]').waitFor();
      await page.screenshot({ path: path.join(SHOTS, 'order-result-wechat-zh-CN.png') });
      assertEqual(fake.refused.length, 0, `the fake refused nothing (${fake.refused.join('; ')})`);
    } finally {
      await context.close();
      await server.stop();
      fs.rmSync(server.dataDir, { recursive: true, force: true });
      await fake.close();
    }
  });
}
