import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { CodesService, type CodesAudit, type NewBatch } from '../../src/codes/service.js';

const noAudit: CodesAudit = () => Promise.resolve();

function batchOf(over: Partial<NewBatch> = {}): NewBatch {
  return { name: 'test', kind: 'credits', credits: 5000, count: 1, usesPerCode: 1, prefix: 'T', expiresAt: null, ...over };
}

async function visitors(t: TestApp, n: number, lang = 'en'): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const c = new Client(t.url, lang);
      await c.anonymous();
      return c;
    }),
  );
}

async function accountId(c: Client): Promise<string> {
  const me = await c.get('/accounts/me');
  return me.body.id as string;
}

describe.each(DIALECTS)('redemption codes (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    // Every test client is 127.0.0.1: the per-address allowance is tested on its own below.
    t = await startTestApp(dialect, { env: { REDEEM_PER_IP_HOUR: '100000', REDEEM_PER_ACCOUNT_HOUR: '1000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('100 parallel redemptions of one single-use code by 100 accounts: exactly one succeeds', async () => {
    const { codes, batch } = await t.ctx.codes.createBatch(batchOf({ credits: 7000 }), 'acc_operator', noAudit);
    const clients = await visitors(t, 100);
    const ids = await Promise.all(clients.map(accountId));
    const before = await Promise.all(ids.map((id) => t.ctx.credits.balance(id)));
    const answers = await Promise.all(clients.map((c) => c.post('/api/redeem', { code: codes[0] })));
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 409);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(99);
    expect(refused.every((a) => a.body.error.code === 'CODE_NOT_REDEEMABLE')).toBe(true);
    const winner = answers.findIndex((a) => a.status === 200);
    expect(ok[0]!.body).toEqual({ credits: 7000, plan: null, balance: before[winner]! + 7000 });
    let mismatches = 0;
    for (const [i, id] of ids.entries()) {
      const balance = await t.ctx.credits.balance(id);
      const sum = await t.ctx.credits.ledgerSum(id);
      if (balance !== sum) mismatches += 1;
      expect(balance).toBe(before[i]! + (i === winner ? 7000 : 0));
    }
    const uses = await t.ctx.db.kysely.selectFrom('code_redemptions').selectAll().where('batch_id', '=', batch.id).execute();
    expect(uses).toHaveLength(1);
    expect(mismatches).toBe(0);
    console.log(
      `[race ${dialect}] 100 parallel redemptions of one code: ${ok.length} succeeded, ${refused.length} refused (409), ` +
        `${answers.length - ok.length - refused.length} other; ledger sum == balance on ${ids.length - mismatches}/${ids.length} accounts`,
    );
  });

  it('100 parallel redemptions by one account of a 100-use code: one succeeds, the account is credited once', async () => {
    const { codes, batch } = await t.ctx.codes.createBatch(batchOf({ usesPerCode: 100, credits: 300 }), 'acc_operator', noAudit);
    const [client] = await visitors(t, 1);
    const id = await accountId(client!);
    const before = await t.ctx.credits.balance(id);
    const answers = await Promise.all(Array.from({ length: 100 }, () => client!.post('/api/redeem', { code: codes[0] })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(99);
    expect(await t.ctx.credits.balance(id)).toBe(before + 300);
    expect(await t.ctx.credits.ledgerSum(id)).toBe(before + 300);
    expect((await t.ctx.codes.batch(batch.id)).used).toBe(1);
  });

  it('an N-use code works for N accounts, each once; then it is used up', async () => {
    const { codes, batch } = await t.ctx.codes.createBatch(batchOf({ usesPerCode: 3, credits: 100 }), 'acc_operator', noAudit);
    const clients = await visitors(t, 5);
    const first = await clients[0]!.post('/api/redeem', { code: codes[0] });
    expect(first.status).toBe(200);
    const again = await clients[0]!.post('/api/redeem', { code: codes[0] });
    expect(again.status).toBe(409);
    const rest = [];
    for (const c of clients.slice(1)) rest.push((await c.post('/api/redeem', { code: codes[0] })).status);
    expect(rest).toEqual([200, 200, 409, 409]);
    const view = await t.ctx.codes.batch(batch.id);
    expect(view).toMatchObject({ used: 3, state: 'used_up' });
    const listed = await t.ctx.codes.codes(batch.id, { page: 1, pageSize: 10 });
    expect(listed.items[0]).toMatchObject({ uses: 3, max_uses: 3, state: 'used_up' });
    expect(listed.items[0]!.redemptions).toHaveLength(3);
  });

  it('a code is typed in any case, with or without dashes and spaces; the redemption is a grant record', async () => {
    const { codes } = await t.ctx.codes.createBatch(batchOf({ credits: 1234, prefix: 'SPRING' }), 'acc_operator', noAudit);
    expect(codes[0]).toMatch(/^SPRING-[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$/);
    const [client] = await visitors(t, 1);
    const typed = ` ${codes[0]!.toLowerCase().replace(/-/g, ' ')} `;
    const res = await client!.post('/api/redeem', { code: typed });
    expect(res.status).toBe(200);
    const records = await client!.get('/api/credits/records?type=grant');
    expect(records.body.items[0]).toMatchObject({ type: 'grant', amount: 1234, balance_after: res.body.balance });
  });

  it('a plan code grants the plan and its credits, as a purchase of it does', async () => {
    const { codes } = await t.ctx.codes.createBatch(
      batchOf({ kind: 'plan', product: 'plan_monthly', credits: undefined }),
      'acc_operator',
      noAudit,
    );
    const [client] = await visitors(t, 1);
    const id = await accountId(client!);
    const res = await client!.post('/api/redeem', { code: codes[0] });
    expect(res.status).toBe(200);
    const monthly = (await t.ctx.products.current()).get('plan_monthly')!;
    expect(res.body).toMatchObject({ credits: monthly.credits, plan: 'monthly' });
    const account = await t.ctx.db.kysely.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(account.vip_level).toBe('monthly');
    const days = (Date.parse(account.vip_expire!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
  });

  it('expires on the batch clock: works before its expiry, refused after (injected clock)', async () => {
    let now = new Date('2031-01-01T00:00:00Z');
    const codesAt = new CodesService({
      db: t.ctx.db.kysely,
      credits: t.ctx.credits,
      plans: t.ctx.orders,
      products: t.ctx.products,
      limiter: t.ctx.limiter,
      secret: 'test-secret',
      limits: { perAccountHour: 1000, perIpHour: 100000 },
      now: () => now,
    });
    const { codes } = await codesAt.createBatch(
      batchOf({ count: 2, expiresAt: '2031-01-01T01:00:00Z', credits: 10 }),
      'acc_operator',
      noAudit,
    );
    const [a, b] = await Promise.all([visitors(t, 1), visitors(t, 1)]).then((x) => x.flat());
    now = new Date('2031-01-01T00:59:59Z');
    await expect(codesAt.redeem(await accountId(a!), codes[0]!, '127.0.0.1')).resolves.toMatchObject({ credits: 10 });
    now = new Date('2031-01-01T01:00:00Z');
    await expect(codesAt.redeem(await accountId(b!), codes[1]!, '127.0.0.1')).rejects.toMatchObject({
      code: 'CODE_NOT_REDEEMABLE',
    });
  });

  it('a revoked batch is refused; a wrong code too; the message is in the request language', async () => {
    const { codes, batch } = await t.ctx.codes.createBatch(batchOf({ count: 2 }), 'acc_operator', noAudit);
    const [client] = await visitors(t, 1, 'zh-CN');
    expect((await client!.post('/api/redeem', { code: codes[0] })).status).toBe(200);
    const revoked = await t.ctx.codes.revoke(batch.id, 'acc_operator', noAudit);
    expect(revoked).toMatchObject({ state: 'revoked', used: 1 });
    const [other] = await visitors(t, 1, 'zh-TW');
    const res = await other!.post('/api/redeem', { code: codes[1] });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'CODE_NOT_REDEEMABLE',
      message: '此兌換碼無法使用：不存在、已用完、已過期或已作廢',
    });
    const wrong = await client!.post('/api/redeem', { code: 'T-AAAA-BBBB-CCCC-DDDD' });
    expect(wrong.body.error).toMatchObject({
      code: 'CODE_NOT_REDEEMABLE',
      message: '该兑换码无法使用：不存在、已用完、已过期或已作废',
    });
  });

  it('works with an API key', async () => {
    const { codes } = await t.ctx.codes.createBatch(batchOf({ credits: 55 }), 'acc_operator', noAudit);
    const [client] = await visitors(t, 1);
    const key = await client!.put('/api/authorization', { name: 'redeemer' });
    expect(key.status).toBe(201);
    const res = await fetch(new URL('/api/redeem', t.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${key.body.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code: codes[0] }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { credits: number }).credits).toBe(55);
  });
});

describe.each(DIALECTS)('guessing codes is rate-limited (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { REDEEM_PER_ACCOUNT_HOUR: '3', REDEEM_PER_IP_HOUR: '5' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('an account gets its allowance of attempts, then 429 with retry-after; the address its own', async () => {
    const [a, b] = await visitors(t, 2, 'zh-CN');
    for (let i = 0; i < 3; i++) expect((await a!.post('/api/redeem', { code: `GUESS-${i}` })).status).toBe(409);
    const limited = await a!.post('/api/redeem', { code: 'GUESS-3' });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.error.message).toMatch(/^请求过于频繁/);
    // The address's fifth attempt is another account's first; its sixth is refused whoever makes it.
    expect((await b!.post('/api/redeem', { code: 'GUESS-4' })).status).toBe(409);
    expect((await b!.post('/api/redeem', { code: 'GUESS-5' })).status).toBe(429);
  });
});
