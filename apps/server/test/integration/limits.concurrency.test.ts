import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_LIMITS } from '@polyvox/contracts';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { buyer, givePlan } from '../support/economy.js';
import type { Reply } from '../support/client.js';

const PARALLEL = 200;
const PENDING_LIMIT = 20;

function tally(replies: Reply[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of replies) {
    const key = r.status < 300 ? String(r.status) : `${r.status} ${r.body?.error?.code}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/** Each "at most N per account" rule holds when 200 requests for one account arrive at once. */
describe.each(DIALECTS)('count limits under 200 parallel requests (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { ORDER_PENDING_LIMIT: String(PENDING_LIMIT), SPEECH_WORKERS: '1' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it(`makes at most ORDER_PENDING_LIMIT (${PENDING_LIMIT}) pending orders; the rest 429 RATE_LIMITED`, async () => {
    const { client, account } = await buyer(t, 'en', `orders-${dialect}`);
    const replies = await Promise.all(
      Array.from({ length: PARALLEL }, () => client.post('/accounts/me/orders', { product: 'credits_100k' })),
    );
    expect(tally(replies)).toEqual({ '201': PENDING_LIMIT, '429 RATE_LIMITED': PARALLEL - PENDING_LIMIT });
    for (const r of replies.filter((x) => x.status === 429)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    const rows = await t.ctx.db.kysely
      .selectFrom('orders')
      .select('id')
      .where('account_id', '=', account.id)
      .where('status', '=', 'pending_payment')
      .execute();
    expect(rows).toHaveLength(PENDING_LIMIT);

    // The service itself, without HTTP spreading the requests out: 200 creations at once for another account.
    const other = await buyer(t, 'en', `orders-direct-${dialect}`);
    const direct = await Promise.allSettled(
      Array.from({ length: PARALLEL }, () => t.ctx.orders.create(other.account.id, 'credits_100k', 'en')),
    );
    expect(direct.filter((r) => r.status === 'fulfilled')).toHaveLength(PENDING_LIMIT);
    for (const r of direct) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'RATE_LIMITED' });
  }, 180_000);

  it(`makes at most ${API_KEY_LIMITS.maxKeys} API keys; the rest 400 VALIDATION_FAILED`, async () => {
    const { client, account } = await buyer(t, 'en', `keys-${dialect}`);
    await givePlan(t, account.id);
    const replies = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) => client.put('/api/authorization', { name: `key ${i}` })),
    );
    expect(tally(replies)).toEqual({
      '201': API_KEY_LIMITS.maxKeys,
      '400 VALIDATION_FAILED': PARALLEL - API_KEY_LIMITS.maxKeys,
    });
    const rows = await t.ctx.db.kysely.selectFrom('api_keys').select('id').where('account_id', '=', account.id).execute();
    expect(rows).toHaveLength(API_KEY_LIMITS.maxKeys);
    // A deleted key frees its place: one more can be made, and no more than that.
    expect((await client.delete(`/api/authorization?id=${rows[0]!.id}`)).status).toBe(204);
    const again = await Promise.all(Array.from({ length: 20 }, () => client.put('/api/authorization', { name: 'again' })));
    expect(tally(again)).toEqual({ '201': 1, '400 VALIDATION_FAILED': 19 });
    // The service itself, 200 at once for another account.
    const other = await buyer(t, 'en', `keys-direct-${dialect}`);
    await givePlan(t, other.account.id);
    const direct = await Promise.allSettled(
      Array.from({ length: PARALLEL }, (_, i) => t.ctx.apiKeys.create(other.account.id, { name: `direct ${i}` })),
    );
    expect(direct.filter((r) => r.status === 'fulfilled')).toHaveLength(API_KEY_LIMITS.maxKeys);
  }, 180_000);

  it("saves at most the plan's own voices; the rest 403 FORBIDDEN", async () => {
    const { client, account } = await buyer(t, 'en', `voices-${dialect}`);
    await givePlan(t, account.id); // monthly
    const limit = (await t.ctx.plans.of(account.id)).own_voices;
    expect(limit).toBeLessThan(PARALLEL);
    const replies = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        client.put('/voice', {
          type: 'mix',
          name: `Mix ${i}`,
          model: 'espeak-ng',
          mix: [
            { voice_id: 'voice_espeak.en-us', weight: 0.5 },
            { voice_id: 'voice_espeak.en-us~f2', weight: 0.5 },
          ],
        }),
      ),
    );
    expect(tally(replies)).toEqual({ '201': limit, '403 FORBIDDEN': PARALLEL - limit });
    const rows = await t.ctx.db.kysely.selectFrom('own_voices').select('id').where('account_id', '=', account.id).execute();
    expect(rows).toHaveLength(limit);
  }, 180_000);
});
