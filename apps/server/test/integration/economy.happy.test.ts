import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client, signIn } from '../support/client.js';

let n = 0;

describe.each(DIALECTS)('products, orders and the sandbox checkout (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  async function buyer(lang = 'en') {
    const client = new Client(t.url, lang);
    await client.anonymous();
    const account = await signIn(client, t.outbox, `buyer-${dialect}-${++n}@example.com`);
    return { client, account };
  }

  async function paySandbox(client: Client, orderId: string, outcome: 'success' | 'fail' = 'success') {
    const started = await client.post(`/accounts/me/orders/${orderId}/payment/sandbox?pf=web`, {
      pay_platform: 'web',
      return_url: `/#/app/orders/${orderId}/result`,
    });
    expect(started.status).toBe(200);
    const payUrl = new URL(started.body.pay_url, t.url);
    const token = payUrl.searchParams.get('token')!;
    const done = await fetch(new URL(`/pay/sandbox/${orderId}/complete`, t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, outcome }),
      redirect: 'manual',
    });
    return { done, payUrl, token };
  }

  it('lists plans and packs, named and priced in the request language', async () => {
    const en = await new Client(t.url, 'en').get('/products');
    expect(en.status).toBe(200);
    const plans = en.body.items.filter((p: any) => p.kind === 'plan').map((p: any) => p.plan);
    expect(plans).toEqual(['free', 'monthly', 'quarterly', 'half_year', 'annual']);
    const monthly = en.body.items.find((p: any) => p.plan === 'monthly');
    expect(monthly).toMatchObject({
      id: 'plan_monthly',
      name: 'Monthly',
      price: { amount: 499, currency: 'USD' },
      credits: 300000,
      period_days: 30,
      purchasable: true,
    });
    expect(monthly.prices).toEqual([
      { amount: 2900, currency: 'CNY' },
      { amount: 499, currency: 'USD' },
    ]);
    expect(en.body.items.find((p: any) => p.plan === 'free').purchasable).toBe(false);
    expect(en.body.payment_methods).toEqual(['sandbox']);

    const zh = await new Client(t.url, 'zh-CN').get('/products?kind=plan');
    expect(zh.body.items).toHaveLength(5);
    expect(zh.body.items.find((p: any) => p.plan === 'monthly')).toMatchObject({
      name: '月度会员',
      price: { amount: 2900, currency: 'CNY' },
    });
    const tw = await new Client(t.url, 'zh-TW').get('/products?kind=credits');
    expect(tw.body.items.length).toBeGreaterThan(0);
    expect(tw.body.items.every((p: any) => p.kind === 'credits' && p.price.currency === 'CNY')).toBe(true);
    expect(tw.body.items[0].name).toMatch(/點數/);

    expect((await new Client(t.url).get('/payments/methods')).body).toEqual({ items: ['sandbox'] });
  });

  it('buys the monthly plan through the sandbox: credits, vip level and expiry change with the status', async () => {
    const { client, account } = await buyer('zh-CN');
    const before = account.vip.credits;
    const created = await client.post('/accounts/me/orders', { product: 'plan_monthly' });
    expect(created.status).toBe(201);
    const order = created.body;
    expect(order).toMatchObject({
      product: 'plan_monthly',
      amount: 2900,
      currency: 'CNY',
      status: 'pending_payment',
      method: null,
      paid_at: null,
      refunded_at: null,
    });
    expect(order.id).toMatch(/^ord_/);
    const ttl = Date.parse(order.expires_at) - Date.parse(order.created_at);
    expect(ttl).toBe(30 * 60_000);

    const { done, payUrl } = await paySandbox(client, order.id);
    expect(payUrl.pathname).toBe(`/pay/sandbox/${order.id}`);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(new URL(`/#/app/orders/${order.id}/result`, t.url).href);

    const paid = await client.get(`/accounts/me/orders/${order.id}`);
    expect(paid.body).toMatchObject({ status: 'successful', method: 'sandbox', amount: 2900, currency: 'CNY' });
    expect(paid.body.paid_at).not.toBeNull();
    const me = await client.get('/accounts/me');
    expect(me.body.vip.credits).toBe(before + 300000);
    expect(me.body.vip.level).toBe('monthly');
    const expire = Date.parse(me.body.vip.expire);
    expect(Math.abs(expire - (Date.parse(paid.body.paid_at) + 30 * 86_400_000))).toBeLessThan(1000);
    expect(await t.ctx.credits.ledgerSum(account.id)).toBe(me.body.vip.credits);
    const purchase = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .selectAll()
      .where('account_id', '=', account.id)
      .where('kind', '=', 'purchase')
      .execute();
    expect(purchase.map((e) => [Number(e.amount), e.record_type, e.order_id])).toEqual([[300000, 'purchase', order.id]]);

    // A second plan extends from the current expiry, not from now.
    const second = await client.post('/accounts/me/orders', { product: 'plan_monthly' });
    await paySandbox(client, second.body.id);
    const after = await client.get('/accounts/me');
    expect(Date.parse(after.body.vip.expire) - expire).toBe(30 * 86_400_000);
    expect(after.body.vip.credits).toBe(before + 600000);

    // Once the membership lapses the account is on the free plan again, and a new plan starts from now.
    const lapsed = new Date(Date.now() - 60_000).toISOString();
    await t.ctx.db.kysely.updateTable('accounts').set({ vip_expire: lapsed }).where('id', '=', account.id).execute();
    expect((await client.get('/accounts/me')).body.vip).toMatchObject({ level: 'free', expire: lapsed });
    const third = await client.post('/accounts/me/orders', { product: 'plan_quarterly' });
    await paySandbox(client, third.body.id);
    const renewed = (await client.get('/accounts/me')).body.vip;
    expect(renewed.level).toBe('quarterly');
    const paidAt = Date.parse((await client.get(`/accounts/me/orders/${third.body.id}`)).body.paid_at);
    expect(Date.parse(renewed.expire) - paidAt).toBe(90 * 86_400_000);
  });

  it('keeps a higher active level when a lower plan is bought, extending its expiry', async () => {
    const { client } = await buyer();
    await paySandbox(client, (await client.post('/accounts/me/orders', { product: 'plan_annual' })).body.id);
    const annual = (await client.get('/accounts/me')).body.vip;
    await paySandbox(client, (await client.post('/accounts/me/orders', { product: 'plan_monthly' })).body.id);
    const after = (await client.get('/accounts/me')).body.vip;
    expect(after.level).toBe('annual');
    expect(Date.parse(after.expire) - Date.parse(annual.expire)).toBe(30 * 86_400_000);
  });

  it('lists orders newest first with paging, and a failed sandbox payment fails the order', async () => {
    const { client, account } = await buyer();
    const ids: string[] = [];
    for (const product of ['credits_100k', 'credits_500k', 'plan_annual']) {
      const res = await client.post('/accounts/me/orders', { product });
      expect(res.status).toBe(201);
      expect(res.body.currency).toBe('USD');
      ids.push(res.body.id);
    }
    const { done } = await paySandbox(client, ids[0]!, 'fail');
    expect(done.status).toBe(303);
    expect((await client.get(`/accounts/me/orders/${ids[0]}`)).body.status).toBe('failed');
    expect((await client.get('/accounts/me')).body.vip.credits).toBe(account.vip.credits);

    const page1 = await client.get('/api/accounts/me/orders?start=0&limit=2');
    expect(page1.body.total).toBe(3);
    expect(page1.body.items.map((o: any) => o.id)).toEqual([ids[2], ids[1]]);
    const page2 = await client.get('/api/accounts/me/orders?start=2&limit=2');
    expect(page2.body.items.map((o: any) => o.id)).toEqual([ids[0]]);
    const all = await client.get('/api/accounts/me/orders');
    expect(all.body.items).toHaveLength(3);
  });

  it('serves the sandbox checkout page in the request language, with no script', async () => {
    const { client } = await buyer('zh-TW');
    const order = (await client.post('/accounts/me/orders', { product: 'plan_quarterly' })).body;
    const started = await client.post(`/accounts/me/orders/${order.id}/payment/sandbox?pf=web`, {
      pay_platform: 'web',
      return_url: '/#/app/orders',
    });
    const page = await fetch(new URL(started.body.pay_url, t.url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/form-action 'self'/);
    const html = await page.text();
    expect(html).toContain('測試收銀台');
    expect(html).toContain('季度會員');
    expect(html).not.toMatch(/<script/i);
    // The page's own form, as a browser posts it.
    const token = new URL(started.body.pay_url, t.url).searchParams.get('token')!;
    const form = await fetch(new URL(`/pay/sandbox/${order.id}/complete`, t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, outcome: 'success' }).toString(),
      redirect: 'manual',
    });
    expect(form.status).toBe(303);
    expect((await client.get(`/accounts/me/orders/${order.id}`)).body.status).toBe('successful');
    const closed = await (await fetch(new URL(started.body.pay_url, t.url))).text();
    expect(closed).toContain('已付款');
  });
});
