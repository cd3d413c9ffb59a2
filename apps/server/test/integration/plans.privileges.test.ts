import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { givePlan, productsWith } from '../support/economy.js';

const VOICE = 'voice_espeak.en-us';
const words = (n: number) => 'a'.repeat(n);
/** The contract's error, also from the ElevenLabs routes (whose bodies carry ElevenLabs' `detail` beside it). */
const errorOf = (res: { status: number; body: { error?: { code: string; message: string } } }) => ({
  status: res.status,
  code: res.body.error?.code,
  message: res.body.error?.message,
});
const mix = (name: string) => ({
  type: 'mix',
  name,
  model: 'espeak-ng',
  mix: [
    { voice_id: 'voice_espeak.en-us', weight: 1 },
    { voice_id: 'voice_espeak.en-us~f2', weight: 1 },
  ],
});

describe.each(DIALECTS)('plan privileges (%s)', (dialect) => {
  let t: TestApp;
  let dir: string;
  let n = 0;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-plans-'));
    // The shipped file gives the free plan the API; this one takes it away, to test the refusal.
    const file = await productsWith(dir, (plan, p) => {
      if (plan === 'free') p.api_access = false;
    });
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', PRODUCTS_CONFIG: file } });
  });
  afterAll(async () => {
    await t.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function account(lang = 'en') {
    const c = new Client(t.url, lang);
    await c.anonymous();
    const { id } = await signIn(c, t.outbox, `plans-${dialect}-${++n}@example.com`);
    return { c, id: id as string };
  }

  describe('max_text_length', () => {
    it("reports and enforces the caller's plan's limit on every speech route, in the caller's language", async () => {
      const { c, id } = await account('zh-TW');
      expect((await c.get('/tts/config')).body.limits.max_text_length).toBe(1000);
      expect((await new Client(t.url).get('/tts/config')).body.limits.max_text_length).toBe(1000);
      const before = await t.ctx.credits.balance(id);
      const tooLong = words(1001);
      const refusals = [
        await c.post('/tts', { text: tooLong, voice_id: VOICE }),
        await c.post('/tts/estimate', { text: tooLong, voice_id: VOICE }),
        await c.post('/tts/jobs', { text: tooLong, voice_id: VOICE }),
        await c.post('/v1/audio/speech', { model: 'tts-1', input: tooLong, voice: 'alloy' }),
        await c.post(`/v1/text-to-speech/${VOICE}`, { text: tooLong }),
        await c.post(`/v1/text-to-speech/${VOICE}/stream`, { text: tooLong }),
      ];
      for (const res of refusals) {
        expect(errorOf(res)).toEqual({ status: 422, code: 'TEXT_TOO_LONG', message: '文字超過 1,000 個字元的限制' });
      }
      expect((await c.get('/tts/jobs')).body.total).toBe(0);
      expect(await t.ctx.credits.balance(id)).toBe(before);
      const fits = await c.post('/tts/estimate', { text: words(1000), voice_id: VOICE });
      expect(fits.status).toBe(200);
      expect(fits.body.max_text_length).toBe(1000);
    });

    it("follows the plan while it lasts: a subscriber's longer limit, then the free plan's once it expires", async () => {
      const { c, id } = await account();
      await givePlan(t, id, 'monthly');
      expect((await c.get('/tts/config')).body.limits.max_text_length).toBe(5000);
      const estimate = await c.post('/tts/estimate', { text: words(4000), voice_id: VOICE });
      expect(estimate.status).toBe(200);
      expect(estimate.body).toMatchObject({ characters: 4000, max_text_length: 5000 });
      const over = await c.post('/tts/estimate', { text: words(5001), voice_id: VOICE });
      expect(expectError(over, 'TEXT_TOO_LONG', 422).message).toBe('Text exceeds the limit of 5,000 characters');
      await givePlan(t, id, 'monthly', -1);
      expect((await c.get('/tts/config')).body.limits.max_text_length).toBe(1000);
      expectError(await c.post('/tts/estimate', { text: words(4000), voice_id: VOICE }), 'TEXT_TOO_LONG', 422);
    });
  });

  describe('own_voices', () => {
    it("refuses a voice beyond the plan's count with a message naming the limit; deleting one frees the slot", async () => {
      const { c } = await account('zh-CN');
      const first = await c.put('/voice', mix('One'));
      expect(first.status).toBe(201);
      const second = await c.put('/voice', mix('Two'));
      expect(expectError(second, 'FORBIDDEN', 403).message).toBe(
        '你的套餐最多可保存 1 个自己的声音；请删除一个或升级套餐后再保存',
      );
      expect((await c.get('/voice?source=mine')).body.items).toHaveLength(1);
      expect((await c.delete(`/voice?id=${first.body.id}`)).status).toBeLessThan(300);
      expect((await c.put('/voice', mix('Three'))).status).toBe(201);
    });

    it('lets two concurrent saves take one last slot only', async () => {
      const { c, id } = await account();
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => c.put('/voice', mix(`Racer ${i}`))));
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of results.filter((r) => r.status !== 201)) {
        expect(expectError(r, 'FORBIDDEN', 403).message).toBe(
          'Your plan allows 1 own voices; delete one or upgrade your plan to save another',
        );
      }
      const rows = await t.ctx.db.kysely.selectFrom('own_voices').select('id').where('account_id', '=', id).execute();
      expect(rows).toHaveLength(1);
      // A subscriber's count (monthly: 10) raced the same way ends at exactly ten.
      await givePlan(t, id, 'monthly');
      const more = await Promise.all(Array.from({ length: 14 }, (_, i) => c.put('/voice', mix(`More ${i}`))));
      expect(more.filter((r) => r.status === 201)).toHaveLength(9);
      const after = await t.ctx.db.kysely.selectFrom('own_voices').select('id').where('account_id', '=', id).execute();
      expect(after).toHaveLength(10);
    });

    it('refuses an activation beyond the limit before its fee is charged', async () => {
      const { c, id } = await account();
      expect((await c.put('/voice', mix('Kept'))).status).toBe(201);
      const preview = await c.post('/voice/previews', {
        type: 'prompt',
        model: 'flite',
        language: 'en',
        preview_text: 'A calm voice for a short test.',
        prompt: 'a calm voice',
      });
      expect(preview.status).toBe(201);
      const before = await t.ctx.credits.balance(id);
      expectError(await c.put('/voice', { type: 'prompt', name: 'Calm', preview_id: preview.body.id }), 'FORBIDDEN', 403);
      expect(await t.ctx.credits.balance(id)).toBe(before);
      const fees = await t.ctx.db.kysely
        .selectFrom('credit_ledger')
        .select('id')
        .where('account_id', '=', id)
        .where('record_type', '=', 'text_to_voice')
        .execute();
      expect(fees).toHaveLength(0);
      // With a plan the same preview activates, and its fee is taken once.
      await givePlan(t, id, 'monthly');
      expect((await c.put('/voice', { type: 'prompt', name: 'Calm', preview_id: preview.body.id })).status).toBe(201);
      expect(await t.ctx.credits.balance(id)).toBe(before - t.ctx.credits.config.activation_fees.text_to_voice);
    });
  });

  describe('api_access', () => {
    it('refuses creating a key on a plan without the API, in the caller’s language', async () => {
      const { c } = await account('zh-TW');
      const res = await c.put('/api/authorization', { name: 'server' });
      expect(expectError(res, 'FORBIDDEN', 403).message).toBe('你的方案不包含 API 存取權限');
      expect((await c.get('/api/authorization')).body.items).toHaveLength(0);
    });

    it('stops an existing key at once when its plan no longer includes the API, and starts it again with a plan', async () => {
      const { c, id } = await account();
      await givePlan(t, id, 'monthly');
      const { body: key } = await c.put('/api/authorization', { name: 'server' });
      const caller = new Client(t.url);
      expect((await caller.get('/api/me', { 'xi-api-key': key.key })).status).toBe(200);
      await givePlan(t, id, 'monthly', -1);
      const before = await t.ctx.credits.balance(id);
      for (const res of [
        await caller.get('/api/me', { 'xi-api-key': key.key }),
        await caller.get('/api/me', { authorization: `Bearer ${key.key}` }),
        await caller.post('/tts', { text: 'Hello there.', voice_id: VOICE }, { 'xi-api-key': key.key }),
        await caller.post('/tts/estimate', { text: 'Hello there.', voice_id: VOICE }, { 'xi-api-key': key.key }),
        await caller.post(
          '/v1/audio/speech',
          { model: 'tts-1', input: 'Hello.', voice: 'alloy' },
          { authorization: `Bearer ${key.key}` },
        ),
        await caller.post(`/v1/text-to-speech/${VOICE}`, { text: 'Hello.' }, { 'xi-api-key': key.key }),
        await caller.get('/v1/voices', { 'xi-api-key': key.key }),
      ]) {
        expect(errorOf(res)).toEqual({ status: 403, code: 'FORBIDDEN', message: 'Your plan does not include API access' });
      }
      expect(await t.ctx.credits.balance(id)).toBe(before);
      // The owner's own session still speaks: only keys need the API.
      expect((await c.post('/tts/estimate', { text: 'Hello there.', voice_id: VOICE })).status).toBe(200);
      await givePlan(t, id, 'annual');
      expect((await caller.get('/api/me', { 'xi-api-key': key.key })).status).toBe(200);
    });
  });
});

describe('the shipped product file', () => {
  it('gives the free plan the API, a shorter text limit and one own voice', async () => {
    const file = JSON.parse(await fs.readFile(path.resolve(import.meta.dirname, '../../config/products.json'), 'utf8')) as {
      plans: { plan: string; privileges: { max_text_length: number; own_voices: number; api_access: boolean } }[];
    };
    const free = file.plans.find((p) => p.plan === 'free')!;
    expect(free.privileges).toEqual({ max_text_length: 1000, own_voices: 1, api_access: true });
    for (const p of file.plans.filter((p) => p.plan !== 'free')) {
      expect(p.privileges.api_access).toBe(true);
      expect(p.privileges.max_text_length).toBeGreaterThanOrEqual(free.privileges.max_text_length);
      expect(p.privileges.own_voices).toBeGreaterThan(free.privileges.own_voices);
    }
  });
});
