import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { buyer, complete, givePlan, newOrder, sandboxToken } from '../support/economy.js';
import { JFK_WAV, uploadSample } from '../support/design.js';
import { eventually, heldHolds } from '../support/leave.js';

interface Rec {
  id: string;
  type: string;
  amount: number;
  balance_after: number;
  api_key_id: string | null;
  created_at: string;
}
const TEXT = 'A short line to hear this voice.';
/** Types that bring credits in or give them back: not "used". */
const NOT_USED = new Set(['grant', 'purchase', 'refund']);

/**
 * Every ledger entry a user's balance moved by is a record of its type, counted in every total: after each kind of
 * charge and grant, the records add up to the balance, each record's balance is the one before it plus its amount,
 * and the statistics count the same credits and API calls the records show.
 */
describe.each(DIALECTS)('every balance change is a record, in every total (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let accountId: string;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', HOLD_SWEEP_SECONDS: '86400' } });
    const b = await buyer(t, 'en', `ledger-${dialect}`);
    c = b.client;
    accountId = b.account.id;
    await givePlan(t, accountId); // own voices and API keys
  });
  afterAll(async () => {
    await t.close();
  });

  async function allRecords(query = ''): Promise<{ items: Rec[]; total: number }> {
    const items: Rec[] = [];
    let total = 0;
    for (let page = 1; ; page++) {
      const res = await c.get(`/api/credits/records?page_size=100&page=${page}${query}`);
      expect(res.status).toBe(200);
      items.push(...(res.body.items as Rec[]));
      total = res.body.total;
      if (res.body.items.length < 100) break;
    }
    return { items, total };
  }

  /** The records against the balance and the statistics, once no work is in flight. */
  async function check(): Promise<Rec[]> {
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0, 1200)).toBe(true);
    const balance = await t.ctx.credits.balance(accountId);
    expect(await t.ctx.credits.ledgerSum(accountId)).toBe(balance);
    const { items, total } = await allRecords();
    expect(total).toBe(items.length);
    expect(items.reduce((s, r) => s + r.amount, 0)).toBe(balance);
    expect(items[0]!.balance_after).toBe(balance);
    // Newest first: each record's balance is the older one's plus its own amount, and later in time.
    for (let i = 0; i + 1 < items.length; i++) {
      expect(items[i]!.balance_after - items[i]!.amount, `record ${i} of ${items.length}`).toBe(items[i + 1]!.balance_after);
      expect(items[i]!.created_at > items[i + 1]!.created_at).toBe(true);
    }
    expect(items.at(-1)!.balance_after).toBe(items.at(-1)!.amount);
    // Each type's filter finds exactly its records.
    for (const type of new Set(items.map((r) => r.type))) {
      const of = await allRecords(`&type=${type}`);
      expect(of.items.map((r) => r.id)).toEqual(items.filter((r) => r.type === type).map((r) => r.id));
      expect(of.total).toBe(of.items.length);
    }
    const today = new Date().toISOString().slice(0, 10);
    const used = items.filter((r) => !NOT_USED.has(r.type)).reduce((s, r) => s - r.amount, 0);
    const usedToday = items
      .filter((r) => !NOT_USED.has(r.type) && r.created_at.startsWith(today))
      .reduce((s, r) => s - r.amount, 0);
    const calls = items.filter((r) => r.api_key_id !== null && r.amount < 0 && !NOT_USED.has(r.type)).length;
    const current = await c.get('/api/statistics/current');
    expect(current.body).toEqual({ credits: balance, credits_today: usedToday, calls_today: calls, calls_total: calls });
    const days = (await c.get('/api/statistics/day_credits?days=2')).body.items as { credits: number; calls: number }[];
    expect(days.reduce((s, d) => s + d.credits, 0)).toBe(used);
    expect(days.reduce((s, d) => s + d.calls, 0)).toBe(calls);
    return items;
  }

  it('adds up after synthesis, previews, activations, mixes, jobs, API-key use, purchase, refund and grants', async () => {
    await check(); // the free plan's grant

    const order = await newOrder(c, 'credits_100k');
    const token = await sandboxToken(c, order.id);
    expect((await complete(t, order.id, { token, outcome: 'success' })).status).toBe(303);
    expect((await check())[0]).toMatchObject({ type: 'purchase' });

    expect((await c.post('/tts', { text: 'Hello ledger.', voice_id: 'voice_flite.slt' })).status).toBe(200);
    expect((await check())[0]).toMatchObject({ type: 'tts' });

    // Three previews made at once: three records, each with the balance right after it.
    const before = await t.ctx.credits.balance(accountId);
    const previews = await c.post('/voice/previews', {
      type: 'prompt',
      model: 'flite',
      models: ['flite', 'espeak-ng', 'gnuspeech'],
      language: 'en',
      preview_text: TEXT,
      prompt: 'a deep calm older man, slow',
    });
    expect(previews.status).toBe(201);
    const three = (await check()).slice(0, 3).reverse();
    const costs = previews.body.items.map((i: { credits: number }) => i.credits) as number[];
    expect(three.map((r) => r.type)).toEqual(['preview', 'preview', 'preview']);
    expect(three.map((r) => -r.amount).sort()).toEqual([...costs].sort());
    let running = before;
    expect(three.map((r) => (running += r.amount))).toEqual(three.map((r) => r.balance_after));
    expect(new Set(three.map((r) => r.balance_after)).size).toBe(3);

    const fees = t.ctx.credits.config.activation_fees;
    const designed = await c.put('/voice', { type: 'prompt', name: 'Designed', preview_id: previews.body.items[0].id });
    expect(designed.status).toBe(201);
    expect((await check())[0]).toMatchObject({ type: 'text_to_voice', amount: -fees.text_to_voice });
    const found = await c.get('/api/credits/records?type=text_to_voice');
    expect(found.body.total).toBe(1);
    expect(found.body.items[0]).toMatchObject({ amount: -fees.text_to_voice, voice_id: designed.body.id });

    const sample = await uploadSample(c, await fs.readFile(JFK_WAV), 'jfk.wav');
    expect(sample.status).toBe(201);
    const clonePreview = await c.post('/voice/previews', {
      type: 'clone',
      model: 'espeak-ng',
      language: 'en',
      preview_text: TEXT,
      file_id: sample.body.id,
    });
    expect(clonePreview.status).toBe(201);
    await check();
    const clone = await c.put('/voice', { type: 'clone', name: 'Cloned', preview_id: clonePreview.body.id });
    expect(clone.status).toBe(201);
    expect((await check())[0]).toMatchObject({ type: 'clone', amount: -fees.clone, voice_id: clone.body.id });

    const mix = await c.post('/voice/previews', {
      type: 'mix',
      model: 'espeak-ng',
      language: 'en',
      preview_text: TEXT,
      mix: [
        { voice_id: 'voice_espeak.en-us', weight: 0.5 },
        { voice_id: 'voice_espeak.en-us~f2', weight: 0.5 },
      ],
    });
    expect(mix.status).toBe(201);
    expect((await check())[0]).toMatchObject({ type: 'preview' });

    const job = await c.post('/tts/jobs', { text: 'A job. It has two sentences.', voice_id: 'voice_espeak.en-us' });
    expect(job.status).toBe(202);
    expect(await eventually(async () => (await c.get(`/tts/jobs/${job.body.id}`)).body.status === 'succeeded', 1200)).toBe(true);
    await check();

    const key = await c.put('/api/authorization', { name: 'ledger' });
    expect(key.status).toBe(201);
    const api = new Client(t.url);
    const viaKey = await api.request(
      'POST',
      '/tts',
      { text: 'Through a key.', voice_id: 'voice_flite.slt' },
      {
        'xi-api-key': key.body.key,
      },
    );
    expect(viaKey.status).toBe(200);
    expect(await eventually(async () => (await allRecords('&type=api')).total === 1)).toBe(true);
    expect((await check())[0]).toMatchObject({ type: 'api', api_key_id: key.body.id });

    await t.ctx.db.kysely
      .transaction()
      .execute((trx) => t.ctx.credits.grantOnce(trx, accountId, `test:ledger:${dialect}`, 777, 'operator grant'));
    expect((await check())[0]).toMatchObject({ type: 'grant', amount: 777 });

    await t.ctx.orders.refund(order.id);
    expect((await check())[0]).toMatchObject({ type: 'refund' });
  }, 300_000);

  it('gives each of 60 charges settled at once its own balance, in the order the ledger applied them (both ledger paths)', async () => {
    const other = await buyer(t, 'en', `ledger-race-${dialect}`);
    const id = other.account.id as string;
    await givePlan(t, id);
    const { body: key } = await other.client.put('/api/authorization', { name: 'race' });
    const start = await t.ctx.credits.balance(id);
    // On PostgreSQL a hold without a key and every settlement are one statement each; a keyed hold goes through applyEntry.
    const holds = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        t.ctx.credits.hold(id, 82, i % 3 === 0 ? 'api' : 'preview', undefined, i % 3 === 0 ? { apiKeyId: key.id } : {}),
      ),
    );
    await Promise.all(
      holds.map((h, i) =>
        i % 4 === 0
          ? Promise.all([t.ctx.credits.settle(h.id, 82 - i), t.ctx.credits.settle(h.id, 82 - i)])
          : i % 7 === 0
            ? t.ctx.credits.release(h.id)
            : t.ctx.credits.settle(h.id, 82 - (i % 5)),
      ),
    );
    const res = await other.client.get('/api/credits/records?page_size=100');
    const items = res.body.items as Rec[];
    const charges = items.filter((r) => r.type === 'api' || r.type === 'preview');
    expect(charges).toHaveLength(60 - holds.filter((_, i) => i % 4 !== 0 && i % 7 === 0).length);
    const balance = await t.ctx.credits.balance(id);
    expect(items[0]!.balance_after).toBe(balance);
    for (let i = 0; i + 1 < items.length; i++) {
      expect(items[i]!.balance_after - items[i]!.amount).toBe(items[i + 1]!.balance_after);
      expect(items[i]!.created_at > items[i + 1]!.created_at).toBe(true);
    }
    expect(new Set(charges.map((r) => r.balance_after)).size).toBe(charges.length);
    expect(balance).toBe(start + charges.reduce((s, r) => s + r.amount, 0));
  }, 120_000);
});
