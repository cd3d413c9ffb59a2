import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { makeOperator } from '../support/operators.js';
import { buyer, newOrder } from '../support/economy.js';

describe.each(DIALECTS)('operators: redemption code batches and the catalogue (%s)', (dialect) => {
  let t: TestApp;
  let finance: Client;
  let support: Client;
  let financeId: string;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { REDEEM_PER_IP_HOUR: '100000' } });
    const f = await makeOperator(t, 'finance');
    finance = f.client;
    financeId = f.accountId;
    support = (await makeOperator(t, 'support')).client;
  });
  afterAll(async () => {
    await t.close();
  });

  it('makes a batch, lists it, shows who used each code, exports the codes as CSV, revokes it', async () => {
    const made = await finance.post('/admin/api/codes/batches', {
      name: 'launch',
      kind: 'credits',
      credits: 2500,
      count: 4,
      uses_per_code: 2,
      prefix: 'LAUNCH',
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      reason: 'launch week',
    });
    expect(made.status).toBe(201);
    const { batch, codes } = made.body as { batch: { id: string }; codes: string[] };
    expect(codes).toHaveLength(4);
    expect(new Set(codes).size).toBe(4);
    expect(made.body.batch).toMatchObject({ count: 4, uses_per_code: 2, used: 0, state: 'active', created_by: financeId });
    // Only hashes and ciphertext are stored.
    const stored = await t.ctx.db.kysely.selectFrom('redemption_codes').selectAll().where('batch_id', '=', batch.id).execute();
    expect(stored.some((r) => JSON.stringify(r).includes(codes[0]!))).toBe(false);

    const user = new Client(t.url, 'en');
    await user.anonymous();
    expect((await user.post('/api/redeem', { code: codes[1] })).status).toBe(200);

    const list = await finance.get('/admin/api/codes/batches?state=active');
    expect(list.status).toBe(200);
    expect(list.body.items.find((b: { id: string }) => b.id === batch.id)).toMatchObject({ used: 1, state: 'active' });
    const page = await finance.get(`/admin/api/codes/batches/${batch.id}/codes?page=1&page_size=2`);
    expect(page.body.total).toBe(4);
    expect(page.body.items).toHaveLength(2);
    expect(page.body.items[1]).toMatchObject({ uses: 1, max_uses: 2, state: 'partly_used' });
    expect(page.body.items[1].code).toBe(`LAUNCH-****-****-****-${codes[1]!.slice(-4)}`);
    expect(page.body.items[1].redemptions).toHaveLength(1);
    const used = await finance.get(`/admin/api/codes/batches/${batch.id}/codes?state=partly_used`);
    expect(used.body.total).toBe(1);

    const csv = await finance.get(`/admin/api/codes/batches/${batch.id}/export.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toBe('code,state,uses,max_uses,redeemed_by,redeemed_at');
    expect(lines.slice(1).map((l) => l.split(',')[0]!.replace(/"/g, ''))).toEqual(codes);
    expect(lines[2]).toContain('"partly_used","1","2"');

    const revoked = await finance.post(`/admin/api/codes/batches/${batch.id}/revoke`, { reason: 'campaign over' });
    expect(revoked.body).toMatchObject({ state: 'revoked', used: 1 });
    expect((await user.post('/api/redeem', { code: codes[2] })).status).toBe(409);

    const trail = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .select(['action', 'reason', 'operator_role'])
      .where('target_id', '=', batch.id)
      .orderBy('at')
      .execute();
    expect(trail).toEqual([
      { action: 'codes.create', reason: 'launch week', operator_role: 'finance' },
      { action: 'codes.export', reason: null, operator_role: 'finance' },
      { action: 'codes.revoke', reason: 'campaign over', operator_role: 'finance' },
    ]);
  });

  it('a plan batch names a sold plan; bad batches are refused', async () => {
    const plan = await finance.post('/admin/api/codes/batches', {
      name: 'gift',
      kind: 'plan',
      product: 'plan_quarterly',
      count: 1,
      reason: 'gifts',
    });
    expect(plan.status).toBe(201);
    expect(plan.body.batch).toMatchObject({ kind: 'plan', plan: 'quarterly', product: 'plan_quarterly', period_days: 90 });
    for (const body of [
      { name: 'x', kind: 'plan', product: 'plan_free', count: 1, reason: 'r' },
      { name: 'x', kind: 'credits', count: 1, reason: 'r' },
      { name: 'x', kind: 'credits', credits: 1, count: 10_001, reason: 'r' },
      { name: 'x', kind: 'credits', credits: 1, count: 1, prefix: 'bad-prefix', reason: 'r' },
      { name: 'x', kind: 'credits', credits: 1, count: 1, expires_at: '2001-01-01T00:00:00Z', reason: 'r' },
      { name: 'x', kind: 'credits', credits: 1, count: 1 },
    ]) {
      const res = await finance.post('/admin/api/codes/batches', body);
      expect([400], JSON.stringify(body)).toContain(res.status);
    }
  });

  it('support moves no money: codes and the catalogue answer 403', async () => {
    expect((await support.get('/admin/api/codes/batches')).status).toBe(403);
    expect((await support.get('/admin/api/catalog/products')).status).toBe(403);
  });

  it('edits a plan in the console: audited with before and after, served at once', async () => {
    const before = await finance.get('/admin/api/catalog/products?kind=plan');
    expect(before.status).toBe(200);
    const monthly = before.body.items.find((p: { id: string }) => p.id === 'plan_monthly');
    expect(monthly).toMatchObject({ kind: 'plan', prices: { CNY: 2900, USD: 499 }, hidden: false });
    const res = await finance.request('PATCH', '/admin/api/catalog/products/plan_monthly', {
      prices: { CNY: 3900 },
      privileges: { own_voices: 12 },
      name: { en: 'Monthly plus' },
      reason: 'price rise',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ prices: { CNY: 3900, USD: 499 }, privileges: { own_voices: 12 }, updated_by: financeId });
    const listed = await new Client(t.url, 'zh-CN').get('/products?kind=plan');
    expect(listed.body.items.find((p: { id: string }) => p.id === 'plan_monthly').price).toEqual({
      amount: 3900,
      currency: 'CNY',
    });
    const entry = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'plan.update')
      .where('target_id', '=', 'plan_monthly')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(entry.before!).prices.CNY).toBe(2900);
    expect(JSON.parse(entry.after!).prices.CNY).toBe(3900);
    expect(entry.reason).toBe('price rise');
    const bad = await finance.request('PATCH', '/admin/api/catalog/products/plan_monthly', { prices: { USD: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('adds and retires products and plans: audited, sold and then not, orders keep what they bought', async () => {
    const texts = (en: string) => ({ en, 'zh-CN': `${en} 中`, 'zh-TW': `${en} 中` });
    const pack = {
      id: 'credits_750k',
      kind: 'credits',
      credits: 750_000,
      prices: { CNY: 6900, USD: 999 },
      name: texts('750k credits'),
      description: texts('For a long book'),
      reason: 'autumn range',
    };
    const made = await finance.post('/admin/api/catalog/products', pack);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      id: 'credits_750k',
      kind: 'credits',
      credits: 750_000,
      hidden: false,
      updated_by: financeId,
    });
    const plan = await finance.post('/admin/api/catalog/products', {
      id: 'plan_monthly_pro',
      kind: 'plan',
      plan: 'monthly',
      vip_level: 'monthly_pro',
      rank: 9,
      credits: 2_000_000,
      period_days: 30,
      prices: { CNY: 9900, USD: 1499 },
      privileges: { max_text_length: 5000, own_voices: 50, api_access: true },
      name: texts('Monthly pro'),
      description: texts('More of everything'),
    });
    expect(plan.status).toBe(201);
    // Both on sale at once, to the public and to a buyer.
    const shop = new Client(t.url, 'en');
    const ids = async () => ((await shop.get('/products')).body.items as { id: string }[]).map((p) => p.id);
    expect(await ids()).toEqual(expect.arrayContaining(['credits_750k', 'plan_monthly_pro']));
    const { client } = await buyer(t);
    const order = await newOrder(client, 'credits_750k');
    expect(order).toMatchObject({ amount: 999, currency: 'USD' });
    // The same id again, or a pack with a plan's fields, is refused.
    expect((await finance.post('/admin/api/catalog/products', pack)).status).toBe(400);
    expect((await finance.post('/admin/api/catalog/products', { ...pack, id: 'credits_x', period_days: 30 })).status).toBe(400);

    // Retired: no longer listed or sold; the order made before keeps it.
    expect((await finance.delete('/admin/api/catalog/products/credits_750k?reason=range%20ends')).body).toEqual({
      retired: 'credits_750k',
    });
    expect((await finance.delete('/admin/api/catalog/products/plan_monthly_pro')).status).toBe(200);
    expect(await ids()).not.toContain('credits_750k');
    expect(await ids()).not.toContain('plan_monthly_pro');
    const console = (await finance.get('/admin/api/catalog/products')).body.items as { id: string }[];
    expect(console.map((p) => p.id)).not.toContain('credits_750k');
    // Ordered now, it is refused as a product that never was.
    const unknown = await client.post('/accounts/me/orders', { product: 'credits_never_was' });
    const refused = await client.post('/accounts/me/orders', { product: 'credits_750k' });
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    expect([refused.status, refused.body.error.code]).toEqual([unknown.status, unknown.body.error.code]);
    const kept = await client.get(`/accounts/me/orders/${order.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ id: order.id, amount: 999 });
    // Retired ids stay taken; the free, the basic and a period's last plan stay.
    expect((await finance.post('/admin/api/catalog/products', pack)).status).toBe(400);
    expect((await finance.delete('/admin/api/catalog/products/credits_750k')).status).toBe(404);
    for (const id of ['plan_free', 'plan_monthly', 'plan_annual'])
      expect((await finance.delete(`/admin/api/catalog/products/${id}`)).status, id).toBe(400);

    const actions = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .select(['action', 'target_id', 'reason', 'operator_id'])
      .where('action', 'in', ['product.create', 'plan.create', 'product.retire', 'plan.retire'])
      .orderBy('at')
      .orderBy('id')
      .execute();
    expect(actions).toEqual([
      { action: 'product.create', target_id: 'credits_750k', reason: 'autumn range', operator_id: financeId },
      { action: 'plan.create', target_id: 'plan_monthly_pro', reason: null, operator_id: financeId },
      { action: 'product.retire', target_id: 'credits_750k', reason: 'range ends', operator_id: financeId },
      { action: 'plan.retire', target_id: 'plan_monthly_pro', reason: null, operator_id: financeId },
    ]);
  });
});
