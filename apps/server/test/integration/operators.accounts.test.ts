import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorMessage } from '@polyvox/contracts';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startPeer, startTestApp, type TestApp } from '../support/app.js';
import { buyer, complete, givePlan, newOrder, sandboxToken } from '../support/economy.js';
import { makeOperator } from '../support/operators.js';
import { openRealtime } from '../support/realtime.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const VOICE = 'voice_espeak.en-us';
const realtimePath = `/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_16000&inactivity_timeout=180`;

/** Waits for `check` to hold (no timed assertion: the test's own timeout is the limit). */
async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}

async function auditCount(t: TestApp, action: string, targetId: string): Promise<number> {
  const row = await t.ctx.db.kysely
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('action', '=', action)
    .where('target_id', '=', targetId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(DIALECTS)('operator console: accounts (%s)', (dialect) => {
  let t: TestApp;
  let op: Client;
  let opId: string;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', HOLD_SWEEP_SECONDS: '86400' } });
    const made = await makeOperator(t, 'admin');
    op = made.client;
    opId = made.accountId;
  });
  afterAll(async () => {
    await t.close();
  });

  it('finds an account by email (whole or its start), phone, account id, API key prefix, key id and order id', async () => {
    const { client, account } = await buyer(t, 'en', 'findme');
    await givePlan(t, account.id);
    const key = (await client.put('/api/authorization', { name: 'search' })).body as { id: string; key: string };
    const order = await newOrder(client);
    await t.ctx.db.kysely.updateTable('accounts').set({ mobile: '+8613800138123' }).where('id', '=', account.id).execute();
    const ids = async (q: string) => {
      const res = await op.get(`/admin/api/accounts?q=${encodeURIComponent(q)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.items as { id: string }[]).map((i) => i.id);
    };
    expect(await ids(account.email)).toEqual([account.id]);
    expect(await ids(account.email.toUpperCase())).toEqual([account.id]);
    expect(await ids(account.email.slice(0, 10))).toContain(account.id);
    expect(await ids(account.id)).toEqual([account.id]);
    expect(await ids('13800138123')).toEqual([account.id]);
    expect(await ids('+86 138 0013 8123')).toEqual([account.id]);
    expect(await ids(key.key.slice(0, 12))).toEqual([account.id]);
    expect(await ids(key.key.slice(0, 9))).toContain(account.id);
    expect(await ids(key.key)).toEqual([account.id]);
    expect(await ids(key.id)).toEqual([account.id]);
    expect(await ids(order.id)).toEqual([account.id]);
    expect(await ids('nobody-here@example.com')).toEqual([]);
    // `%` and `_` are letters, not wildcards.
    expect(await ids('%')).toEqual([]);

    // Every account, newest first, paged on the server.
    const first = await op.get('/admin/api/accounts?page_size=2&page=1');
    const second = await op.get('/admin/api/accounts?page_size=2&page=2');
    expect(first.body.total).toBeGreaterThanOrEqual(3);
    expect(first.body.items).toHaveLength(2);
    expect(second.body.items[0].id).not.toBe(first.body.items[1].id);
    expect(first.body.items[0].created_at >= first.body.items[1].created_at).toBe(true);

    const page = await op.get(`/admin/api/accounts/${account.id}`);
    expect(page.status).toBe(200);
    expect(page.body.account).toMatchObject({ id: account.id, email: account.email, status: 'active', held: 0 });
    expect(page.body.keys.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect(page.body.sessions.some((s: { live: boolean }) => s.live)).toBe(true);
    const orders = await op.get(`/admin/api/accounts/${account.id}/orders`);
    expect(orders.body).toMatchObject({ total: 1, items: [{ id: order.id, status: 'pending_payment' }] });
    expect((await op.get('/admin/api/accounts/acc_missing')).status).toBe(404);
  });

  it('grants and deducts credits with a reason the user sees; the ledger adds up to the balance; never below zero', async () => {
    const { client, account } = await buyer(t, 'en', 'money');
    const before = await t.ctx.credits.balance(account.id);
    const grant = await op.post(`/admin/api/accounts/${account.id}/credits/grant`, {
      amount: 500,
      reason: 'goodwill for outage',
    });
    expect(grant.status, JSON.stringify(grant.body)).toBe(200);
    expect(grant.body.balance).toBe(before + 500);
    const deduct = await op.post(`/admin/api/accounts/${account.id}/credits/deduct`, { amount: 200, reason: 'duplicate grant' });
    expect(deduct.status).toBe(200);
    expect(deduct.body.balance).toBe(before + 300);

    // A deduction past the balance is refused, clearly, and changes nothing.
    const tooMuch = await op.post(`/admin/api/accounts/${account.id}/credits/deduct`, {
      amount: before + 301,
      reason: 'too much',
    });
    expect(tooMuch.status).toBe(402);
    expect(tooMuch.body.error.code).toBe('INSUFFICIENT_BALANCE');
    // A reason is required.
    const noReason = await op.post(`/admin/api/accounts/${account.id}/credits/grant`, { amount: 5, reason: '   ' });
    expect(noReason.status).toBe(400);

    const ledger = await op.get(`/admin/api/accounts/${account.id}/ledger?page_size=100`);
    expect(ledger.body.ledger_sum).toBe(before + 300);
    expect(await t.ctx.credits.balance(account.id)).toBe(ledger.body.ledger_sum);

    const records = (await client.get('/api/credits/records')).body.items as Array<Record<string, unknown>>;
    expect(records[0]).toMatchObject({ id: deduct.body.record_id, type: 'grant', amount: -200, reason: 'duplicate grant' });
    expect(records[1]).toMatchObject({ id: grant.body.record_id, type: 'grant', amount: 500, reason: 'goodwill for outage' });
    expect(records[0]!.balance_after).toBe(before + 300);

    expect(await auditCount(t, 'credits.grant', account.id)).toBe(1);
    expect(await auditCount(t, 'credits.deduct', account.id)).toBe(1);
    const entry = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'credits.deduct')
      .where('target_id', '=', account.id)
      .executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ operator_id: opId, operator_role: 'admin', reason: 'duplicate grant', target_type: 'account' });
    expect(JSON.parse(entry.after!)).toMatchObject({ balance: before + 300 });
  });

  it('gives the same entry from the command line grant', async () => {
    const { runAdmin } = await import('../../src/admin/cli.js');
    const { client, account } = await buyer(t, 'en', 'cli');
    const out: string[] = [];
    const env = {
      DATA_DIR: t.dataDir,
      ...(t.ctx.config.DATABASE_URL ? { DATABASE_URL: t.ctx.config.DATABASE_URL } : {}),
      LOG_LEVEL: 'silent',
    };
    const code = await runAdmin(['grant', account.email, '70', 'apology'], env, {
      out: (l) => out.push(l),
      err: (l) => out.push(l),
    });
    expect(code, out.join('\n')).toBe(0);
    const records = (await client.get('/api/credits/records')).body.items as Array<Record<string, unknown>>;
    expect(records[0]).toMatchObject({ type: 'grant', amount: 70, reason: 'apology' });
  });

  it('disables an account: sessions end, keys, sign-in and sockets are refused, held credits return; enabling restores', async () => {
    const { client, account } = await buyer(t, 'zh-CN', 'disable');
    await givePlan(t, account.id);
    const key = (await client.put('/api/authorization', { name: 'rt' })).body as { id: string; key: string };
    const balance = await t.ctx.credits.balance(account.id);

    // An open socket speaking (so it is registered), and a hold left by a synthesis still in flight elsewhere.
    const rt = await openRealtime(t.url, realtimePath, { 'xi-api-key': key.key });
    rt.send({ text: ' ' });
    rt.send({ text: 'Hello there.', flush: true });
    await rt.next((m) => typeof m.audio === 'string');
    const held = await t.ctx.credits.hold(account.id, 40, 'tts');
    expect(await t.ctx.credits.balance(account.id)).toBeLessThan(balance);

    const res = await op.post(`/admin/api/accounts/${account.id}/disable`, { reason: 'fraud reports' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.account).toMatchObject({ status: 'disabled', disabled_reason: 'fraud reports', held: 0 });
    expect(res.body.sessions_ended).toBeGreaterThanOrEqual(1);
    expect(res.body.released_credits).toBeGreaterThanOrEqual(40);
    expect(await auditCount(t, 'account.disable', account.id)).toBe(1);

    const closed = await rt.closed;
    expect(closed.code).toBe(1008);
    expect(rt.messages.some((m) => m.error === 'ACCOUNT_DISABLED')).toBe(true);
    expect(await t.ctx.credits.holdStatus(held.id)).toBe('released');
    // Everything it held is back (what the socket spoke before the disable was paid for).
    const ledger = await op.get(`/admin/api/accounts/${account.id}/ledger?page_size=100`);
    expect(await t.ctx.credits.balance(account.id)).toBe(ledger.body.ledger_sum);
    expect(ledger.body.items.filter((e: { kind: string }) => e.kind === 'hold').length).toBeGreaterThan(0);

    // The session answers ACCOUNT_DISABLED, in the user's language.
    const me = await client.get('/accounts/me');
    expect(me.status).toBe(403);
    expect(me.body.error).toMatchObject({ code: 'ACCOUNT_DISABLED', message: errorMessage('ACCOUNT_DISABLED', 'zh-CN') });
    // The key is refused with the same code.
    const withKey = await new Client(t.url).post('/tts/estimate', { text: 'hi', voice_id: VOICE }, { 'xi-api-key': key.key });
    expect(withKey.status).toBe(403);
    expect(withKey.body.error.code).toBe('ACCOUNT_DISABLED');
    await expect(openRealtime(t.url, realtimePath, { 'xi-api-key': key.key })).rejects.toMatchObject({ status: 403 });
    // Signing in is refused and says why, in zh-CN: neither a code nor, with one, a session.
    const stranger = new Client(t.url, 'zh-CN');
    const send = await stranger.post('/verification/email', { email: account.email });
    expect(send.status).toBe(403);
    expect(send.body.error.message).toBe('该账户已被运营方停用，请联系客服');
    await expect(signIn(stranger, t.outbox, account.email)).rejects.toThrow(/403/);

    // Enabled again: it signs in anew, its key works.
    const enabled = await op.post(`/admin/api/accounts/${account.id}/enable`, { reason: 'appeal accepted' });
    expect(enabled.status).toBe(200);
    expect(enabled.body.account).toMatchObject({ status: 'active', disabled_reason: null });
    expect(await auditCount(t, 'account.enable', account.id)).toBe(1);
    // The codes asked for earlier are past their 60 s resend wait (as if a minute went by).
    await t.ctx.db.kysely
      .updateTable('verification_codes')
      .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
      .where('email', '=', account.email)
      .execute();
    const back = new Client(t.url, 'zh-CN');
    const again = await signIn(back, t.outbox, account.email);
    expect(again.id).toBe(account.id);
    const estimate = await new Client(t.url).post('/tts/estimate', { text: 'hi', voice_id: VOICE }, { 'xi-api-key': key.key });
    expect(estimate.status).toBe(200);
  });

  it('ends every session of an account', async () => {
    const { client, account } = await buyer(t, 'en', 'sessions');
    const res = await op.post(`/admin/api/accounts/${account.id}/sessions/end`, { reason: 'account shared' });
    expect(res.status).toBe(200);
    expect(res.body.sessions_ended).toBeGreaterThanOrEqual(1);
    expect((await client.get('/accounts/me')).status).toBe(401);
    expect(await auditCount(t, 'account.sessions_end', account.id)).toBe(1);
    // An operator cannot disable their own account.
    expect((await op.post(`/admin/api/accounts/${opId}/disable`, { reason: 'oops' })).status).toBe(403);
  });

  it('lets support read and manage but not move money; finance move money but not disable', async () => {
    const { account } = await buyer(t, 'en', 'roles');
    const support = (await makeOperator(t, 'support')).client;
    const finance = (await makeOperator(t, 'finance')).client;
    expect((await support.get(`/admin/api/accounts/${account.id}`)).status).toBe(200);
    expect((await support.post(`/admin/api/accounts/${account.id}/credits/grant`, { amount: 1, reason: 'x' })).status).toBe(403);
    expect((await finance.post(`/admin/api/accounts/${account.id}/credits/grant`, { amount: 1, reason: 'x' })).status).toBe(200);
    expect((await finance.post(`/admin/api/accounts/${account.id}/disable`, { reason: 'x' })).status).toBe(403);
    expect((await new Client(t.url).get('/admin/api/accounts')).status).toBe(401);
  });
});

describe.each(DIALECTS)('operator console: overview (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts what the test made: revenue, orders, accounts, credits, syntheses per engine', async () => {
    const { client: opClient } = await makeOperator(t, 'finance');
    const { client, account } = await buyer(t, 'en', 'overview');
    const paid = await newOrder(client, 'credits_100k');
    await newOrder(client, 'credits_100k');
    const token = await sandboxToken(client, paid.id);
    expect((await complete(t, paid.id, { token, outcome: 'success' })).status).toBeLessThan(400);
    await until(async () =>
      (await client.get('/api/accounts/me/orders')).body.items.some((o: { status: string }) => o.status === 'successful'),
    );
    await opClient.post(`/admin/api/accounts/${account.id}/credits/grant`, { amount: 900, reason: 'test' });
    await opClient.post(`/admin/api/accounts/${account.id}/credits/deduct`, { amount: 300, reason: 'test' });
    const tts = await client.post('/tts', { text: 'Counted once.', voice_id: VOICE });
    expect(tts.status).toBe(200);
    await until(async () =>
      (await client.get('/api/credits/records')).body.items.some((r: { type: string }) => r.type === 'tts'),
    );

    const res = await opClient.get('/admin/api/overview');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const o = res.body;
    const today = new Date().toISOString().slice(0, 10);
    expect(o.to).toBe(today);
    const db = t.ctx.db.kysely;
    const accounts = await db.selectFrom('accounts').select(['anonymous']).execute();
    const day = o.accounts.find((a: { day: string }) => a.day === today);
    expect(day.new_accounts).toBe(accounts.length);
    expect(day.new_registered).toBe(accounts.filter((a) => Number(a.anonymous) === 0).length);
    expect(day.active).toBeGreaterThanOrEqual(1);
    const order = await db.selectFrom('orders').selectAll().where('id', '=', paid.id).executeTakeFirstOrThrow();
    expect(o.revenue).toEqual([
      { day: today, currency: order.currency, method: 'sandbox', amount: Number(order.amount), orders: 1 },
    ]);
    expect(o.orders_by_status).toEqual(
      expect.arrayContaining([
        { status: 'successful', orders: 1 },
        { status: 'pending_payment', orders: 1 },
      ]),
    );
    const grants = await db.selectFrom('credit_ledger').select(['amount']).where('kind', '=', 'grant').execute();
    const credits = o.credits.find((c: { day: string }) => c.day === today);
    expect(credits.granted).toBe(grants.filter((g) => Number(g.amount) > 0).reduce((s, g) => s + Number(g.amount), 0));
    expect(credits.deducted).toBe(300);
    expect(credits.bought).toBe(Number(order.credits));
    const settled = await db.selectFrom('credit_ledger').select(['charge']).where('kind', '=', 'settle').execute();
    expect(credits.spent).toBe(settled.reduce((s, r) => s + Number(r.charge), 0));
    expect(credits.refunded).toBe(0);
    const engine = o.engines.find((e: { engine: string }) => e.engine === 'espeak');
    const charsSettled = await db.selectFrom('credit_ledger').select(['characters']).where('kind', '=', 'settle').execute();
    expect(engine).toMatchObject({ day: today, syntheses: 1, characters: Number(charsSettled[0]!.characters) });
    expect(o.speech.requests).toBeGreaterThanOrEqual(1);
    expect(o.speech.p95_seconds).toBeGreaterThan(0);
    expect(o.queues).toEqual({ role: 'all', depth: null, workers: null });
    expect(o.engines_health.started).toBe(true);
    expect(o.engines_health.models.length).toBeGreaterThan(0);

    // A range without today has none of it; a reversed or too long range is refused.
    const past = await opClient.get('/admin/api/overview?from=2020-01-01&to=2020-01-31');
    expect(past.body).toMatchObject({ revenue: [], accounts: [], credits: [], engines: [] });
    expect((await opClient.get('/admin/api/overview?from=2020-02-01&to=2020-01-31')).status).toBe(400);
    expect((await opClient.get('/admin/api/overview?from=2019-01-01&to=2020-01-31')).status).toBe(400);
  });
});

describe.runIf(DIALECTS.includes('postgres'))('a disabled account across processes (API + API, Redis)', () => {
  let t: TestApp;
  beforeAll(async () => {
    const prefix = `polyvox-test:${process.pid}:${Math.random().toString(36).slice(2)}:`;
    t = await startTestApp('postgres', { env: { REDIS_URL, REDIS_PREFIX: prefix, SPEECH_WORKERS: '1' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it("closes the account's socket on the other process", async () => {
    const peer = await startPeer(t);
    try {
      const op = (await makeOperator(t, 'support')).client;
      const { client, account } = await buyer(t, 'en', 'peer');
      await givePlan(t, account.id);
      const key = (await client.put('/api/authorization', { name: 'peer' })).body as { key: string };
      const rt = await openRealtime(peer.url, realtimePath, { 'xi-api-key': key.key });
      rt.send({ text: ' ' });
      rt.send({ text: 'Hello there.', flush: true });
      await rt.next((m) => typeof m.audio === 'string');
      expect(peer.ctx.realtimeSockets.size).toBe(1);
      const res = await op.post(`/admin/api/accounts/${account.id}/disable`, { reason: 'abuse' });
      expect(res.status).toBe(200);
      expect((await rt.closed).code).toBe(1008);
      expect(rt.messages.some((m) => m.error === 'ACCOUNT_DISABLED')).toBe(true);
      await until(() => peer.ctx.realtimeSockets.size === 0);
    } finally {
      await peer.close();
    }
  });
});
