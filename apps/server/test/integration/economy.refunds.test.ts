import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { runAdmin } from '../../src/admin/cli.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client, signIn } from '../support/client.js';
import { deliver, fakeAlipay, fakeStripe, fakeWechat, rsaPair } from '../support/payments.js';

const STRIPE_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
const STRIPE_WHSEC = `whsec_${randomBytes(16).toString('hex')}`;
const ALIPAY_APP_ID = '2021000000000002';
const WECHAT = {
  mchId: '1900000109',
  appId: 'wxd678efh567hg6787',
  serialNo: '5157F09EFDC096DE15EBE81A47057A72',
  apiV3Key: randomBytes(16).toString('hex'),
};

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
let n = 0;

describe.each(DIALECTS)('refunds through the provider that was paid (%s)', (dialect) => {
  let t: TestApp;
  let env: Record<string, string>;
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
    const settings = {
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
    };
    t = await startTestApp(dialect, { env: settings });
    // The operator's command runs on the server's settings: same database, same providers.
    env = {
      ...settings,
      DATA_DIR: t.dataDir,
      ...(t.ctx.config.DATABASE_URL ? { DATABASE_URL: t.ctx.config.DATABASE_URL } : {}),
      LOG_LEVEL: 'silent',
    };
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([stripe.close(), alipay.close(), wechat.close()]);
  });

  async function admin(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(argv, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  /** The command as an operator runs it: its own process (two of them race as two operators would). */
  function adminProcess(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    return new Promise((resolve) => {
      execFile(
        'npm',
        ['run', '--silent', 'admin', '--', ...argv],
        { cwd: repoRoot, env: { ...process.env, ...env } },
        (e, stdout, stderr) => resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
      );
    });
  }

  const paymentOf = async (orderId: string) =>
    t.ctx.db.kysely
      .selectFrom('payments')
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
  const refundEntries = async (orderId: string) =>
    t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .selectAll()
      .where('order_id', '=', orderId)
      .where('kind', '=', 'refund')
      .orderBy('created_at')
      .execute();
  const orderRow = (orderId: string) =>
    t.ctx.db.kysely.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();

  /** A monthly plan bought in `lang` and paid through `method` at its local protocol server. */
  async function paid(method: 'card' | 'alipay' | 'wechat', lang: string) {
    const client = new Client(t.url, lang);
    await client.anonymous();
    const account = await signIn(client, t.outbox, `refund-${dialect}-${++n}@example.com`);
    const order = (await client.post('/accounts/me/orders', { product: 'plan_monthly' })).body as { id: string };
    const started = await client.post(`/accounts/me/orders/${order.id}/payment/${method}?pf=web`, {
      pay_platform: 'web',
      return_url: '/',
    });
    expect(started.status).toBe(200);
    const payment = await paymentOf(order.id);
    let notice: { body: string; headers: Record<string, string>; url: string };
    if (method === 'card') {
      const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === payment.id)!;
      const event = stripe.paidEvent(session.id);
      notice = { body: event.payload, headers: event.headers, url: 'https://polyvox.example/payments/card/notify' };
    } else if (method === 'alipay') {
      // The payer opens Alipay's cashier page, which is where the trade begins.
      expect(await (await fetch(started.body.pay_url)).text()).toContain('cashier');
      const note = alipay.paidNotification(payment.id);
      notice = { body: note.body, headers: note.headers, url: note.notifyUrl };
    } else {
      const note = wechat.paidNotification(payment.id);
      notice = { body: note.body, headers: note.headers, url: note.notifyUrl };
    }
    expect((await deliver(t.url, notice.url, notice.body, notice.headers)).status).toBe(200);
    expect((await client.get(`/accounts/me/orders/${order.id}`)).body.status).toBe('successful');
    return { client, accountId: account.id as string, orderId: order.id, payment: await paymentOf(order.id) };
  }

  /** What the provider holds as refunded for the payment, in minor units. */
  function refundedAt(method: 'card' | 'alipay' | 'wechat', paymentId: string): number[] {
    if (method === 'card') {
      const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === paymentId)!;
      return [...stripe.refunds.values()].filter((r) => r.payment_intent === session.payment_intent).map((r) => r.amount);
    }
    if (method === 'alipay') {
      return [...(alipay.trades.get(paymentId)?.refunds?.values() ?? [])].map((yuan) => Math.round(Number(yuan) * 100));
    }
    return [...wechat.refunds.values()].filter((r) => r.out_trade_no === paymentId).map((r) => r.amount.refund);
  }
  const fail = (method: 'card' | 'alipay' | 'wechat', count: number) =>
    (method === 'card' ? stripe : method === 'alipay' ? alipay : wechat).failRefunds(count);

  // Monthly: 300,000 credits for 4.99 USD (card) or 29.00 CNY (Alipay and WeChat Pay take the CNY price).
  for (const [method, lang, total, currency] of [
    ['card', 'en', 499, 'USD'],
    ['alipay', 'zh-CN', 2900, 'CNY'],
    ['wechat', 'zh-TW', 2900, 'CNY'],
  ] as const) {
    describe(method, () => {
      it('returns the unused part of the money through the provider and records the refund once', async () => {
        const { client, accountId, orderId, payment } = await paid(method, lang);
        expect(payment).toMatchObject({ status: 'paid', amount: total, currency });
        const before = await t.ctx.credits.balance(accountId);
        const res = await admin('refund', orderId);
        expect(res.err).toBe('');
        expect(res.code).toBe(0);
        // Nothing used: the whole payment goes back, and the plan's credits leave the balance.
        expect(refundedAt(method, payment.id)).toEqual([total]);
        const row = await orderRow(orderId);
        expect(row).toMatchObject({ refund_amount: total, refund_currency: currency, refund_credits: 300000 });
        expect(row.refund_ref).toBeTruthy();
        expect(res.out).toContain(`refund ${row.refund_ref}`);
        expect(await t.ctx.credits.balance(accountId)).toBe(before - 300000);
        expect(await refundEntries(orderId)).toHaveLength(1);
        expect(await t.ctx.credits.ledgerSum(accountId)).toBe(await t.ctx.credits.balance(accountId));
        expect((await client.get(`/accounts/me/orders/${orderId}`)).body.status).toBe('successful');
        const shown = await admin('order', orderId);
        expect(shown.out).toContain(`returned (refund ${row.refund_ref})`);
      });

      it('leaves the order unrefunded when the provider fails, gives the credits back as records, and a retry returns the money once', async () => {
        const { accountId, orderId, payment } = await paid(method, lang);
        const before = await t.ctx.credits.balance(accountId);
        fail(method, 1);
        const failed = await admin('refund', orderId);
        expect(failed.code).toBe(1);
        expect(failed.err).toContain('was not refunded');
        expect(failed.err).toContain('run the refund again');
        expect(refundedAt(method, payment.id)).toEqual([]);
        expect(await orderRow(orderId)).toMatchObject({ refunded_at: null, refund_amount: null, refund_ref: null });
        // The credits were taken before the provider was asked, and came back when it failed: two records.
        expect((await refundEntries(orderId)).map((e) => Number(e.amount))).toEqual([-300000, 300000]);
        expect(await t.ctx.credits.balance(accountId)).toBe(before);

        const retried = await admin('refund', orderId);
        expect(retried.code).toBe(0);
        expect(refundedAt(method, payment.id)).toEqual([total]);
        expect((await refundEntries(orderId)).reduce((s, e) => s + Number(e.amount), 0)).toBe(-300000);
        expect(await t.ctx.credits.balance(accountId)).toBe(before - 300000);
      });

      it('refunds only once when asked twice, in a row or at once', async () => {
        const { accountId, orderId, payment } = await paid(method, lang);
        // Some credits used: 100,000 of 300,000 at the basic plan's (monthly) price keeps a third of the money.
        const hold = await t.ctx.credits.hold(accountId, 100_000, 'tts');
        await t.ctx.credits.settle(hold.id, 100_000);
        const before = await t.ctx.credits.balance(accountId);
        const [a, b] = await Promise.all([adminProcess('refund', orderId), adminProcess('refund', orderId)]);
        expect([a.code, b.code].sort()).toEqual([0, 1]);
        const again = await admin('refund', orderId);
        expect(again.code).toBe(1);
        expect(again.err).toContain('already refunded');
        const money = Math.floor((total * 200_000) / 300_000);
        expect(refundedAt(method, payment.id)).toEqual([money]);
        expect(await orderRow(orderId)).toMatchObject({ refund_amount: money, refund_credits: 200_000 });
        expect(await refundEntries(orderId)).toHaveLength(1);
        expect(await t.ctx.credits.balance(accountId)).toBe(before - 200_000);
        expect(await t.ctx.credits.ledgerSum(accountId)).toBe(await t.ctx.credits.balance(accountId));
      });
    });
  }

  it('asked again after a refund that reached the provider but was never recorded, the provider answers the same refund', async () => {
    // As if the command died between the provider's answer and its commit: the same idempotency key is asked again.
    const { orderId, payment } = await paid('wechat', 'zh-CN');
    const provider = (await import('../../src/payments/providers.js')).createProviders(t.ctx.config, 'x').get('wechat')!;
    const request = {
      orderId,
      paymentId: payment.id,
      providerRef: payment.provider_ref,
      amount: 2900,
      total: 2900,
      currency: 'CNY',
    };
    const first = await provider.refund(request);
    expect((await admin('refund', orderId)).code).toBe(0);
    expect((await orderRow(orderId)).refund_ref).toBe(first);
    expect(refundedAt('wechat', payment.id)).toEqual([2900]);
  });

  it('has no refusals logged by the protocol servers', () => {
    expect(stripe.refused).toEqual([]);
    expect(alipay.refused).toEqual([]);
    expect(wechat.refused).toEqual([]);
  });
});
