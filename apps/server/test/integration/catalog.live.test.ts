import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startPeer, startTestApp, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { buyer, complete, newOrder, sandboxToken } from '../support/economy.js';
import type { EditAudit } from '../../src/orders/catalogue-store.js';

const noAudit: EditAudit = () => Promise.resolve();

/** Asks until `probe` returns something `done` accepts (another process reloads within CATALOG_REFRESH_SECONDS). */
async function until<T>(probe: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Listed = { id: string; price: { amount: number }; credits: number };

describe.each(DIALECTS)('the catalogue is edited live (%s)', (dialect) => {
  let t: TestApp;
  let peer: Awaited<ReturnType<typeof startPeer>>;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { CATALOG_REFRESH_SECONDS: '0.2' } });
    peer = await startPeer(t);
  });
  afterAll(async () => {
    await peer.close();
    await t.close();
  });

  it('is seeded from products.json, and the public listing keeps its shape', async () => {
    const res = await new Client(t.url, 'en').get('/products?kind=credits');
    expect(res.status).toBe(200);
    expect(res.body.items.find((p: Listed) => p.id === 'credits_100k')).toMatchObject({
      id: 'credits_100k',
      kind: 'credits',
      plan: null,
      price: { amount: 199, currency: 'USD' },
      credits: 100000,
      period_days: null,
    });
  });

  it('an edit in one process is served by a second process sharing the database, without a restart', async () => {
    const client = new Client(peer.url, 'en');
    const first = await client.get('/products?kind=credits');
    expect(first.body.items.find((p: Listed) => p.id === 'credits_500k').price.amount).not.toBe(777);
    await t.ctx.products.update('credits_500k', { prices: { USD: 777 }, credits: 555_555 }, 'acc_op', noAudit);
    const seen = await until(
      () => client.get('/products?kind=credits'),
      (r) => r.body.items.find((p: Listed) => p.id === 'credits_500k').price.amount === 777,
    );
    expect(seen.body.items.find((p: Listed) => p.id === 'credits_500k').credits).toBe(555_555);
    // Hidden: gone from the listing and not for sale, in the other process too.
    await t.ctx.products.update('credits_500k', { hidden: true }, 'acc_op', noAudit);
    await until(
      () => client.get('/products'),
      (r) => !r.body.items.some((p: Listed) => p.id === 'credits_500k'),
    );
    const { client: shopper } = await buyer(t, 'en', 'hidden');
    const onPeer = new Client(peer.url, 'en');
    onPeer.sid = shopper.sid;
    const refused = await onPeer.post('/accounts/me/orders', { product: 'credits_500k' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_FAILED');
  });

  it("a plan's privileges change for its holders in every process", async () => {
    const { account } = await buyer(t, 'en', 'privileges');
    expect(await peer.ctx.plans.maxTextLength(account.id)).toBe(1000);
    await t.ctx.products.update('plan_free', { privileges: { max_text_length: 1500 } }, 'acc_op', noAudit);
    await until(
      () => peer.ctx.plans.maxTextLength(account.id),
      (n) => n === 1500,
    );
    await t.ctx.products.update('plan_free', { privileges: { max_text_length: 1000 } }, 'acc_op', noAudit);
  });

  it('an order keeps the price and the credits it was made with after an edit', async () => {
    const { client, account } = await buyer(t, 'en', 'kept');
    const order = await newOrder(client, 'credits_100k');
    expect(order.amount).toBe(199);
    await t.ctx.products.update('credits_100k', { prices: { USD: 5000 }, credits: 1 }, 'acc_op', noAudit);
    const before = await t.ctx.credits.balance(account.id);
    const token = await sandboxToken(client, order.id);
    const paid = await complete(t, order.id, { token, outcome: 'success' });
    expect(paid.status).toBeLessThan(400);
    const after = await client.get(`/api/accounts/me/orders/${order.id}`);
    expect(after.body).toMatchObject({ status: 'successful', amount: 199, credits: 100000 });
    expect(await t.ctx.credits.balance(account.id)).toBe(before + 100000);
    // A new order is priced as the catalogue says now.
    expect((await newOrder(client, 'credits_100k')).amount).toBe(5000);
  });

  it('refuses an edit that would break a sale, and leaves the catalogue as it was', async () => {
    const version = (await t.ctx.products.all()).version;
    await expect(t.ctx.products.update('plan_monthly', { prices: { CNY: 0 } }, 'acc_op', noAudit)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(t.ctx.products.update('credits_100k', { period_days: 3 }, 'acc_op', noAudit)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(
      t.ctx.products.update('plan_monthly', { privileges: { max_text_length: 9999 } }, 'acc_op', noAudit),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(t.ctx.products.update('plan_monthly', { hidden: true }, 'acc_op', noAudit)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(t.ctx.products.update('nope', { hidden: true }, 'acc_op', noAudit)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const now = await t.ctx.products.all();
    expect(now.version).toBe(version);
    expect(now.items.find((p) => p.id === 'plan_monthly')!.prices.CNY).toBe(2900);
  });

  it('keeps operator edits across a restart: the seed only adds what the table lacks', async () => {
    await t.ctx.products.update('credits_100k', { prices: { CNY: 4321 } }, 'acc_op', noAudit);
    const { CatalogueStore } = await import('../../src/orders/catalogue-store.js');
    const { readProductsFile } = await import('../../src/orders/products.js');
    const again = await new CatalogueStore({ db: t.ctx.db.kysely, refreshMs: 0 }).open(
      readProductsFile(t.ctx.config.PRODUCTS_CONFIG),
    );
    expect((await again.current()).get('credits_100k')!.prices.CNY).toBe(4321);
  });
});
