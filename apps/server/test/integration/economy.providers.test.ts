import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { DIALECTS, startTestApp, type LogLine, type TestApp } from '../support/app.js';
import { Client, signIn } from '../support/client.js';
import { deliver, fakeAlipay, fakeStripe, fakeWechat, rsaPair } from '../support/payments.js';

const STRIPE_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
const STRIPE_WHSEC = `whsec_${randomBytes(16).toString('hex')}`;
const ALIPAY_APP_ID = '2021000000000001';
const WECHAT = {
  mchId: '1900000109',
  appId: 'wxd678efh567hg6787',
  serialNo: '5157F09EFDC096DE15EBE81A47057A72',
  apiV3Key: randomBytes(16).toString('hex'),
};

let n = 0;

describe.each(DIALECTS)('Stripe, Alipay and WeChat Pay against local protocol servers (%s)', (dialect) => {
  let t: TestApp;
  const logs: LogLine[] = [];
  const appKeys = rsaPair();
  const alipayKeys = rsaPair();
  const merchantKeys = rsaPair();
  const platformKeys = rsaPair();
  let stripe: Awaited<ReturnType<typeof fakeStripe>>;
  let alipay: Awaited<ReturnType<typeof fakeAlipay>>;
  let wechat: Awaited<ReturnType<typeof fakeWechat>>;

  beforeAll(async () => {
    stripe = await fakeStripe({ secretKey: STRIPE_KEY, webhookSecret: STRIPE_WHSEC });
    alipay = await fakeAlipay({ appId: ALIPAY_APP_ID, appPublicPem: appKeys.publicPem, alipayPrivatePem: alipayKeys.privatePem });
    wechat = await fakeWechat({
      ...WECHAT,
      merchantPublicPem: merchantKeys.publicPem,
      platformPrivatePem: platformKeys.privatePem,
      platformSerial: 'PUB_KEY_ID_0114232134912410000000000000',
    });
    t = await startTestApp(dialect, {
      logs,
      env: {
        PUBLIC_URL: 'https://polyvox.example',
        STRIPE_SECRET_KEY: STRIPE_KEY,
        STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
        STRIPE_API_BASE: stripe.url,
        ALIPAY_APP_ID,
        ALIPAY_PRIVATE_KEY: appKeys.privatePem,
        ALIPAY_PUBLIC_KEY: alipayKeys.publicPem,
        ALIPAY_GATEWAY: `${alipay.url}/gateway.do`,
        WECHAT_MCH_ID: WECHAT.mchId,
        WECHAT_APP_ID: WECHAT.appId,
        WECHAT_API_V3_KEY: WECHAT.apiV3Key,
        WECHAT_PRIVATE_KEY: merchantKeys.privatePem,
        WECHAT_SERIAL_NO: WECHAT.serialNo,
        WECHAT_PLATFORM_CERT: platformKeys.publicPem,
        WECHAT_API_BASE: wechat.url,
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([stripe.close(), alipay.close(), wechat.close()]);
  });

  async function order(lang: string, product = 'plan_monthly') {
    const client = new Client(t.url, lang);
    await client.anonymous();
    const account = await signIn(client, t.outbox, `pay-${dialect}-${++n}@example.com`);
    const created = await client.post('/accounts/me/orders', { product });
    expect(created.status).toBe(201);
    return { client, account, order: created.body };
  }
  const balance = async (client: Client) => (await client.get('/accounts/me')).body.vip.credits as number;
  const status = async (client: Client, id: string) => (await client.get(`/accounts/me/orders/${id}`)).body.status as string;
  async function start(client: Client, id: string, method: string) {
    const res = await client.post(`/accounts/me/orders/${id}/payment/${method}?pf=web`, {
      pay_platform: 'web',
      return_url: `/#/app/orders/${id}/result`,
    });
    expect(res.status).toBe(200);
    return res.body as { pay_url?: string; qr_code?: string };
  }
  const paymentId = async (orderId: string, method: string) =>
    (
      await t.ctx.db.kysely
        .selectFrom('payments')
        .select('id')
        .where('order_id', '=', orderId)
        .where('method', '=', method)
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow()
    ).id;

  it('lists every configured method', async () => {
    expect((await new Client(t.url).get('/payments/methods')).body.items).toEqual(['alipay', 'wechat', 'card', 'sandbox']);
  });

  describe('card (Stripe Checkout)', () => {
    it('creates a Checkout Session with the official SDK and applies its signed webhook once, delivered ten times in a row and ten at once', async () => {
      const { client, account, order: o } = await order('en');
      const before = await balance(client);
      const { pay_url } = await start(client, o.id, 'card');
      const session = [...stripe.sessions.values()].find((s) => s.metadata.order_id === o.id)!;
      expect(pay_url).toBe(session.url);
      expect(session).toMatchObject({ amount_total: 499, currency: 'usd', client_reference_id: await paymentId(o.id, 'card') });
      // Relative to PUBLIC_URL, never to the Host the request named.
      expect(session.success_url).toBe(`https://polyvox.example/#/app/orders/${o.id}/result`);
      expect((await client.get(`/accounts/me/orders/${o.id}`)).body.method).toBe('card');

      const event = stripe.paidEvent(session.id);
      const notify = 'https://polyvox.example/payments/card/notify';
      for (let i = 0; i < 10; i++) {
        const res = await deliver(t.url, notify, event.payload, event.headers);
        expect(res.status).toBe(200);
      }
      const burst = await Promise.all(Array.from({ length: 10 }, () => deliver(t.url, notify, event.payload, event.headers)));
      expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(await status(client, o.id)).toBe('successful');
      expect(await balance(client)).toBe(before + 300000);
      expect(await t.ctx.credits.ledgerSum(account.id)).toBe(before + 300000);
      expect(stripe.refused).toEqual([]);
    });

    it('rejects a webhook signed with another secret, or tampered with, and changes nothing', async () => {
      const { client, order: o } = await order('en', 'credits_100k');
      const before = await balance(client);
      await start(client, o.id, 'card');
      const session = [...stripe.sessions.values()].find((s) => s.metadata.order_id === o.id)!;
      const forged = stripe.paidEvent(session.id, {}, 'whsec_forged');
      const res = await deliver(t.url, 'http://x/payments/card/notify', forged.payload, forged.headers);
      expect(res.status).toBe(400);
      const genuine = stripe.paidEvent(session.id);
      const tampered = genuine.payload.replace('"amount_total":199', '"amount_total":1');
      expect(tampered).not.toBe(genuine.payload);
      expect((await deliver(t.url, 'http://x/payments/card/notify', tampered, genuine.headers)).status).toBe(400);
      expect((await deliver(t.url, 'http://x/payments/card/notify', genuine.payload, {})).status).toBe(400);
      expect(await status(client, o.id)).toBe('pending_payment');
      expect(await balance(client)).toBe(before);
      expect(logs.some((l) => l.msg === 'payment notification rejected' && l.reason === 'forged')).toBe(true);
    });

    it('rejects a genuine webhook whose amount or currency differs from the checkout, and logs it', async () => {
      const { client, order: o } = await order('en', 'credits_100k');
      const before = await balance(client);
      await start(client, o.id, 'card');
      const session = [...stripe.sessions.values()].find((s) => s.metadata.order_id === o.id)!;
      const cheap = stripe.paidEvent(session.id, { amount_total: 1 });
      expect((await deliver(t.url, 'http://x/payments/card/notify', cheap.payload, cheap.headers)).status).toBe(400);
      const other = stripe.paidEvent(session.id, { currency: 'eur' });
      expect((await deliver(t.url, 'http://x/payments/card/notify', other.payload, other.headers)).status).toBe(400);
      expect(await status(client, o.id)).toBe('pending_payment');
      expect(await balance(client)).toBe(before);
      const rejected = logs.filter((l) => l.msg === 'payment notification rejected' && l.order_id === o.id);
      expect(rejected.map((l) => l.received)).toEqual(['1 USD', '199 EUR']);
    });
  });

  describe('alipay (page pay)', () => {
    it('signs the page pay URL with RSA2, and applies a verified notification once, answering `success`', async () => {
      const { client, order: o } = await order('zh-CN');
      const before = await balance(client);
      const { pay_url } = await start(client, o.id, 'alipay');
      expect(pay_url!.startsWith(`${alipay.url}/gateway.do?`)).toBe(true);
      // The browser opens the page: the local Alipay checks the application's signature.
      expect(await (await fetch(pay_url!)).text()).toContain('cashier');
      expect(alipay.refused).toEqual([]);
      const out = await paymentId(o.id, 'alipay');
      const trade = alipay.trades.get(out)!;
      expect(trade).toMatchObject({ total_amount: '29.00', notify_url: 'https://polyvox.example/payments/alipay/notify' });

      const note = alipay.paidNotification(out);
      const answers = [];
      for (let i = 0; i < 10; i++) answers.push(await deliver(t.url, note.notifyUrl, note.body, note.headers));
      answers.push(
        ...(await Promise.all(Array.from({ length: 10 }, () => deliver(t.url, note.notifyUrl, note.body, note.headers)))),
      );
      expect(answers.map((a) => a.text)).toEqual(Array(20).fill('success'));
      expect(await status(client, o.id)).toBe('successful');
      expect(await balance(client)).toBe(before + 300000);
    });

    it('charges an order priced in USD its CNY price', async () => {
      const { client, order: o } = await order('en', 'credits_100k');
      expect(o).toMatchObject({ amount: 199, currency: 'USD' });
      // The payer's browser opens the page; the local Alipay records the trade.
      expect(await (await fetch((await start(client, o.id, 'alipay')).pay_url!)).text()).toContain('cashier');
      const out = await paymentId(o.id, 'alipay');
      expect(alipay.trades.get(out)!.total_amount).toBe('12.00');
      const note = alipay.paidNotification(out);
      expect((await deliver(t.url, note.notifyUrl, note.body, note.headers)).text).toBe('success');
      expect((await client.get(`/accounts/me/orders/${o.id}`)).body).toMatchObject({
        status: 'successful',
        amount: 1200,
        currency: 'CNY',
        method: 'alipay',
      });
    });

    it('rejects a notification signed with another key, for another app, or for another amount, and changes nothing', async () => {
      const { client, order: o } = await order('zh-CN', 'credits_500k');
      const before = await balance(client);
      expect(await (await fetch((await start(client, o.id, 'alipay')).pay_url!)).text()).toContain('cashier');
      const out = await paymentId(o.id, 'alipay');
      const forged = alipay.paidNotification(out, {}, rsaPair().privatePem);
      expect((await deliver(t.url, forged.notifyUrl, forged.body, forged.headers)).text).toBe('failure');
      const otherApp = alipay.paidNotification(out, { app_id: '2021000000000002' });
      expect((await deliver(t.url, otherApp.notifyUrl, otherApp.body, otherApp.headers)).text).toBe('failure');
      const cheap = alipay.paidNotification(out, { total_amount: '0.01' });
      expect((await deliver(t.url, cheap.notifyUrl, cheap.body, cheap.headers)).text).toBe('failure');
      const genuine = alipay.paidNotification(out);
      const tampered = genuine.body.replace(/total_amount=[^&]+/, 'total_amount=0.01');
      expect((await deliver(t.url, genuine.notifyUrl, tampered, genuine.headers)).text).toBe('failure');
      expect(await status(client, o.id)).toBe('pending_payment');
      expect(await balance(client)).toBe(before);
    });
  });

  describe('wechat (native QR, APIv3)', () => {
    it('signs the native order request, checks the signed answer, and applies a decrypted notification once', async () => {
      const { client, order: o } = await order('zh-TW', 'plan_annual');
      const before = await balance(client);
      const { qr_code, pay_url } = await start(client, o.id, 'wechat');
      expect(pay_url).toBeUndefined();
      expect(qr_code).toMatch(/^weixin:\/\/wxpay\/bizpayurl\?pr=/);
      expect(wechat.refused).toEqual([]);
      const out = await paymentId(o.id, 'wechat');
      expect(wechat.orders.get(out)).toMatchObject({
        total: 26900,
        currency: 'CNY',
        notify_url: 'https://polyvox.example/payments/wechat/notify',
      });

      const note = wechat.paidNotification(out);
      const answers = [];
      for (let i = 0; i < 10; i++) answers.push(await deliver(t.url, note.notifyUrl, note.body, note.headers));
      answers.push(
        ...(await Promise.all(Array.from({ length: 10 }, () => deliver(t.url, note.notifyUrl, note.body, note.headers)))),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      expect(JSON.parse(answers[0]!.text)).toMatchObject({ code: 'SUCCESS' });
      const me = (await client.get('/accounts/me')).body;
      expect(me.vip.credits).toBe(before + 5000000);
      expect(me.vip.level).toBe('annual');
      expect(await status(client, o.id)).toBe('successful');
    });

    it('rejects a forged signature, a stale timestamp, a resource under another key, and another amount', async () => {
      const { client, order: o } = await order('zh-CN', 'credits_100k');
      const before = await balance(client);
      await start(client, o.id, 'wechat');
      const out = await paymentId(o.id, 'wechat');
      const cases = [
        wechat.paidNotification(out, {}, { signWith: rsaPair().privatePem }),
        wechat.paidNotification(out, {}, { timestamp: String(Math.floor(Date.now() / 1000) - 3600) }),
        wechat.paidNotification(out, {}, { key: randomBytes(16).toString('hex') }),
        wechat.paidNotification(out, { total: 1 }),
        wechat.paidNotification(out, { mchid: '1900000999' }),
      ];
      for (const note of cases) {
        const res = await deliver(t.url, note.notifyUrl, note.body, note.headers);
        expect(res.status).toBe(400);
        expect(JSON.parse(res.text)).toMatchObject({ code: 'FAIL' });
      }
      const genuine = wechat.paidNotification(out);
      expect((await deliver(t.url, genuine.notifyUrl, genuine.body.replace('"nonce"', '"nonce" '), genuine.headers)).status).toBe(
        400,
      );
      expect(await status(client, o.id)).toBe('pending_payment');
      expect(await balance(client)).toBe(before);
    });

    it('refuses an answer the platform did not sign, as PAYMENT_METHOD_UNAVAILABLE', async () => {
      const { client, order: o } = await order('zh-CN', 'credits_100k');
      const original = wechat.signedHeaders;
      // A man in the middle answering for WeChat Pay cannot sign as the platform.
      const server = await import('node:http');
      const mitm = server.createServer((_req, res) => {
        res
          .writeHead(200, { 'content-type': 'application/json', ...original('{}', rsaPair().privatePem) })
          .end('{"code_url":"weixin://evil"}');
      });
      await new Promise<void>((r) => mitm.listen(0, '127.0.0.1', r));
      const port = (mitm.address() as import('node:net').AddressInfo).port;
      const other = await startTestApp(dialect, {
        env: {
          WECHAT_MCH_ID: WECHAT.mchId,
          WECHAT_APP_ID: WECHAT.appId,
          WECHAT_API_V3_KEY: WECHAT.apiV3Key,
          WECHAT_PRIVATE_KEY: merchantKeys.privatePem,
          WECHAT_SERIAL_NO: WECHAT.serialNo,
          WECHAT_PLATFORM_CERT: platformKeys.publicPem,
          WECHAT_API_BASE: `http://127.0.0.1:${port}`,
        },
      });
      try {
        const c = new Client(other.url, 'en');
        await c.anonymous();
        await signIn(c, other.outbox, `mitm-${dialect}@example.com`);
        const created = (await c.post('/accounts/me/orders', { product: 'credits_100k' })).body;
        const res = await c.post(`/accounts/me/orders/${created.id}/payment/wechat`, { pay_platform: 'web', return_url: '/' });
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe('PAYMENT_METHOD_UNAVAILABLE');
      } finally {
        await other.close();
        mitm.close();
      }
      expect(await status(client, o.id)).toBe('pending_payment');
    });
  });

  it('records a second, distinct payment of a paid order for the operator to return, and never credits it', async () => {
    const { client, order: o } = await order('zh-CN', 'credits_100k');
    const before = await balance(client);
    await start(client, o.id, 'wechat');
    await start(client, o.id, 'card');
    const wechatPayment = await paymentId(o.id, 'wechat');
    const session = [...stripe.sessions.values()].find((s) => s.metadata.order_id === o.id)!;
    // The payer pays both at the same moment: the card checkout completes before WeChat's notification is applied,
    // so it can no longer be closed, and its webhook arrives late.
    const card = stripe.paidEvent(session.id);
    const paidByWechat = wechat.paidNotification(wechatPayment);
    expect((await deliver(t.url, paidByWechat.notifyUrl, paidByWechat.body, paidByWechat.headers)).status).toBe(200);
    expect(
      logs.some(
        (l) =>
          l.msg === 'checkouts left open after the order was paid' && JSON.stringify(l.unclosed).includes('already complete'),
      ),
    ).toBe(true);
    for (let i = 0; i < 3; i++)
      expect((await deliver(t.url, 'http://x/payments/card/notify', card.payload, card.headers)).status).toBe(200);
    expect(await balance(client)).toBe(before + 100000);
    expect((await client.get(`/accounts/me/orders/${o.id}`)).body).toMatchObject({
      status: 'successful',
      method: 'wechat',
      amount: 1200,
    });
    const rows = await t.ctx.db.kysely
      .selectFrom('payments')
      .select(['method', 'status'])
      .where('order_id', '=', o.id)
      .orderBy('method')
      .execute();
    expect(rows).toEqual([
      { method: 'card', status: 'duplicate' },
      { method: 'wechat', status: 'paid' },
    ]);
    expect(logs.filter((l) => l.msg === 'second payment for a paid order: return it' && l.order_id === o.id)).toHaveLength(1);
  });

  it("closes the order's other checkouts once one payment settles it, so the payer cannot pay twice", async () => {
    const { client, order: o } = await order('zh-CN', 'credits_100k');
    const before = await balance(client);
    await start(client, o.id, 'card');
    await fetch((await start(client, o.id, 'alipay')).pay_url!);
    await start(client, o.id, 'wechat');
    const sandbox = await start(client, o.id, 'sandbox');
    const token = new URL(sandbox.pay_url!, t.url).searchParams.get('token');
    const done = await fetch(new URL(`/pay/sandbox/${o.id}/complete`, t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, outcome: 'success' }),
      redirect: 'manual',
    });
    expect(done.status).toBe(303);
    const rows = await t.ctx.db.kysely
      .selectFrom('payments')
      .select(['id', 'method', 'status'])
      .where('order_id', '=', o.id)
      .execute();
    expect(Object.fromEntries(rows.map((r) => [r.method, r.status]))).toEqual({
      card: 'closed',
      alipay: 'closed',
      wechat: 'closed',
      sandbox: 'paid',
    });
    const session = [...stripe.sessions.values()].find((s) => s.metadata.order_id === o.id)!;
    expect(session.status).toBe('expired');
    const byMethod = (m: string) => rows.find((r) => r.method === m)!.id;
    expect(alipay.trades.get(byMethod('alipay'))!.closed).toBe(true);
    expect(wechat.orders.get(byMethod('wechat'))!.closed).toBe(true);
    expect(() => stripe.paidEvent(session.id)).toThrow(/cannot be paid/);
    expect(await balance(client)).toBe(before + 100000);
    expect([...stripe.refused, ...alipay.refused, ...wechat.refused]).toEqual([]);
  });

  it('credits a verified payment that arrives after its order expired: the money was taken', async () => {
    const { client, order: o } = await order('zh-CN', 'credits_100k');
    const before = await balance(client);
    await start(client, o.id, 'wechat');
    const out = await paymentId(o.id, 'wechat');
    await t.ctx.db.kysely
      .updateTable('orders')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', o.id)
      .execute();
    expect(await t.ctx.orders.sweepExpired()).toBeGreaterThanOrEqual(1);
    expect(await status(client, o.id)).toBe('expired');
    const note = wechat.paidNotification(out);
    expect((await deliver(t.url, note.notifyUrl, note.body, note.headers)).status).toBe(200);
    expect(await status(client, o.id)).toBe('successful');
    expect(await balance(client)).toBe(before + 100000);
  });
});
