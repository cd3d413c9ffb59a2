import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { runAdmin } from '../../src/admin/cli.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { buyer } from '../support/economy.js';
import { deliver, fakeStripe } from '../support/payments.js';

const STRIPE_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
const STRIPE_WHSEC = `whsec_${randomBytes(16).toString('hex')}`;
const MONTHLY = 300_000;
const PRICE = 499;
/** What the account tries to spend while the provider answers: 75 jobs of 4,037 credits (302,775 in all). */
const SPENDS = 75;
const EACH = 4_037;

/**
 * A refund takes the order's unused credits before it asks the provider for the money, so credits spent while the
 * provider is slow to answer are not also paid back; a provider that fails gives the credits back, as records.
 */
describe.each(DIALECTS)('a refund while the account spends (%s)', (dialect) => {
  let t: TestApp;
  let env: Record<string, string>;
  let stripe: Awaited<ReturnType<typeof fakeStripe>>;
  beforeAll(async () => {
    stripe = await fakeStripe({ secretKey: STRIPE_KEY, webhookSecret: STRIPE_WHSEC });
    const settings = {
      PUBLIC_URL: 'https://polyvox.example',
      STRIPE_SECRET_KEY: STRIPE_KEY,
      STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
      STRIPE_API_BASE: stripe.url,
      HOLD_SWEEP_SECONDS: '86400',
    };
    t = await startTestApp(dialect, { env: settings });
    env = {
      ...settings,
      DATA_DIR: t.dataDir,
      ...(t.ctx.config.DATABASE_URL ? { DATABASE_URL: t.ctx.config.DATABASE_URL } : {}),
      LOG_LEVEL: 'silent',
    };
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  async function admin(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(argv, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  /** A monthly plan paid by card; returns the account, the order and the balance after the purchase. */
  async function paidMonthly() {
    const { client, account } = await buyer(t, 'en', `race-${dialect}`);
    const order = (await client.post('/accounts/me/orders', { product: 'plan_monthly' })).body as { id: string };
    const started = await client.post(`/accounts/me/orders/${order.id}/payment/card?pf=web`, {
      pay_platform: 'web',
      return_url: '/',
    });
    expect(started.status).toBe(200);
    const payment = await t.ctx.db.kysely
      .selectFrom('payments')
      .selectAll()
      .where('order_id', '=', order.id)
      .executeTakeFirstOrThrow();
    const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === payment.id)!;
    const event = stripe.paidEvent(session.id);
    const notify = 'https://polyvox.example/payments/card/notify';
    expect((await deliver(t.url, notify, event.payload, event.headers)).status).toBe(200);
    return { client, accountId: account.id as string, orderId: order.id, paymentIntent: () => session.payment_intent };
  }

  /** Holds as jobs take them, all at once; each held one is then settled in full. Returns what was spent. */
  async function spendAtOnce(accountId: string): Promise<number> {
    const outcomes = await Promise.allSettled(Array.from({ length: SPENDS }, () => t.ctx.credits.hold(accountId, EACH, 'tts')));
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    const held = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    await Promise.all(held.map((h) => t.ctx.credits.settle(h.id, EACH)));
    return held.length * EACH;
  }

  async function recordsAddUp(client: Awaited<ReturnType<typeof paidMonthly>>['client'], accountId: string) {
    const balance = await t.ctx.credits.balance(accountId);
    expect(await t.ctx.credits.ledgerSum(accountId)).toBe(balance);
    const records = await client.get('/api/credits/records?page_size=100');
    const items = records.body.items as { amount: number; balance_after: number }[];
    expect(items.reduce((s, r) => s + r.amount, 0)).toBe(balance);
    expect(items[0]!.balance_after).toBe(balance);
    return items;
  }

  it('takes the unused credits before the provider answers: spending during the call finds them gone', async () => {
    const { client, accountId, orderId, paymentIntent } = await paidMonthly();
    const before = await t.ctx.credits.balance(accountId);
    const slow = stripe.pauseRefunds();
    const refund = admin('refund', orderId);
    await slow.arrived;
    // The provider has the request and has not answered: the account spends all it can, in parallel.
    const spent = await spendAtOnce(accountId);
    expect(spent).toBeLessThanOrEqual(before - MONTHLY);
    slow.resume();
    const done = await refund;
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    expect(done.out).toContain('credits used since payment: 0');
    expect(done.out).toContain(`credits deducted:           ${MONTHLY.toLocaleString('en-US')}`);
    expect(done.out).toContain('money to return:            4.99 USD of 4.99 USD');
    const paidBack = [...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntent());
    expect(paidBack.map((r) => r.amount)).toEqual([PRICE]);
    expect(await t.ctx.credits.balance(accountId)).toBe(before - MONTHLY - spent);
    const order = await t.ctx.db.kysely.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
    expect(order).toMatchObject({ refund_credits: MONTHLY, refund_amount: PRICE, refund_claim: null });
    expect(order.refunded_at).not.toBeNull();
    const items = await recordsAddUp(client, accountId);
    expect(items.filter((r) => (r as unknown as { type: string }).type === 'refund').map((r) => r.amount)).toEqual([-MONTHLY]);
  }, 180_000);

  it('gives the credits back, as records, when the provider fails after the account spent during the call', async () => {
    const { client, accountId, orderId, paymentIntent } = await paidMonthly();
    const before = await t.ctx.credits.balance(accountId);
    const slow = stripe.pauseRefunds();
    const refund = admin('refund', orderId);
    await slow.arrived;
    const spent = await spendAtOnce(accountId);
    expect(spent).toBeLessThanOrEqual(before - MONTHLY);
    stripe.failRefunds(1);
    slow.resume();
    const failed = await refund;
    expect(failed.code).toBe(1);
    expect(failed.err).toContain('was not refunded');
    expect(failed.err).toContain('given back');
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntent())).toEqual([]);
    expect(await t.ctx.credits.balance(accountId)).toBe(before - spent);
    const order = await t.ctx.db.kysely.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
    expect(order).toMatchObject({ refunded_at: null, refund_credits: null, refund_amount: null, refund_claim: null });
    const items = (await recordsAddUp(client, accountId)) as unknown as { type: string; amount: number }[];
    expect(items.filter((r) => r.type === 'refund').map((r) => r.amount)).toEqual([MONTHLY, -MONTHLY]);

    // A retry starts over: it prices what is left and now, and returns the money once.
    const retried = await admin('refund', orderId);
    expect(retried.code).toBe(0);
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntent())).toHaveLength(1);
    await recordsAddUp(client, accountId);
  }, 180_000);
});
