import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { buyer } from '../support/economy.js';
import { deliver, fakeStripe } from '../support/payments.js';

const STRIPE_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
const STRIPE_WHSEC = `whsec_${randomBytes(16).toString('hex')}`;
const ORDERS = 200;

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

describe.each(DIALECTS)('200 concurrent purchases and refunds on one account (%s)', (dialect) => {
  let t: TestApp;
  let stripe: Awaited<ReturnType<typeof fakeStripe>>;
  beforeAll(async () => {
    stripe = await fakeStripe({ secretKey: STRIPE_KEY, webhookSecret: STRIPE_WHSEC });
    t = await startTestApp(dialect, {
      env: {
        STRIPE_SECRET_KEY: STRIPE_KEY,
        STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
        STRIPE_API_BASE: stripe.url,
        HOLD_SWEEP_SECONDS: '86400',
        ORDER_PENDING_LIMIT: '1000',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  it('keeps the balance equal to the ledger sum and never negative', async () => {
    const { client, account } = await buyer(t, 'en', 'burst');
    const ids: string[] = [];
    await inBatches(
      Array.from({ length: ORDERS }, (_, i) => i),
      20,
      async () => {
        const res = await client.post('/accounts/me/orders', { product: 'credits_100k' });
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      },
    );
    await inBatches(ids, 20, async (id) => {
      const res = await client.post(`/accounts/me/orders/${id}/payment/card?pf=web`, { pay_platform: 'web', return_url: '/' });
      expect(res.status).toBe(200);
    });
    const sessions = [...stripe.sessions.values()];
    expect(sessions).toHaveLength(ORDERS);

    // Every webhook twice, all at once, while paid work spends from the same balance.
    const spends = Array.from({ length: 100 }, async (): Promise<number> => {
      try {
        const hold = await t.ctx.credits.hold(account.id, 1000, 'tts');
        await t.ctx.credits.settle(hold.id, 700);
        return 700;
      } catch {
        return 0; // INSUFFICIENT_BALANCE early on is a correct answer
      }
    });
    const webhooks = sessions.flatMap((s) => {
      const event = stripe.paidEvent(s.id);
      return [0, 1].map(() => deliver(t.url, 'http://x/payments/card/notify', event.payload, event.headers));
    });
    const [answers, spent] = await Promise.all([Promise.all(webhooks), Promise.all(spends)]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const purchases = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select('order_id')
      .where('account_id', '=', account.id)
      .where('kind', '=', 'purchase')
      .execute();
    expect(purchases).toHaveLength(ORDERS);
    expect(new Set(purchases.map((p) => p.order_id)).size).toBe(ORDERS);
    const afterPurchases = await t.ctx.credits.balance(account.id);
    const spentFirst = spent.reduce((a, b) => a + b, 0);
    expect(afterPurchases).toBe(account.vip.credits + ORDERS * 100_000 - spentFirst);
    expect(afterPurchases).toBe(await t.ctx.credits.ledgerSum(account.id));

    // Every refund, half of them twice, all at once, interleaved with more paid work.
    const spendOnce = async (): Promise<number> => {
      try {
        const hold = await t.ctx.credits.hold(account.id, 500, 'tts');
        await t.ctx.credits.settle(hold.id, 500);
        return 500;
      } catch {
        return 0;
      }
    };
    const refunds: Promise<number | null>[] = [];
    const moreSpends: Promise<number>[] = [];
    [...ids, ...ids.slice(0, ORDERS / 2)].forEach((id, i) => {
      if (i % 3 === 0) moreSpends.push(spendOnce());
      refunds.push(
        t.ctx.orders.refund(id).then(
          (r) => r.deducted,
          () => null,
        ),
      );
    });
    const [refunded, spentLater] = await Promise.all([Promise.all(refunds), Promise.all(moreSpends)]);
    const applied = refunded.filter((r): r is number => r !== null);
    expect(applied).toHaveLength(ORDERS);
    const balance = await t.ctx.credits.balance(account.id);
    const sum = await t.ctx.credits.ledgerSum(account.id);
    expect(balance).toBe(sum);
    expect(balance).toBeGreaterThanOrEqual(0);
    const entries = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select(['balance_after', 'kind'])
      .where('account_id', '=', account.id)
      .execute();
    expect(entries.every((e) => Number(e.balance_after) >= 0)).toBe(true);
    expect(entries.filter((e) => e.kind === 'refund')).toHaveLength(ORDERS);
    const refundedOrders = await t.ctx.db.kysely
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', account.id)
      .where('refunded_at', 'is not', null)
      .executeTakeFirstOrThrow();
    expect(Number(refundedOrders.n)).toBe(ORDERS);
    const figures = {
      dialect,
      orders: ORDERS,
      webhooks: webhooks.length,
      purchases: purchases.length,
      spent: spentFirst + spentLater.reduce((a, b) => a + b, 0),
      refunds: applied.length,
      refundAttempts: refunds.length,
      deducted: applied.reduce((a, b) => a + b, 0),
      balance,
      ledgerSum: sum,
      ledgerEntries: entries.length,
      minBalanceAfter: Math.min(...entries.map((e) => Number(e.balance_after))),
    };
    console.info(`economy concurrency figures ${JSON.stringify(figures)}`);
  }, 120_000);
});
