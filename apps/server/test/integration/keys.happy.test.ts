import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';

const VOICE = 'voice_flite.slt';

describe.each(DIALECTS)('API keys, happy path (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    c = new Client(t.url);
    await c.anonymous();
  });
  afterAll(async () => {
    await t.close();
  });

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  it('creates a key whose secret is shown once; the list shows its prefix only', async () => {
    const created = await c.put('/api/authorization', { name: 'server', limit: 500 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'server', limit: 500, used: 0, last_used_at: null });
    expect(created.body.id).toMatch(/^key_/);
    expect(created.body.key).toMatch(/^pvx_[A-Za-z0-9_-]{43}$/);
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
    expect(created.headers.get('cache-control')).toBe('no-store');

    const list = await c.get('/api/authorization');
    expect(list.status).toBe(200);
    const [item] = list.body.items;
    expect(item).toEqual({
      id: created.body.id,
      name: 'server',
      limit: 500,
      used: 0,
      prefix: created.body.prefix,
      requests_per_minute: 60,
      concurrency: 4,
      voices: null,
      created_at: expect.any(String),
      last_used_at: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    // Stored as a hash: the secret is nowhere in the database.
    const row = await t.ctx.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(created.body.key.slice(12));
  });

  it('authenticates the public routes as Bearer and as xi-api-key; every charge is an api record with its key', async () => {
    const { body: key } = await c.put('/api/authorization', { name: 'speech' });
    const before = (await c.get('/api/statistics/current')).body;
    const anon = new Client(t.url);

    const me = await anon.get('/api/me', bearer(key.key));
    expect(me.status).toBe(200);
    expect(me.body.id).toBe((await c.get('/accounts/me')).body.id);
    expect((await anon.get('/api/me', { 'xi-api-key': key.key })).body.id).toBe(me.body.id);

    const voices = await anon.get('/voice?page_size=5', bearer(key.key));
    expect(voices.status).toBe(200);
    expect(voices.body.items).toHaveLength(5);

    const estimate = await anon.post('/tts/estimate', { text: 'Hello there.', voice_id: VOICE }, { 'xi-api-key': key.key });
    expect(estimate.status).toBe(200);
    const price1 = estimate.body.credits as number;
    expect(price1).toBeGreaterThan(5);
    const price2 = (await anon.post('/tts/estimate', { text: 'Good morning.', voice_id: VOICE }, bearer(key.key))).body
      .credits as number;

    const tts = await anon.post('/tts', { text: 'Hello there.', voice_id: VOICE, format: 'wav' }, bearer(key.key));
    expect(tts.status).toBe(200);
    expect(tts.headers.get('content-type')).toBe('audio/wav');
    expect(tts.headers.get('x-credits-charged')).toBe(String(price1));

    const res = await fetch(`${t.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { ...bearer(key.key), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', input: 'Good morning.', voice: 'alloy', response_format: 'mp3' }),
    });
    expect(res.status).toBe(200);
    const mp3 = Buffer.from(await res.arrayBuffer());
    expect(await decodedSeconds(mp3, 'mp3')).toBeGreaterThan(0.3);

    const after = (await c.get('/api/authorization')).body.items.find((k: { id: string }) => k.id === key.id);
    expect(after.used).toBe(price1 + price2);
    expect(after.last_used_at).not.toBeNull();

    const records = await c.get(`/api/credits/records?api_key=${key.id}`);
    expect(records.status).toBe(200);
    expect(records.body.total).toBe(2);
    expect(
      records.body.items.map((r: { type: string; amount: number; api_key_id: string; voice_id: string }) => [
        r.type,
        r.amount,
        r.api_key_id,
        r.voice_id,
      ]),
    ).toEqual([
      ['api', -price2, key.id, VOICE],
      ['api', -price1, key.id, VOICE],
    ]);
    const current = (await c.get('/api/statistics/current')).body;
    expect(current.calls_total).toBe(before.calls_total + 2);
    expect(current.credits_today).toBe(before.credits_today + price1 + price2);
    expect(current.credits).toBe(before.credits - price1 - price2);
  });

  it('renames, changes the limit, and deletes a key, which then stops at once', async () => {
    const { body: key } = await c.put('/api/authorization', { name: 'old', limit: null });
    const renamed = await c.request('PATCH', '/api/authorization', { id: key.id, name: 'new', limit: 40 });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: key.id, name: 'new', limit: 40 });
    const unlimited = await c.request('PATCH', '/api/authorization', { id: key.id, limit: null, voices: [VOICE] });
    expect(unlimited.body).toMatchObject({ limit: null, voices: [VOICE] });

    const anon = new Client(t.url);
    expect((await anon.get('/api/me', bearer(key.key))).status).toBe(200);
    expect((await c.delete(`/api/authorization?id=${key.id}`)).status).toBe(204);
    expect((await anon.get('/api/me', bearer(key.key))).status).toBe(401);
    expect((await anon.post('/tts', { text: 'Hi.', voice_id: VOICE }, bearer(key.key))).status).toBe(401);
    expect((await c.get('/api/authorization')).body.items.some((k: { id: string }) => k.id === key.id)).toBe(false);
  });
});
