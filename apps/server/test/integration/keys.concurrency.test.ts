import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/platform/errors.js';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

const VOICE = 'voice_flite.slt';

describe.each(DIALECTS)('key-limited spends at once (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', HOLD_SWEEP_SECONDS: '86400' } });
  });
  afterAll(async () => {
    await t.close();
  });

  async function account(credits: number): Promise<{ client: Client; id: string }> {
    const client = new Client(t.url);
    const { account } = await client.anonymous();
    await t.ctx.db.kysely
      .transaction()
      .execute((trx) => t.ctx.credits.grantOnce(trx, account.id, `test:${account.id}`, credits - account.vip.credits, 'test'));
    return { client, id: account.id };
  }

  const keyRow = (id: string) =>
    t.ctx.db.kysely.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('200 concurrent holds through one key never pass its limit or the balance; closing them keeps every sum', async () => {
    const { client, id } = await account(20_000);
    const limit = 5_000;
    const { body: key } = await client.put('/api/authorization', { name: 'busy', limit });
    const price = 37;
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () =>
        t.ctx.credits.hold(id, price, 'api', undefined, { apiKeyId: key.id }).then(
          (hold) => ({ hold }),
          (e: unknown) => ({ error: isAppError(e) ? e.code : String(e) }),
        ),
      ),
    );
    const holds = outcomes.flatMap((o) => ('hold' in o ? [o.hold] : []));
    const refused = outcomes.flatMap((o) => ('error' in o ? [o.error] : []));
    expect(holds.length).toBe(Math.floor(limit / price));
    expect(new Set(refused)).toEqual(new Set(['KEY_LIMIT_REACHED']));
    expect(Number((await keyRow(key.id)).used)).toBe(holds.length * price);

    // Half settle for part of their price, the rest are released; all at once, some twice.
    let charged = 0;
    await Promise.all(
      holds.map((hold, i) => {
        if (i % 2 === 1) return Promise.all([t.ctx.credits.release(hold.id), t.ctx.credits.release(hold.id)]);
        const take = 10 + (i % 27);
        // Settle and release race: whichever closes the hold first counts, the other does nothing.
        return Promise.all([
          t.ctx.credits.settle(hold.id, take, { api_key_id: key.id }).then((settled) => {
            if (settled) charged += take;
          }),
          t.ctx.credits.release(hold.id),
        ]);
      }),
    );
    const balance = await t.ctx.credits.balance(id);
    const ledger = await t.ctx.credits.ledgerSum(id);
    const used = Number((await keyRow(key.id)).used);
    const settledByKey = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.sum<number>('charge').as('n'))
      .where('api_key_id', '=', key.id)
      .where('kind', '=', 'settle')
      .executeTakeFirstOrThrow();
    console.log(
      `[${dialect}] 200 key-limited holds: ${holds.length} held, ${refused.length} refused (KEY_LIMIT_REACHED); ` +
        `limit ${limit}, key used ${used}, charged ${charged}; balance ${balance} = ledger sum ${ledger}`,
    );
    expect(balance).toBe(ledger);
    expect(balance).toBe(20_000 - charged);
    expect(used).toBe(charged);
    expect(Number(settledByKey.n)).toBe(charged);
    expect(used).toBeLessThanOrEqual(limit);
    const negative = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select('id')
      .where('account_id', '=', id)
      .where('balance_after', '<', 0)
      .execute();
    expect(negative).toEqual([]);
    const records = await client.get(`/api/credits/records?api_key=${key.id}&page_size=100`);
    expect(records.body.items.reduce((sum: number, r: { amount: number }) => sum - r.amount, 0)).toBe(charged);
  });

  it('200 concurrent holds through one key on a balance smaller than its limit stop at the balance', async () => {
    const { client, id } = await account(1_500);
    const { body: key } = await client.put('/api/authorization', { name: 'poor', limit: 100_000 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, () => t.ctx.credits.hold(id, 40, 'api', undefined, { apiKeyId: key.id })),
    );
    const held = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(held).toBe(Math.floor(1_500 / 40));
    for (const o of outcomes)
      if (o.status === 'rejected') expect((o.reason as { code: string }).code).toBe('INSUFFICIENT_BALANCE');
    // A refused hold left the key's count untouched: it moved in the same transaction as the balance.
    expect(Number((await keyRow(key.id)).used)).toBe(held * 40);
    expect(await t.ctx.credits.balance(id)).toBe(await t.ctx.credits.ledgerSum(id));
  });

  it('50 concurrent POST /tts through one key: those within its limit are delivered, the rest 402, all sums hold', async () => {
    const { client, id } = await account(10_000);
    const text = 'Concurrency is not parallelism.';
    const price = (await client.post('/tts/estimate', { text, voice_id: VOICE })).body.credits as number;
    const limit = price * 7 + price - 1;
    const { body: key } = await client.put('/api/authorization', {
      name: 'http',
      limit,
      requests_per_minute: 6000,
      concurrency: 64,
    });
    // Warm the audio cache, so the 50 requests race on the ledger, not on the engine.
    expect((await client.post('/tts', { text, voice_id: VOICE })).status).toBe(200);
    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${t.url}/tts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text, voice_id: VOICE }),
        }).then(async (r) => ({ status: r.status, body: await r.text() })),
      ),
    );
    const ok = replies.filter((r) => r.status === 200).length;
    expect(ok).toBe(7);
    for (const r of replies.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(402);
      expect(JSON.parse(r.body).error.code).toBe('KEY_LIMIT_REACHED');
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(Number((await keyRow(key.id)).used)).toBe(ok * price);
    expect(await t.ctx.credits.balance(id)).toBe(await t.ctx.credits.ledgerSum(id));
    const current = (await client.get('/api/statistics/current')).body;
    // Calls are those made with an API key: the warming request above, made in the console's session, is none.
    expect(current.calls_today).toBe(ok);
  });
});
