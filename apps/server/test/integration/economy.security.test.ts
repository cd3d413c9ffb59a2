import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { expectError } from '../support/errors.js';
import { buyer, complete, newOrder, sandboxToken } from '../support/economy.js';

describe.each(DIALECTS)('products, orders and payments: security (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, {
      env: { PUBLIC_URL: 'https://polyvox.example', ALLOWED_ORIGINS: 'https://console.polyvox.example' },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("answers 404 for another account's order exactly as for a missing one, and never lists it", async () => {
    const owner = await buyer(t);
    const stranger = await buyer(t);
    const order = await newOrder(owner.client);
    const theirs = await stranger.client.get(`/accounts/me/orders/${order.id}`);
    const missing = await stranger.client.get('/accounts/me/orders/ord_0000000000000000000000000');
    expectError(theirs, 'NOT_FOUND');
    expectError(await stranger.client.get(`/api/accounts/me/orders/${order.id}`), 'NOT_FOUND');
    expect((await owner.client.get(`/api/accounts/me/orders/${order.id}`)).body.id).toBe(order.id);
    expect({ ...theirs.body.error, request_id: '' }).toEqual({ ...missing.body.error, request_id: '' });
    expectError(
      await stranger.client.post(`/accounts/me/orders/${order.id}/payment/sandbox`, { pay_platform: 'web', return_url: '/' }),
      'NOT_FOUND',
    );
    expect((await stranger.client.get('/api/accounts/me/orders')).body).toEqual({ items: [], total: 0 });
    expect((await owner.client.get(`/accounts/me/orders/${order.id}`)).body.status).toBe('pending_payment');
  });

  it('refuses a return_url of another site (open redirect), and takes paths and this origin', async () => {
    const { client } = await buyer(t);
    const order = await newOrder(client);
    const hostile = [
      'https://evil.example/phish',
      '//evil.example/phish',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'https:evil.example',
      'http://127.0.0.1:1/',
      'https://polyvox.example.evil.example/',
      'https://user:pass@polyvox.example/',
      ' /leading-space',
      '/line\r\nSet-Cookie: x=1',
      'ftp://polyvox.example/',
      // The address the request came to is not an allowed origin: only PUBLIC_URL and ALLOWED_ORIGINS are.
      `${t.url}/#/app/orders`,
      'https://console.polyvox.example.evil.example/',
    ];
    for (const return_url of hostile) {
      const res = await client.post(`/accounts/me/orders/${order.id}/payment/sandbox?pf=web`, {
        pay_platform: 'web',
        return_url,
      });
      expect(expectError(res, 'VALIDATION_FAILED').message).toBe(
        'Invalid value for return_url: must be a path or a URL of this site',
      );
    }
    const zh = new Client(t.url, 'zh-CN');
    zh.sid = client.sid;
    const res = await zh.post(`/accounts/me/orders/${order.id}/payment/sandbox`, {
      pay_platform: 'web',
      return_url: '//evil.example',
    });
    expect(expectError(res, 'VALIDATION_FAILED').message).toBe('return_url 的值无效：须为本站的路径或网址');
    expect(await t.ctx.db.kysely.selectFrom('payments').select('id').where('order_id', '=', order.id).execute()).toEqual([]);

    for (const [return_url, expected] of [
      ['/#/app/orders/x/result', 'https://polyvox.example/#/app/orders/x/result'],
      ['#/app/orders', 'https://polyvox.example/#/app/orders'],
      ['https://polyvox.example/#/app/orders', 'https://polyvox.example/#/app/orders'],
      ['https://console.polyvox.example/#/app/orders', 'https://console.polyvox.example/#/app/orders'],
    ] as const) {
      const token = await sandboxToken(client, order.id, return_url);
      const done = await complete(t, order.id, { token, outcome: 'fail' });
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe(expected);
      // `fail` failed the order: make it payable again for the next return_url.
      await t.ctx.db.kysely.updateTable('orders').set({ status: 'pending_payment' }).where('id', '=', order.id).execute();
    }
  });

  it('refuses a forged sandbox token, and the token of another order or another payment', async () => {
    const a = await buyer(t);
    const b = await buyer(t);
    const orderA = await newOrder(a.client);
    const orderB = await newOrder(b.client);
    const tokenA = await sandboxToken(a.client, orderA.id);
    const tokenB = await sandboxToken(b.client, orderB.id);
    const [paymentA, mac] = tokenA.split('.') as [string, string];
    const flipped = `${mac.slice(0, -1)}${mac.endsWith('0') ? '1' : '0'}`;
    for (const token of [tokenB, `${paymentA}.${flipped}`, `${tokenB.split('.')[0]}.${mac}`, paymentA, '.', 'x'.repeat(256)]) {
      const res = await complete(t, orderA.id, { token, outcome: 'success' });
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).error.code).toBe('FORBIDDEN');
      const page = await fetch(new URL(`/pay/sandbox/${orderA.id}?token=${encodeURIComponent(token)}`, t.url));
      expect(page.status).toBe(403);
    }
    expect((await fetch(new URL(`/pay/sandbox/${orderA.id}`, t.url))).status).toBe(403);
    expect((await a.client.get(`/accounts/me/orders/${orderA.id}`)).body.status).toBe('pending_payment');
    expect((await a.client.get('/accounts/me')).body.vip.credits).toBe(a.account.vip.credits);
  });

  it('applies a sandbox payment once, replayed ten times in a row and ten at once', async () => {
    const { client, account } = await buyer(t);
    const order = await newOrder(client, 'credits_500k');
    const token = await sandboxToken(client, order.id);
    for (let i = 0; i < 10; i++) expect((await complete(t, order.id, { token, outcome: 'success' })).status).toBe(303);
    const burst = await Promise.all(Array.from({ length: 10 }, () => complete(t, order.id, { token, outcome: 'success' })));
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(303));
    // A failure reported after the success changes nothing.
    await complete(t, order.id, { token, outcome: 'fail' });
    expect((await client.get(`/accounts/me/orders/${order.id}`)).body.status).toBe('successful');
    const purchases = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select('amount')
      .where('account_id', '=', account.id)
      .where('kind', '=', 'purchase')
      .execute();
    expect(purchases.map((p) => Number(p.amount))).toEqual([500000]);
    expect((await client.get('/accounts/me')).body.vip.credits).toBe(account.vip.credits + 500000);
  });

  it('answers 404 to notifications for a provider that is not configured, and to the sandbox when it is disabled', async () => {
    for (const method of ['card', 'alipay', 'wechat']) {
      const res = await fetch(new URL(`/payments/${method}/notify`, t.url), {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(404);
    }
    expect((await fetch(new URL('/payments/sandbox/notify', t.url), { method: 'POST', body: '' })).status).toBe(404);
    const off = await startTestApp(dialect, { env: { PAYMENT_SANDBOX: 'false' } });
    try {
      const { client } = await buyer(off);
      expect((await client.get('/products')).body.payment_methods).toEqual([]);
      const order = await newOrder(client);
      expectError(
        await client.post(`/accounts/me/orders/${order.id}/payment/sandbox`, { pay_platform: 'web', return_url: '/' }),
        'PAYMENT_METHOD_UNAVAILABLE',
      );
      expect((await complete(off, order.id, { token: 'pay_x.00', outcome: 'success' })).status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('takes a notification body only up to its limit', async () => {
    const res = await fetch(new URL('/payments/card/notify', t.url), {
      method: 'POST',
      body: 'x'.repeat(70 * 1024),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
  });
});
