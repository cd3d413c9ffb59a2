import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { UsageService, type RecordsFilter } from '../../src/usage/service.js';

const VOICE = 'voice_flite.slt';
const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() - offset * DAY_MS).toISOString().slice(0, 10);

describe.each(DIALECTS)('usage records and statistics, happy path (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', HOLD_SWEEP_SECONDS: '86400' } });
  });
  afterAll(async () => {
    await t.close();
  });

  async function fresh(): Promise<{ c: Client; id: string }> {
    const c = new Client(t.url);
    const { account } = await c.anonymous();
    return { c, id: account.id };
  }

  it('shows what the user was charged and what came in, never the internal holds', async () => {
    const { c, id } = await fresh();
    const start = await c.get('/api/credits/records');
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ total: 1, page: 1, page_size: 20 });
    expect(start.body.items[0]).toMatchObject({ type: 'grant', amount: 1000, balance_after: 1000, api_key_id: null });

    const tts = await c.post('/tts', { text: 'Hello records.', voice_id: VOICE });
    const charged = Number(tts.headers.get('x-credits-charged'));
    // The charge is settled once the reply is written out: wait for its record.
    for (let i = 0; i < 100 && (await c.get('/api/credits/records')).body.total < 2; i++)
      await new Promise((r) => setTimeout(r, 20));
    // A hold still open is in the balance but not a record; a released one leaves nothing behind.
    const open = await t.ctx.credits.hold(id, 50, 'preview');
    const released = await t.ctx.credits.hold(id, 70, 'clone');
    await t.ctx.credits.release(released.id);
    await t.ctx.db.kysely.transaction().execute(async (trx) => {
      await t.ctx.credits.purchase(trx, id, 500, 'ord_test1');
      await t.ctx.credits.refund(trx, id, 200, 'ord_test1');
    });

    const res = await c.get('/api/credits/records');
    expect(res.body.total).toBe(4);
    expect(
      res.body.items.map((r: { type: string; amount: number; order_id: string | null }) => [r.type, r.amount, r.order_id]),
    ).toEqual([
      ['refund', -200, 'ord_test1'],
      ['purchase', 500, 'ord_test1'],
      ['tts', -charged, null],
      ['grant', 1000, null],
    ]);
    const ttsRecord = res.body.items[2];
    expect(ttsRecord).toMatchObject({ voice_id: VOICE, characters: expect.any(Number), balance_after: 1000 - charged });
    expect(ttsRecord.id).toMatch(/^rec_/);
    // A record's balance is the one the records add up to: the 50 still held is not spent yet.
    expect(res.body.items[0].balance_after).toBe(1000 - charged + 500 - 200);
    await t.ctx.credits.settle(open.id, 30);
    const after = await c.get('/api/credits/records?type=preview');
    expect(after.body.items.map((r: { type: string; amount: number }) => [r.type, r.amount])).toEqual([['preview', -30]]);
    expect((await c.get('/accounts/me')).body.vip.credits).toBe(1000 - charged - 30 + 300);
  });

  it('filters by type, time and key, and pages newest first', async () => {
    const { c, id } = await fresh();
    const { body: key } = await c.put('/api/authorization', { name: 'k' });
    for (let i = 0; i < 25; i++) {
      const hold = await t.ctx.credits.hold(
        id,
        30,
        i % 5 === 0 ? 'api' : 'tts',
        undefined,
        i % 5 === 0 ? { apiKeyId: key.id } : {},
      );
      await t.ctx.credits.settle(hold.id, i + 1);
    }
    const first = await c.get('/api/credits/records');
    expect(first.body).toMatchObject({ total: 26, page: 1, page_size: 20 });
    expect(first.body.items).toHaveLength(20);
    expect(first.body.items[0].amount).toBe(-25);
    const second = await c.get('/api/credits/records?page=2&page_size=20');
    expect(second.body.items).toHaveLength(6);
    expect(second.body.items.at(-1).type).toBe('grant');
    const ids = new Set([...first.body.items, ...second.body.items].map((r: { id: string }) => r.id));
    expect(ids.size).toBe(26);

    const api = await c.get('/api/credits/records?type=api');
    expect(api.body.total).toBe(5);
    expect(api.body.items.every((r: { api_key_id: string }) => r.api_key_id === key.id)).toBe(true);
    expect((await c.get(`/api/credits/records?api_key=${key.id}`)).body.total).toBe(5);
    expect((await c.get('/api/credits/records?type=refund')).body).toMatchObject({ items: [], total: 0 });

    const today = day(0);
    expect((await c.get(`/api/credits/records?from=${today}&to=${today}`)).body.total).toBe(26);
    expect((await c.get(`/api/credits/records?to=${day(1)}`)).body.total).toBe(0);
    expect((await c.get(`/api/credits/records?from=${day(-1)}`)).body.total).toBe(0);
    const middle = first.body.items[10].created_at as string;
    const since = await c.get(`/api/credits/records?from=${encodeURIComponent(middle)}&page_size=100`);
    expect(since.body.items.every((r: { created_at: string }) => r.created_at >= middle)).toBe(true);
    expect(since.body.total).toBeGreaterThanOrEqual(11);
    expect(since.body.total).toBe(since.body.items.length);
    const until = await c.get(`/api/credits/records?to=${encodeURIComponent(middle)}&page_size=100`);
    expect(until.body.items.every((r: { created_at: string }) => r.created_at <= middle)).toBe(true);
    expect(until.body.total).toBe(until.body.items.length);
    // Totals over whole days and part-days agree with the records themselves, for every filter.
    const yesterday = `${day(1)}T12:00:00Z`;
    const tomorrow = `${day(-1)}T12:00:00Z`;
    for (const q of [
      `from=${yesterday}`,
      `to=${tomorrow}`,
      `from=${yesterday}&to=${tomorrow}&type=api`,
      `from=${day(3)}&api_key=${key.id}`,
    ]) {
      const res = await c.get(`/api/credits/records?${q}&page_size=100`);
      expect(res.body.total, q).toBe(res.body.items.length);
    }
    expect((await c.get('/api/credits/records?type=&api_key=&from=')).body.total).toBe(26);
  });

  it('counts credits per UTC day and the calls made with API keys, missing days as zeros, and the current figures', async () => {
    const { c, id } = await fresh();
    // The console's own use is charged but is no API call.
    for (const amount of [12, 30]) {
      const hold = await t.ctx.credits.hold(id, amount, 'tts');
      await t.ctx.credits.settle(hold.id, amount);
    }
    const { body: key } = await c.put('/api/authorization', { name: 'stats' });
    const viaKey = await t.ctx.credits.hold(id, 8, 'api', undefined, { apiKeyId: key.id });
    await t.ctx.credits.settle(viaKey.id, 8);
    const released = await t.ctx.credits.hold(id, 99, 'tts');
    await t.ctx.credits.release(released.id);
    // Days before today, as the ledger's daily sums would hold them.
    await t.ctx.db.kysely
      .insertInto('record_days')
      .values([
        { account_id: id, day: day(2), type: 'tts', api_key_id: '', records: 3, calls: 0, credits: 60 },
        { account_id: id, day: day(2), type: 'api', api_key_id: 'key_x', records: 1, calls: 1, credits: 40 },
        { account_id: id, day: day(40), type: 'preview', api_key_id: '', records: 1, calls: 0, credits: 7 },
        { account_id: id, day: day(40), type: 'api', api_key_id: 'key_x', records: 1, calls: 1, credits: 3 },
        { account_id: id, day: day(40), type: 'purchase', api_key_id: '', records: 1, calls: 0, credits: 0 },
      ])
      .execute();

    const week = await c.get('/api/statistics/day_credits?days=7');
    expect(week.status).toBe(200);
    expect(week.body.items).toEqual([
      { day: day(6), credits: 0, calls: 0 },
      { day: day(5), credits: 0, calls: 0 },
      { day: day(4), credits: 0, calls: 0 },
      { day: day(3), credits: 0, calls: 0 },
      { day: day(2), credits: 100, calls: 1 },
      { day: day(1), credits: 0, calls: 0 },
      { day: day(0), credits: 50, calls: 1 },
    ]);
    const month = await c.get('/api/statistics/day_credits');
    expect(month.body.items).toHaveLength(30);
    expect(month.body.items.reduce((s: number, d: { credits: number }) => s + d.credits, 0)).toBe(150);
    expect((await c.get('/api/statistics/day_credits?days=41')).body.items[0]).toEqual({ day: day(40), credits: 10, calls: 1 });

    const current = await c.get('/api/statistics/current');
    expect(current.body).toEqual({ credits: 1000 - 50, calls_today: 1, credits_today: 50, calls_total: 3 });
  });

  it('reads deep pages from the day they fall in, exactly as plain paging would', async () => {
    const { id } = await fresh();
    const db = t.ctx.db.kysely;
    await db.deleteFrom('record_days').where('account_id', '=', id).execute();
    await db.deleteFrom('credit_ledger').where('account_id', '=', id).execute();
    // 90 records over six days, several in the same millisecond, of two types and two keys.
    const rows = Array.from({ length: 90 }, (_, i) => {
      const at = new Date(
        Date.now() - Math.floor(i / 15) * 86_400_000 - (i % 15) * 3_600_000 + (i % 4 === 0 ? 0 : i),
      ).toISOString();
      return {
        id: `rec_deep${String(i).padStart(4, '0')}`,
        account_id: id,
        kind: 'settle',
        amount: 0,
        balance_after: 1000,
        hold_id: null,
        record_type: i % 3 === 0 ? 'api' : 'tts',
        characters: 10,
        voice_id: 'voice_flite.slt',
        api_key_id: i % 3 === 0 ? (i % 2 ? 'key_a' : 'key_b') : null,
        order_id: null,
        note: null,
        charge: i + 1,
        created_at: at,
      };
    });
    await db.insertInto('credit_ledger').values(rows).execute();
    const counts = new Map<
      string,
      { account_id: string; day: string; type: string; api_key_id: string; records: number; calls: number; credits: number }
    >();
    for (const r of rows) {
      const key = `${r.created_at.slice(0, 10)}|${r.record_type}|${r.api_key_id ?? ''}`;
      const c = counts.get(key) ?? {
        account_id: id,
        day: r.created_at.slice(0, 10),
        type: r.record_type,
        api_key_id: r.api_key_id ?? '',
        records: 0,
        calls: 0,
        credits: 0,
      };
      c.records += 1;
      c.calls += 1;
      c.credits += r.charge;
      counts.set(key, c);
    }
    await db
      .insertInto('record_days')
      .values([...counts.values()])
      .execute();

    const seeking = new UsageService({ db, seekAfter: 0 });
    const plain = new UsageService({ db, seekAfter: Number.MAX_SAFE_INTEGER });
    const filters: Partial<RecordsFilter>[] = [
      {},
      { type: 'api' },
      { api_key: 'key_a' },
      { from: day(3), to: day(1) },
      { from: `${day(4)}T10:00:00Z`, to: `${day(0)}T03:30:00Z` },
      { to: `${day(2)}T13:00:00Z`, type: 'tts' },
    ];
    for (const f of filters) {
      const all = await plain.records(id, { page: 1, page_size: 100, ...f });
      expect(all.total, JSON.stringify(f)).toBe(all.items.length);
      for (let page = 1; (page - 1) * 7 < all.total + 7; page++) {
        const got = await seeking.records(id, { page, page_size: 7, ...f });
        expect(got.total).toBe(all.total);
        expect(
          got.items.map((r) => r.id),
          `${JSON.stringify(f)} page ${page}`,
        ).toEqual(all.items.slice((page - 1) * 7, page * 7).map((r) => r.id));
      }
    }
  });
});
