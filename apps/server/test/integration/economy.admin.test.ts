import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { adminCli } from '../support/admin-cli.js';
import { Client, signIn } from '../support/client.js';

const repoRoot = path.resolve(import.meta.dirname, '../../../..');
let n = 0;

describe.each(DIALECTS)('operator commands: grant, refund, order (%s)', (dialect) => {
  let t: TestApp;
  let env: Record<string, string>;
  let cli: ReturnType<typeof adminCli>;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    cli = adminCli(t);
    env = cli.env;
  });
  afterAll(async () => {
    await t.close();
  });

  const admin = (...argv: string[]) => cli.run(...argv);

  async function paidOrder(product: string, lang = 'zh-CN') {
    const client = new Client(t.url, lang);
    await client.anonymous();
    const email = `admin-${dialect}-${++n}@example.com`;
    const account = await signIn(client, t.outbox, email);
    const order = (await client.post('/accounts/me/orders', { product })).body;
    const started = await client.post(`/accounts/me/orders/${order.id}/payment/sandbox`, {
      pay_platform: 'web',
      return_url: '/',
    });
    const token = new URL(started.body.pay_url, t.url).searchParams.get('token');
    const done = await fetch(new URL(`/pay/sandbox/${order.id}/complete`, t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, outcome: 'success' }),
      redirect: 'manual',
    });
    expect(done.status).toBe(303);
    return { client, account, email, order };
  }

  /** Spends `amount` credits as paid work does: a hold, then its settlement. */
  async function spend(accountId: string, amount: number) {
    const hold = await t.ctx.credits.hold(accountId, amount, 'tts');
    expect(await t.ctx.credits.settle(hold.id, amount)).toBe(true);
  }

  it('grants credits to an account by email, recorded in its ledger', async () => {
    const client = new Client(t.url);
    await client.anonymous();
    const email = `grant-${dialect}@example.com`;
    const account = await signIn(client, t.outbox, email);
    const res = await admin('grant', email.toUpperCase(), '2500');
    expect(res).toMatchObject({ code: 0, err: '' });
    expect(res.out).toContain(`Granted 2,500 credits to ${email}`);
    expect((await client.get('/accounts/me')).body.vip.credits).toBe(account.vip.credits + 2500);
    expect(await t.ctx.credits.ledgerSum(account.id)).toBe(account.vip.credits + 2500);

    expect(await admin('grant', 'nobody@example.com', '10')).toMatchObject({
      code: 1,
      err: 'No account has the email nobody@example.com.',
    });
    expect((await admin('grant', email, '-5')).code).toBe(2);
    expect((await admin('grant', email, '1e3')).code).toBe(2);
    expect((await admin('grant', email)).code).toBe(2);
    expect((await admin('launch')).err).toMatch(/^Usage: npm run admin/);
  });

  it('refunds the worked example: monthly plan, 120,000 credits used → 180,000 credits deducted and 17.40 CNY', async () => {
    const { client, account, order } = await paidOrder('plan_monthly');
    const start = account.vip.credits + 300_000;
    await spend(account.id, 120_000);
    // A released hold is not spending.
    const hold = await t.ctx.credits.hold(account.id, 5000, 'tts');
    await t.ctx.credits.release(hold.id);

    const res = await admin('refund', order.id);
    expect(res.code).toBe(0);
    expect(res.out).toContain('credits used since payment: 120,000');
    expect(res.out).toContain('credits deducted:           180,000');
    expect(res.out).toContain('money to return:            17.40 CNY of 29.00 CNY');
    expect((await client.get('/accounts/me')).body.vip.credits).toBe(start - 120_000 - 180_000);
    expect(await t.ctx.credits.ledgerSum(account.id)).toBe(start - 300_000);
    const refunds = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .selectAll()
      .where('account_id', '=', account.id)
      .where('kind', '=', 'refund')
      .execute();
    expect(refunds.map((r) => [Number(r.amount), r.record_type, r.order_id])).toEqual([[-180_000, 'refund', order.id]]);
    const after = (await client.get(`/accounts/me/orders/${order.id}`)).body;
    expect(after.status).toBe('successful');
    expect(after.refunded_at).not.toBeNull();

    const again = await admin('refund', order.id);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/already refunded/);
    expect(await t.ctx.credits.ledgerSum(account.id)).toBe(start - 300_000);

    const shown = await admin('order', order.id);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`Order ${order.id}`);
    expect(shown.out).toContain('29.00 CNY');
    expect(shown.out).toContain('status    successful via sandbox');
    expect(shown.out).toContain('180,000 credits deducted, 17.40 CNY returned (refund sandbox_refund_');
    expect(shown.out).toMatch(/payment {3}pay_\w+ sandbox 29\.00 CNY paid/);
  });

  it('refunds the annual plan at the basic plan’s price: 1,000,000 used → 17,233 fen back', async () => {
    const { account, order } = await paidOrder('plan_annual');
    await spend(account.id, 1_000_000);
    const res = await admin('refund', order.id);
    expect(res.code).toBe(0);
    expect(res.out).toContain('(1,796,779 of this order');
    expect(res.out).toContain('credits deducted:           4,000,000');
    expect(res.out).toContain('172.33 CNY of 269.00 CNY');
  });

  it('refuses orders that are missing, unpaid or failed', async () => {
    expect(await admin('refund', 'ord_missing')).toMatchObject({ code: 1, err: 'No order ord_missing.' });
    expect(await admin('order', 'ord_missing')).toMatchObject({ code: 1 });
    const client = new Client(t.url);
    await client.anonymous();
    await signIn(client, t.outbox, `unpaid-${dialect}@example.com`);
    const order = (await client.post('/accounts/me/orders', { product: 'credits_100k' })).body;
    const res = await admin('refund', order.id);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/is pending_payment: only a successful order is refunded/);
    expect((await admin('order', order.id)).out).toContain('expires');
  });

  it('runs a refund once when ten operators run it at the same moment', async () => {
    const { account, order } = await paidOrder('credits_500k', 'en');
    const before = await t.ctx.credits.balance(account.id);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => t.ctx.orders.refund(order.id)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(9);
    expect(await t.ctx.credits.balance(account.id)).toBe(before - 500_000);
    expect(await t.ctx.credits.ledgerSum(account.id)).toBe(before - 500_000);
  });

  it('works as `npm run admin` in a process of its own', async () => {
    const { email } = await paidOrder('credits_100k');
    const run = promisify(execFile);
    const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', 'grant', email, '42'], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
    });
    expect(stdout).toMatch(/Granted 42 credits/);
    const failed = await run('npm', ['run', '--silent', 'admin', '--', 'refund', 'ord_nothing'], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain('No order ord_nothing.');
  });
});
