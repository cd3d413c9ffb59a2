import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError, expectRetryAfter } from '../support/errors.js';
import { EventStore } from '../../src/stats/store.js';
import { memoryRateLimiter } from '../../src/platform/rate-limit.js';

describe.each(DIALECTS)('client events (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { STATS_EVENTS_PER_MINUTE: '5', SPEECH_WARMUP: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const rows = () => t.ctx.db.kysely.selectFrom('client_events').selectAll().orderBy('created_at').orderBy('id').execute();

  it('stores an event with its account, channel and detail', async () => {
    const c = new Client(t.url);
    const { account } = await c.anonymous();
    const res = await c.post('/stats/api/page/view?os=osx', { user_id: account.id, channel: 'def_web', detail: '/app/usage' });
    expect(res.status).toBe(204);
    const stored = (await rows()).at(-1)!;
    expect(stored).toMatchObject({
      type: 'page',
      event: 'view',
      os: 'osx',
      account_id: account.id,
      channel: 'def_web',
      detail: '/app/usage',
    });
    expect(stored.id).toMatch(/^evt_/);
    // The account is the session's, never what the body claims.
    const anon = await new Client(t.url).post('/stats/api/web/error', {
      user_id: account.id,
      detail: 'TypeError: x is undefined',
    });
    expect(anon.status).toBe(204);
    expect((await rows()).at(-1)).toMatchObject({ type: 'web', event: 'error', account_id: null, os: 'unknown' });
  });

  it('refuses oversized events and rate-limits each requester', async () => {
    const c = new Client(t.url);
    expectError(await c.post('/stats/api/web/error', { detail: 'x'.repeat(600) }), 'VALIDATION_FAILED');
    expectError(await c.post('/stats/api/web/error', { detail: 'x'.repeat(5000) }), 'FILE_TOO_LARGE');
    expectError(await c.post(`/stats/api/${'t'.repeat(65)}/view`), 'VALIDATION_FAILED');
    expectError(await c.post('/stats/api/web/error', { detail: 'a\u0000b' }), 'VALIDATION_FAILED');
  });

  it('limits the events per minute of one requester with 429 and retry-after', async () => {
    const store = new EventStore({
      db: t.ctx.db.kysely,
      limiter: memoryRateLimiter(),
      limits: { perMinute: 3, retentionDays: 30, maxRows: 1000 },
    });
    const event = { type: 'page', event: 'view', os: 'ios', accountId: null, channel: null, detail: null };
    for (let i = 0; i < 3; i++) await store.record(event, '203.0.113.9');
    await expect(store.record(event, '203.0.113.9')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    // The same /64 is the same requester; another address has its own allowance.
    await store.record(event, '2001:db8::1');
    await store.record(event, '203.0.113.10');
    // Through HTTP: every test client is 127.0.0.1, limited at 5 a minute here.
    let res;
    for (let i = 0; i < 10; i++) {
      res = await fetch(`${t.url}/stats/api/page/view`, { method: 'POST' });
      if (res.status === 429) break;
    }
    expect(res!.status).toBe(429);
    const body = (await res!.json()) as { error: { code: string } };
    expect(body.error.code).toBe('RATE_LIMITED');
    expectRetryAfter({ status: 429, headers: res!.headers, body }, 1, 60);
  });

  it('keeps the table bounded in age and in rows', async () => {
    const store = new EventStore({
      db: t.ctx.db.kysely,
      limiter: memoryRateLimiter(),
      limits: { perMinute: 1000, retentionDays: 30, maxRows: 5 },
    });
    await t.ctx.db.kysely.deleteFrom('client_events').execute();
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await t.ctx.db.kysely
      .insertInto('client_events')
      .values({
        id: 'evt_old',
        type: 'page',
        event: 'view',
        os: 'ios',
        account_id: null,
        channel: null,
        detail: null,
        created_at: old,
      })
      .execute();
    for (let i = 0; i < 8; i++) {
      await store.record(
        { type: 'page', event: 'view', os: 'ios', accountId: null, channel: null, detail: String(i) },
        `198.51.100.${i}`,
      );
    }
    expect(await store.prune()).toBe(4);
    const left = await rows();
    expect(left.map((r) => r.detail)).toEqual(['3', '4', '5', '6', '7']);
    expect(await store.prune()).toBe(0);
  });
});
