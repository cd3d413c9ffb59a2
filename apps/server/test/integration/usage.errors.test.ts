import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';

describe.each(DIALECTS)('usage records and statistics, errors and security (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WARMUP: 'false' } });
    c = new Client(t.url);
    await c.anonymous();
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses bad filters with VALIDATION_FAILED naming the field', async () => {
    const bad = [
      'from=yesterday',
      'from=2026-02-31',
      'to=2026-13-01',
      'to=2026-01-01T25:00:00Z',
      'from=2026-01-01T10:00:00',
      `from=${'9'.repeat(100)}`,
      'type=hold',
      'type=release',
      'page=0',
      'page=-1',
      'page_size=101',
      'page_size=abc',
      `api_key=${'k'.repeat(100)}`,
    ];
    for (const query of bad) {
      const res = await c.get(`/api/credits/records?${query}`);
      const error = expectError(res, 'VALIDATION_FAILED');
      expect(error.message).toContain(query.split('=')[0]);
    }
    for (const query of ['days=0', 'days=367', 'days=x']) {
      expectError(await c.get(`/api/statistics/day_credits?${query}`), 'VALIDATION_FAILED');
    }
  });

  it('names the rule in the request language', async () => {
    const zh = new Client(t.url, 'zh-CN');
    zh.sid = c.sid;
    const res = await zh.get('/api/credits/records?from=bad');
    expect(expectError(res, 'VALIDATION_FAILED').message).toMatch(/[\u4e00-\u9fff]/);
  });

  it('needs a session', async () => {
    const anon = new Client(t.url);
    for (const url of ['/api/credits/records', '/api/statistics/day_credits', '/api/statistics/current']) {
      expectError(await anon.get(url), 'UNAUTHENTICATED');
    }
  });

  it("shows only the account's own records; hostile filter values match nothing", async () => {
    const other = new Client(t.url);
    const { account } = await other.anonymous();
    await t.ctx.db.kysely.transaction().execute((trx) => t.ctx.credits.purchase(trx, account.id, 77, 'ord_other'));
    const mine = await c.get('/api/credits/records?page_size=100');
    expect(mine.body.items.some((r: { order_id: string | null }) => r.order_id === 'ord_other')).toBe(false);
    for (const key of ['__proto__', 'constructor', "' OR 1=1 --"]) {
      const res = await c.get(`/api/credits/records?api_key=${encodeURIComponent(key)}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(0);
    }
    expectError(await c.get('/api/credits/records?api_key=a%00b'), 'VALIDATION_FAILED');
  });
});
