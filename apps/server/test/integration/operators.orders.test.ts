import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/admin/cli.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import type { Client } from '../support/client.js';
import { buyer, complete, newOrder, sandboxToken } from '../support/economy.js';
import { makeOperator } from '../support/operators.js';
import { deliver, fakeAlipay, fakeStripe, fakeWechat, rsaPair } from '../support/payments.js';

const STRIPE_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
const STRIPE_WHSEC = `whsec_${randomBytes(16).toString('hex')}`;
const ALIPAY_APP_ID = '2021000000000001';
const NOTIFY = 'https://polyvox.example/payments/card/notify';
const WECHAT = {
  mchId: '1900000109',
  appId: 'wxd678efh567hg6787',
  serialNo: '5157F09EFDC096DE15EBE81A47057A72',
  apiV3Key: randomBytes(16).toString('hex'),
};

async function pdfText(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const { text } = await extractText(new Uint8Array(bytes), { mergePages: true });
  return text;
}

async function mailsTo(outbox: string, email: string) {
  const files = (await fs.readdir(outbox).catch(() => [])).filter((f) => f.endsWith('.eml')).sort();
  const found = [];
  for (const file of files) {
    const mail = await simpleParser(await fs.readFile(path.join(outbox, file)));
    const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
    if (to?.value.some((v) => v.address?.toLowerCase() === email.toLowerCase())) found.push(mail);
  }
  return found;
}

describe.each(DIALECTS)('operator console: orders, refunds, reconciliation, receipts and invoices (%s)', (dialect) => {
  let t: TestApp;
  let env: Record<string, string>;
  let stripe: Awaited<ReturnType<typeof fakeStripe>>;
  let alipay: Awaited<ReturnType<typeof fakeAlipay>>;
  let wechat: Awaited<ReturnType<typeof fakeWechat>>;
  let finance: Client;
  let support: Client;
  const appKeys = rsaPair();
  const alipayKeys = rsaPair();
  const merchantKeys = rsaPair();
  const platformKeys = rsaPair();

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
      PAYMENT_SANDBOX: 'true',
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
      RECEIPT_ISSUER_NAME: '声韵科技有限公司',
      RECEIPT_ISSUER_TAX_ID: '91310000MA1FL8XQ3K',
    };
    t = await startTestApp(dialect, { env: settings });
    env = {
      ...settings,
      DATA_DIR: t.dataDir,
      ...(t.ctx.config.DATABASE_URL ? { DATABASE_URL: t.ctx.config.DATABASE_URL } : {}),
      LOG_LEVEL: 'silent',
    };
    finance = (await makeOperator(t, 'finance')).client;
    support = (await makeOperator(t, 'support')).client;
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([stripe.close(), alipay.close(), wechat.close()]);
  });

  /** A monthly plan paid by card through the fake Stripe; the webhook delivered. */
  async function paidByCard(lang = 'en') {
    const { client, account } = await buyer(t, lang, `ops-${dialect}`);
    const order = await newOrder(client, 'plan_monthly');
    const started = await client.post(`/accounts/me/orders/${order.id}/payment/card?pf=web`, {
      pay_platform: 'web',
      return_url: '/',
    });
    expect(started.status).toBe(200);
    const session = [...stripe.sessions.values()].find((s) => s.metadata.order_id === order.id)!;
    return { client, account, order, session };
  }

  async function deliverPaid(sessionId: string) {
    const event = stripe.paidEvent(sessionId);
    return deliver(t.url, NOTIFY, event.payload, event.headers);
  }

  async function auditOf(action: string, targetId: string) {
    return t.ctx.db.kysely
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', action)
      .where('target_id', '=', targetId)
      .execute();
  }

  it('records every notification with its verification result, and lists orders by status, method, currency and date', async () => {
    const { order, session } = await paidByCard();
    const forged = stripe.paidEvent(session.id, {}, 'whsec_forged');
    expect((await deliver(t.url, NOTIFY, forged.payload, forged.headers)).status).toBe(400);
    expect((await deliverPaid(session.id)).status).toBe(200);
    expect((await deliverPaid(session.id)).status).toBe(200);

    const detail = await finance.get(`/admin/api/orders/${order.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.order).toMatchObject({ id: order.id, status: 'successful', method: 'card' });
    const outcomes = (detail.body.events as { verification: string; outcome: string; provider_state: string }[]).map(
      (e) => `${e.verification}:${e.outcome}:${e.provider_state}`,
    );
    expect(outcomes).toEqual(['verified:already:paid', 'verified:applied:paid']);
    // The forged one names no order (nothing in it can be trusted) but is on record with why.
    const forgedEvents = await finance.get('/admin/api/payment-events?verification=forged&method=card');
    expect(forgedEvents.status).toBe(200);
    expect(forgedEvents.body.items[0]).toMatchObject({ verification: 'forged', outcome: 'rejected', order_id: null });
    expect(String(forgedEvents.body.items[0].detail.reason)).toMatch(/signature/i);

    const today = new Date().toISOString().slice(0, 10);
    const list = await finance.get(
      `/admin/api/orders?status=successful&method=card&currency=USD&since=${today}&until=${today}&page_size=100`,
    );
    expect(list.status).toBe(200);
    expect(list.body.items.map((o: { id: string }) => o.id)).toContain(order.id);
    for (const o of list.body.items) expect(o).toMatchObject({ status: 'successful', method: 'card', currency: 'USD' });
    const none = await finance.get(`/admin/api/orders?method=alipay&q=${order.id}`);
    expect(none.body).toMatchObject({ items: [], total: 0 });
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await finance.get(`/admin/api/orders?until=${yesterday}&q=${order.id}`)).body.total).toBe(0);
    // Support reads orders but moves no money.
    expect((await support.get(`/admin/api/orders/${order.id}`)).status).toBe(200);
    expect((await support.get(`/admin/api/orders/${order.id}/refund-preview`)).status).toBe(403);
  });

  it('refunds what the preview showed, through the provider, as the CLI does, with a required reason and an audit entry', async () => {
    const { account, order, session } = await paidByCard();
    await deliverPaid(session.id);
    // Some credits spent since payment: the preview prices them at the basic plan's coefficient.
    const hold = await t.ctx.credits.hold(account.id, 60_000, 'tts');
    await t.ctx.credits.settle(hold.id, 60_000);
    const preview = await finance.get(`/admin/api/orders/${order.id}/refund-preview`);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ used: 60_000, currency: 'USD', total: 499 });
    expect(preview.body.amount).toBeGreaterThan(0);
    expect(preview.body.amount).toBeLessThan(499);

    expect((await finance.post(`/admin/api/orders/${order.id}/refund`, {})).status).toBe(400);
    const wrong = await finance.post(`/admin/api/orders/${order.id}/refund`, {
      reason: 'asked',
      expected_amount: preview.body.amount + 1,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('VALIDATION_FAILED');
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === session.payment_intent)).toEqual([]);

    const done = await finance.post(`/admin/api/orders/${order.id}/refund`, {
      reason: 'customer asked within 7 days',
      expected_amount: preview.body.amount,
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ amount: preview.body.amount, deducted: preview.body.deducted, used: 60_000 });
    const paidBack = [...stripe.refunds.values()].filter((r) => r.payment_intent === session.payment_intent);
    expect(paidBack.map((r) => r.amount)).toEqual([preview.body.amount]);
    const audit = await auditOf('order.refund', order.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ operator_role: 'finance', reason: 'customer asked within 7 days' });

    // The CLI gives the same figures for the same situation.
    const twin = await paidByCard();
    await deliverPaid(twin.session.id);
    const h2 = await t.ctx.credits.hold(twin.account.id, 60_000, 'tts');
    await t.ctx.credits.settle(h2.id, 60_000);
    const out: string[] = [];
    expect(await runAdmin(['refund', twin.order.id], env, { out: (l) => out.push(l), err: (l) => out.push(l) })).toBe(0);
    const money = (preview.body.amount / 100).toFixed(2);
    expect(out.join('\n')).toContain(`money to return:            ${money} USD of 4.99 USD`);
  });

  it('refunds once when two refunds are clicked at the same moment', async () => {
    const { order, session } = await paidByCard();
    await deliverPaid(session.id);
    const slow = stripe.pauseRefunds();
    const first = finance.post(`/admin/api/orders/${order.id}/refund`, { reason: 'double click' });
    await slow.arrived;
    const second = await finance.post(`/admin/api/orders/${order.id}/refund`, { reason: 'double click' });
    slow.resume();
    const replies = [await first, second];
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === session.payment_intent)).toHaveLength(1);
    const refunds = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select('amount')
      .where('order_id', '=', order.id)
      .where('kind', '=', 'refund')
      .execute();
    expect(refunds).toHaveLength(1);
    expect(await auditOf('order.refund', order.id)).toHaveLength(1);
    // And two parallel requests with no provider pause.
    const again = await paidByCard();
    await deliverPaid(again.session.id);
    const both = await Promise.all([
      finance.post(`/admin/api/orders/${again.order.id}/refund`, { reason: 'race' }),
      finance.post(`/admin/api/orders/${again.order.id}/refund`, { reason: 'race' }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === again.session.payment_intent)).toHaveLength(1);
  });

  it('lists an order whose provider took the money we never applied, and a re-query applies it once', async () => {
    // Card: the webhook carried another amount (rejected); Stripe itself says paid in full.
    const card = await paidByCard();
    const tampered = stripe.paidEvent(card.session.id, { amount_total: 1 });
    expect((await deliver(t.url, NOTIFY, tampered.payload, tampered.headers)).status).toBe(400);
    // Alipay: the payer paid, the notification never arrived (the order lapsed meanwhile).
    const ali = await buyer(t, 'zh-CN', `ali-${dialect}`);
    const aliOrder = await newOrder(ali.client, 'plan_monthly');
    const start = await ali.client.post(`/accounts/me/orders/${aliOrder.id}/payment/alipay?pf=web`, {
      pay_platform: 'web',
      return_url: '/',
    });
    expect(start.status).toBe(200);
    expect((await fetch(start.body.pay_url)).status).toBe(200); // the payer opens Alipay's cashier
    const aliPayment = await t.ctx.db.kysely
      .selectFrom('payments')
      .select('id')
      .where('order_id', '=', aliOrder.id)
      .executeTakeFirstOrThrow();
    alipay.paidNotification(aliPayment.id); // marks the trade paid at the fake; not delivered
    await t.ctx.db.kysely.updateTable('orders').set({ status: 'expired' }).where('id', '=', aliOrder.id).execute();

    const recon = await finance.get('/admin/api/reconciliation?page_size=100');
    expect(recon.status).toBe(200);
    const byOrder = new Map((recon.body.items as { order_id: string; kind: string }[]).map((i) => [i.order_id, i.kind]));
    expect(byOrder.get(card.order.id)).toBe('paid_not_applied');
    expect(byOrder.get(aliOrder.id)).toBe('unconfirmed');

    const fixed = await finance.post(`/admin/api/orders/${card.order.id}/requery`, { reason: 'webhook amount was off' });
    expect(fixed.status).toBe(200);
    expect(fixed.body.order.status).toBe('successful');
    expect(fixed.body.answers).toEqual([expect.objectContaining({ provider_state: 'paid', outcome: 'applied' })]);
    const aliFixed = await finance.post(`/admin/api/orders/${aliOrder.id}/requery`, {});
    expect(aliFixed.status).toBe(200);
    expect(aliFixed.body.order.status).toBe('successful');
    // Asked again: consistent, credited once.
    const again = await finance.post(`/admin/api/orders/${aliOrder.id}/requery`, {});
    expect(again.body.answers[0]).toMatchObject({ provider_state: 'paid', outcome: 'consistent' });
    const purchases = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select('amount')
      .where('order_id', 'in', [card.order.id, aliOrder.id])
      .where('kind', '=', 'purchase')
      .execute();
    expect(purchases).toHaveLength(2);
    const after = await finance.get('/admin/api/reconciliation?page_size=100');
    const left = (after.body.items as { order_id: string }[]).map((i) => i.order_id);
    expect(left).not.toContain(card.order.id);
    expect(left).not.toContain(aliOrder.id);
    expect(await auditOf('order.requery', card.order.id)).toHaveLength(1);
    const events = (await finance.get(`/admin/api/orders/${aliOrder.id}`)).body.events as { kind: string }[];
    expect(events.filter((e) => e.kind === 'query')).toHaveLength(2);
    expect(alipay.refused).toEqual([]);
  });

  it('gives a paid order a receipt PDF in the user’s language (zh-CN and en), and none to an unpaid one or another account', async () => {
    for (const lang of ['zh-CN', 'en'] as const) {
      const { client, account } = await buyer(t, lang, `rcpt-${dialect}`);
      const order = await newOrder(client, 'credits_100k');
      const token = await sandboxToken(client, order.id);
      expect((await complete(t, order.id, { token, outcome: 'success' })).status).toBe(303);
      const res = await fetch(new URL(`/api/accounts/me/orders/${order.id}/receipt?lang=${lang}`, t.url), {
        headers: { 'x-sid': client.sid! },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-language')).toBe(lang);
      const text = await pdfText(await res.arrayBuffer());
      expect(text).toContain(order.id);
      expect(text).toContain(account.email);
      expect(text).toContain('声韵科技有限公司');
      expect(text).toContain('91310000MA1FL8XQ3K');
      if (lang === 'zh-CN') {
        expect(text).toContain('收据');
        expect(text).toContain('支付方式');
        expect(text).toContain('¥');
      } else {
        expect(text).toContain('Receipt');
        expect(text).toContain('Payment method');
        expect(text).toContain('$');
      }
      const other = await buyer(t, lang, `other-${dialect}`);
      expect((await other.client.get(`/api/accounts/me/orders/${order.id}/receipt`)).status).toBe(404);
      const unpaid = await newOrder(client, 'credits_100k');
      expect((await client.get(`/api/accounts/me/orders/${unpaid.id}/receipt`)).status).toBe(404);
    }
  });

  it('takes a 发票 request to finance, who issues the file the user downloads; the user is mailed at each step', async () => {
    const { client } = await buyer(t, 'zh-CN', `inv-${dialect}`);
    const order = await newOrder(client, 'credits_100k');
    const token = await sandboxToken(client, order.id);
    await complete(t, order.id, { token, outcome: 'success' });
    const email = `finance-${dialect}-${randomBytes(4).toString('hex')}@example.com`;
    const noTax = await client.post(`/accounts/me/orders/${order.id}/invoice`, { type: 'special', title: '某某公司', email });
    expect(noTax.status).toBe(400);
    const asked = await client.post(`/accounts/me/orders/${order.id}/invoice`, {
      type: 'special',
      title: '某某公司',
      tax_number: '91110000600037341L',
      email,
    });
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject({ status: 'requested', file_url: null });
    expect((await client.get('/api/accounts/me/orders')).body.items[0]).toMatchObject({
      id: order.id,
      invoice_status: 'requested',
    });

    const desk = await finance.get('/admin/api/invoices?status=requested&page_size=100');
    expect(desk.status).toBe(200);
    const row = (desk.body.items as { id: string; order_id: string }[]).find((i) => i.order_id === order.id)!;
    expect(row).toMatchObject({ title: '某某公司', tax_number: '91110000600037341L', type: 'special' });
    expect((await support.get('/admin/api/invoices')).status).toBe(403);

    const bad = new FormData();
    bad.append('file', new Blob([Buffer.from('not a pdf')], { type: 'application/pdf' }), 'x.pdf');
    expect((await finance.post(`/admin/api/invoices/${row.id}/issue`, bad)).status).toBe(415);
    const pdf = Buffer.from('%PDF-1.4\n% an invoice\n%%EOF\n');
    const form = new FormData();
    form.append('invoice_number', '24312000000012345678');
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'invoice.pdf');
    const issued = await finance.post(`/admin/api/invoices/${row.id}/issue`, form);
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ status: 'issued', invoice_number: '24312000000012345678' });
    expect(await auditOf('invoice.issue', row.id)).toHaveLength(1);

    const mine = await client.get(`/api/accounts/me/orders/${order.id}/invoice`);
    expect(mine.body).toMatchObject({ status: 'issued', file_url: `/api/accounts/me/orders/${order.id}/invoice/file` });
    const file = await fetch(new URL(mine.body.file_url, t.url), { headers: { 'x-sid': client.sid! } });
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(pdf);
    const stranger = await buyer(t, 'en', `stranger-${dialect}`);
    expect((await stranger.client.get(`/api/accounts/me/orders/${order.id}/invoice/file`)).status).toBe(404);
    // Issued once: not requested again.
    expect((await client.post(`/accounts/me/orders/${order.id}/invoice`, { type: 'normal', title: '个人', email })).status).toBe(
      400,
    );

    const mails = await mailsTo(t.outbox, email);
    expect(mails.map((m) => m.subject)).toEqual([`已收到订单 ${order.id} 的发票申请`, `订单 ${order.id} 的发票已开具`]);
    expect(mails[1]!.text).toContain('https://polyvox.example/#/app/orders');

    // A rejection is mailed with its reason, and the user may ask again.
    const second = await newOrder(client, 'credits_100k');
    await complete(t, second.id, { token: await sandboxToken(client, second.id), outcome: 'success' });
    const req2 = await client.post(`/accounts/me/orders/${second.id}/invoice`, { type: 'normal', title: '张三', email });
    const rejected = await finance.post(`/admin/api/invoices/${req2.body.id}/reject`, { reason: '抬头与付款人不符' });
    expect(rejected.status).toBe(200);
    expect((await mailsTo(t.outbox, email)).at(-1)!.text).toContain('抬头与付款人不符');
    const retried = await client.post(`/accounts/me/orders/${second.id}/invoice`, { type: 'normal', title: '张三公司', email });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ status: 'requested', note: null });
  });

  it('re-queries WeChat Pay over its signed v3 API: a payment whose notification never came is applied once, an unpaid one stays', async () => {
    const start = async () => {
      const { client } = await buyer(t, 'zh-CN', `wx-${dialect}`);
      const order = await newOrder(client, 'plan_monthly');
      const started = await client.post(`/accounts/me/orders/${order.id}/payment/wechat?pf=web`, {
        pay_platform: 'web',
        return_url: '/',
      });
      expect(started.status).toBe(200);
      const payment = await t.ctx.db.kysely
        .selectFrom('payments')
        .select('id')
        .where('order_id', '=', order.id)
        .executeTakeFirstOrThrow();
      return { order, paymentId: payment.id };
    };
    const paid = await start();
    const unpaid = await start();
    wechat.pay(paid.paymentId); // the payer paid; the notification never arrived
    const fixed = await finance.post(`/admin/api/orders/${paid.order.id}/requery`, { reason: 'no notification' });
    expect(fixed.status).toBe(200);
    expect(fixed.body.order.status).toBe('successful');
    expect(fixed.body.answers).toEqual([expect.objectContaining({ provider_state: 'paid', outcome: 'applied' })]);
    const again = await finance.post(`/admin/api/orders/${paid.order.id}/requery`, {});
    expect(again.body.answers[0]).toMatchObject({ provider_state: 'paid', outcome: 'consistent' });
    const waiting = await finance.post(`/admin/api/orders/${unpaid.order.id}/requery`, {});
    expect(waiting.status).toBe(200);
    expect(waiting.body.order.status).toBe('pending_payment');
    expect(waiting.body.answers[0]).toMatchObject({ provider_state: 'unpaid' });
    // Every call was signed with the merchant's key (the fake refuses any other) and asked by out_trade_no.
    expect(wechat.refused).toEqual([]);
    expect(wechat.queries).toEqual([paid.paymentId, paid.paymentId, unpaid.paymentId]);
    const purchases = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select('amount')
      .where('order_id', '=', paid.order.id)
      .where('kind', '=', 'purchase')
      .execute();
    expect(purchases).toHaveLength(1);
  });
});
