import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { OrdersService } from '../../src/orders/service.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { expectError } from '../support/errors.js';
import { buyer, complete, newOrder, sandboxToken } from '../support/economy.js';

describe.each(DIALECTS)('products, orders and payments: errors (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses a bad product kind', async () => {
    expectError(await new Client(t.url).get('/products?kind=voices'), 'VALIDATION_FAILED');
  });

  it('asks an anonymous account to sign in before buying, and refuses a request without a session', async () => {
    const anon = new Client(t.url, 'zh-CN');
    await anon.anonymous();
    const res = await anon.post('/accounts/me/orders', { product: 'plan_monthly' });
    expect(expectError(res, 'UNAUTHENTICATED').message).toBe('请先登录');
    expectError(await new Client(t.url).post('/accounts/me/orders', { product: 'plan_monthly' }), 'UNAUTHENTICATED');
    expectError(await new Client(t.url).get('/api/accounts/me/orders'), 'UNAUTHENTICATED');
    expectError(await new Client(t.url).get('/accounts/me/orders/ord_x'), 'UNAUTHENTICATED');
    expectError(
      await new Client(t.url).post('/accounts/me/orders/ord_x/payment/sandbox', { pay_platform: 'web', return_url: '/' }),
      'UNAUTHENTICATED',
    );
  });

  it('refuses a missing, unknown, free, oversized or prototype product, with the message in the request language', async () => {
    const { client } = await buyer(t, 'zh-CN');
    expectError(await client.post('/accounts/me/orders', {}), 'PARAMETERS_NEEDED');
    expect(expectError(await client.post('/accounts/me/orders', { product: 'plan_gold' }), 'VALIDATION_FAILED').message).toBe(
      'product 的值无效：须为 /products 中的商品编号',
    );
    expect(expectError(await client.post('/accounts/me/orders', { product: 'plan_free' }), 'VALIDATION_FAILED').message).toBe(
      'product 的值无效：免费版无需购买',
    );
    for (const product of ['__proto__', 'constructor', 'toString', 'x'.repeat(65), 42]) {
      expectError(await client.post('/accounts/me/orders', { product }), 'VALIDATION_FAILED');
    }
    expectError(await client.post('/accounts/me/orders', { product: 'plan_monthly\u0000' }), 'VALIDATION_FAILED');
    expect((await client.get('/api/accounts/me/orders')).body.total).toBe(0);
  });

  it('holds at most ORDER_PENDING_LIMIT orders awaiting payment per account (429 with retry-after)', async () => {
    const { client } = await buyer(t);
    const first = await newOrder(client);
    for (let i = 1; i < 20; i++) await newOrder(client);
    const res = await client.post('/accounts/me/orders', { product: 'credits_100k' });
    expectError(res, 'RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(29 * 60);
    // Paying one makes room for another.
    expect((await complete(t, first.id, { token: await sandboxToken(client, first.id), outcome: 'success' })).status).toBe(303);
    expect((await client.post('/accounts/me/orders', { product: 'credits_100k' })).status).toBe(201);
  });

  it('refuses bad paging', async () => {
    const { client } = await buyer(t);
    for (const q of ['limit=0', 'limit=101', 'start=-1', 'limit=abc']) {
      expectError(await client.get(`/api/accounts/me/orders?${q}`), 'VALIDATION_FAILED');
    }
  });

  it('answers 404 for a missing order', async () => {
    const { client } = await buyer(t);
    expectError(await client.get('/accounts/me/orders/ord_missing'), 'NOT_FOUND');
    expectError(
      await client.post('/accounts/me/orders/ord_missing/payment/sandbox', { pay_platform: 'web', return_url: '/' }),
      'NOT_FOUND',
    );
  });

  it('answers 422 PAYMENT_METHOD_UNAVAILABLE for a method that is not configured or does not exist', async () => {
    const { client } = await buyer(t, 'zh-TW');
    const order = await newOrder(client);
    for (const method of ['card', 'alipay', 'wechat', 'paypal', '__proto__', 'constructor']) {
      const res = await client.post(`/accounts/me/orders/${order.id}/payment/${method}?pf=web`, {
        pay_platform: 'web',
        return_url: '/',
      });
      expect(expectError(res, 'PAYMENT_METHOD_UNAVAILABLE').message).toBe('請嘗試其他付款方式！');
    }
    const en = new Client(t.url, 'en');
    en.sid = client.sid;
    const res = await en.post(`/accounts/me/orders/${order.id}/payment/card`, { pay_platform: 'web', return_url: '/' });
    expect(expectError(res, 'PAYMENT_METHOD_UNAVAILABLE').message).toBe('Please try another payment method!');
    expect((await client.get(`/accounts/me/orders/${order.id}`)).body).toMatchObject({ status: 'pending_payment', method: null });
  });

  it('answers 409 ORDER_NOT_PAYABLE once an order is paid, failed or expired', async () => {
    const { client } = await buyer(t);
    const paid = await newOrder(client);
    expect((await complete(t, paid.id, { token: await sandboxToken(client, paid.id), outcome: 'success' })).status).toBe(303);
    const failed = await newOrder(client);
    expect((await complete(t, failed.id, { token: await sandboxToken(client, failed.id), outcome: 'fail' })).status).toBe(303);
    const late = await newOrder(client);
    // Past its expiry but not swept yet: still not payable.
    await t.ctx.db.kysely
      .updateTable('orders')
      .set({ expires_at: new Date(Date.now() - 1).toISOString() })
      .where('id', '=', late.id)
      .execute();
    for (const id of [paid.id, failed.id, late.id]) {
      const res = await client.post(`/accounts/me/orders/${id}/payment/sandbox`, { pay_platform: 'web', return_url: '/' });
      expectError(res, 'ORDER_NOT_PAYABLE');
    }
    // A failure report after success changes nothing.
    const token = await sandboxToken(client, (await newOrder(client)).id);
    expect(token).toBeTruthy();
    expect((await client.get(`/accounts/me/orders/${paid.id}`)).body.status).toBe('successful');
  });

  it('refuses a payment request without a return_url or with a bad platform', async () => {
    const { client } = await buyer(t);
    const order = await newOrder(client);
    expectError(
      await client.post(`/accounts/me/orders/${order.id}/payment/sandbox`, { pay_platform: 'web' }),
      'PARAMETERS_NEEDED',
    );
    expectError(
      await client.post(`/accounts/me/orders/${order.id}/payment/sandbox`, { pay_platform: 'ios', return_url: '/' }),
      'VALIDATION_FAILED',
    );
    expectError(
      await client.post(`/accounts/me/orders/${order.id}/payment/sandbox`, {
        pay_platform: 'web',
        return_url: `/${'a'.repeat(3000)}`,
      }),
      'VALIDATION_FAILED',
    );
  });

  it('refuses a sandbox completion without a token or with an unknown outcome', async () => {
    const { client } = await buyer(t);
    const order = await newOrder(client);
    const token = await sandboxToken(client, order.id);
    const missing = await complete(t, order.id, { outcome: 'success' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).error.code).toBe('PARAMETERS_NEEDED');
    const odd = await complete(t, order.id, { token, outcome: 'refund' });
    expect(((await odd.json()) as any).error.code).toBe('VALIDATION_FAILED');
    const proto = await complete(t, order.id, '__proto__=x&constructor=y', 'application/x-www-form-urlencoded');
    expect(proto.status).toBe(400);
    expect((await client.get(`/accounts/me/orders/${order.id}`)).body.status).toBe('pending_payment');
  });

  it('expires unpaid orders after their 30 minutes, once, however many processes sweep', async () => {
    const { client } = await buyer(t);
    const orders = [await newOrder(client), await newOrder(client), await newOrder(client)];
    const keep = await newOrder(client);
    const past = new Date(Date.now() - 1000).toISOString();
    await t.ctx.db.kysely
      .updateTable('orders')
      .set({ expires_at: past })
      .where(
        'id',
        'in',
        orders.map((o) => o.id),
      )
      .execute();
    const due = await t.ctx.db.kysely
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending_payment')
      .where('expires_at', '<=', new Date().toISOString())
      .executeTakeFirstOrThrow();
    expect(Number(due.n)).toBeGreaterThanOrEqual(3);
    // A second process on the same database sweeps at the same moment.
    const second = openDatabase({ databaseUrl: t.ctx.config.DATABASE_URL, dataDir: t.dataDir });
    try {
      const other = new OrdersService({
        db: second.kysely,
        credits: t.ctx.credits,
        products: t.ctx.orders.products,
        ttlMinutes: 30,
      });
      const swept = await Promise.all([
        t.ctx.orders.sweepExpired(),
        other.sweepExpired(),
        t.ctx.orders.sweepExpired(),
        other.sweepExpired(),
      ]);
      expect(swept.reduce((a, b) => a + b, 0)).toBe(Number(due.n));
    } finally {
      await second.close();
    }
    for (const o of orders) expect((await client.get(`/accounts/me/orders/${o.id}`)).body.status).toBe('expired');
    expect((await client.get(`/accounts/me/orders/${keep.id}`)).body.status).toBe('pending_payment');
  });

  it('runs the sweeper in the background', async () => {
    const s = await startTestApp(dialect, { env: { ORDER_SWEEP_SECONDS: '1' } });
    try {
      const { client } = await buyer(s);
      const order = await newOrder(client);
      await s.ctx.db.kysely
        .updateTable('orders')
        .set({ expires_at: new Date(Date.now() - 1).toISOString() })
        .where('id', '=', order.id)
        .execute();
      let status = 'pending_payment';
      for (let i = 0; i < 100 && status === 'pending_payment'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await client.get(`/accounts/me/orders/${order.id}`)).body.status;
      }
      expect(status).toBe('expired');
    } finally {
      await s.close();
    }
  });
});
