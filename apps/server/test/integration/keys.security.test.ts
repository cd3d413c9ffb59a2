import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type Reply } from '../support/client.js';
import { DIALECTS, startPeer, startTestApp, type TestApp } from '../support/app.js';
import { expectError, expectRetryAfter } from '../support/errors.js';

const VOICE = 'voice_flite.slt';
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** The ElevenLabs routes add ElevenLabs' `detail` beside the contract's error body. */
function withoutDetail(res: Reply): Reply {
  if (res.body && typeof res.body === 'object' && 'detail' in res.body) {
    expect(res.body.detail).toEqual({ status: res.body.error.code.toLowerCase(), message: res.body.error.message });
    const { detail: _detail, ...rest } = res.body;
    return { ...res, body: rest };
  }
  return res;
}

describe.each(DIALECTS)('API keys, security (%s)', (dialect) => {
  let t: TestApp;
  let owner: Client;
  let stranger: Client;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    owner = new Client(t.url);
    stranger = new Client(t.url);
    await owner.anonymous();
    await stranger.anonymous();
  });
  afterAll(async () => {
    await t.close();
  });

  it("answers another account's key with 404, exactly like a missing one, and leaves it alone", async () => {
    const { body: key } = await owner.put('/api/authorization', { name: 'mine', limit: 100 });
    const patched = await stranger.request('PATCH', '/api/authorization', { id: key.id, name: 'stolen' });
    const missing = await stranger.request('PATCH', '/api/authorization', { id: 'key_missing', name: 'stolen' });
    expectError(patched, 'NOT_FOUND');
    expect(patched.body.error.message).toBe(missing.body.error.message);
    expectError(await stranger.delete(`/api/authorization?id=${key.id}`), 'NOT_FOUND');
    expect((await stranger.get('/api/authorization')).body.items).toEqual([]);
    const still = (await owner.get('/api/authorization')).body.items.find((k: { id: string }) => k.id === key.id);
    expect(still).toMatchObject({ name: 'mine', limit: 100 });
    // Filtering records by someone else's key finds nothing, not an error that tells the key exists.
    const records = await stranger.get(`/api/credits/records?api_key=${key.id}`);
    expect(records.status).toBe(200);
    expect(records.body).toMatchObject({ items: [], total: 0 });
    // A deleted key is gone for its owner too.
    expect((await owner.delete(`/api/authorization?id=${key.id}`)).status).toBe(204);
    expectError(await owner.delete(`/api/authorization?id=${key.id}`), 'NOT_FOUND');
    expectError(await owner.request('PATCH', '/api/authorization', { id: key.id, name: 'back' }), 'NOT_FOUND');
  });

  it('a key cannot manage keys, the account or its records: only a session can', async () => {
    const { body: key } = await owner.put('/api/authorization', { name: 'worker' });
    const anon = new Client(t.url);
    for (const headers of [bearer(key.key), { 'xi-api-key': key.key }]) {
      expectError(await anon.get('/api/authorization', headers), 'UNAUTHENTICATED');
      expectError(await anon.put('/api/authorization', { name: 'more' }, headers), 'UNAUTHENTICATED');
      expectError(await anon.request('PATCH', '/api/authorization', { id: key.id, limit: null }, headers), 'UNAUTHENTICATED');
      expectError(await anon.request('DELETE', `/api/authorization?id=${key.id}`, undefined, headers), 'UNAUTHENTICATED');
      expectError(await anon.get('/accounts/me', headers), 'UNAUTHENTICATED');
      expectError(await anon.put('/accounts/me', { name: 'Mallory' }, headers), 'UNAUTHENTICATED');
      expectError(await anon.get('/api/credits/records', headers), 'UNAUTHENTICATED');
      expectError(await anon.get('/api/statistics/current', headers), 'UNAUTHENTICATED');
      expectError(await anon.post('/tts/jobs', { text: 'Hello.', voice_id: VOICE }, headers), 'UNAUTHENTICATED');
    }
    expect((await owner.get('/api/authorization')).body.items.length).toBeGreaterThan(0);
  });

  it('refuses unknown, malformed and deleted keys on every public route', async () => {
    const anon = new Client(t.url);
    const { body: key } = await owner.put('/api/authorization', { name: 'short-lived' });
    await owner.delete(`/api/authorization?id=${key.id}`);
    for (const secret of [key.key, 'pvx_unknown', `pvx_${'a'.repeat(5000)}`, `${key.key.slice(0, -1)}x`]) {
      expectError(await anon.post('/tts', { text: 'Hi.', voice_id: VOICE }, bearer(secret)), 'UNAUTHENTICATED');
      expectError(
        await anon.post('/tts/estimate', { text: 'Hi.', voice_id: VOICE }, { 'xi-api-key': secret }),
        'UNAUTHENTICATED',
      );
      expectError(await anon.get('/voice', bearer(secret)), 'UNAUTHENTICATED');
      expectError(withoutDetail(await anon.get('/v1/voices', { 'xi-api-key': secret })), 'UNAUTHENTICATED');
      expectError(await anon.get('/api/me', bearer(secret)), 'UNAUTHENTICATED');
    }
  });

  it('a key with a voice allowlist may use only those voices', async () => {
    const { body: key } = await owner.put('/api/authorization', { name: 'one voice', voices: [VOICE] });
    const anon = new Client(t.url);
    expect((await anon.post('/tts/estimate', { text: 'Hi.', voice_id: VOICE }, bearer(key.key))).status).toBe(200);
    const before = (await owner.get('/accounts/me')).body.vip.credits;
    expectError(await anon.post('/tts', { text: 'Hi.', voice_id: 'voice_flite.awb' }, bearer(key.key)), 'FORBIDDEN');
    const openai = await anon.post('/v1/audio/speech', { model: 'tts-1', input: 'Hi.', voice: 'echo' }, bearer(key.key));
    expectError(openai, 'FORBIDDEN');
    const eleven = await anon.post('/v1/text-to-speech/voice_flite.awb', { text: 'Hi.' }, { 'xi-api-key': key.key });
    expectError(withoutDetail(eleven), 'FORBIDDEN');
    expect((await owner.get('/accounts/me')).body.vip.credits).toBe(before);
    const listed = (await anon.get('/v1/voices', { 'xi-api-key': key.key })).body.voices;
    expect(listed.map((v: { voice_id: string }) => v.voice_id)).toEqual([VOICE]);
  });

  it('stops a key past its credit limit with 402 KEY_LIMIT_REACHED, before any audio', async () => {
    const anon = new Client(t.url);
    const price = (await owner.post('/tts/estimate', { text: 'Hello there.', voice_id: VOICE })).body.credits as number;
    const { body: key } = await owner.put('/api/authorization', { name: 'capped', limit: price * 2 + 1 });
    for (let i = 0; i < 2; i++)
      expect((await anon.post('/tts', { text: 'Hello there.', voice_id: VOICE }, bearer(key.key))).status).toBe(200);
    const before = (await owner.get('/accounts/me')).body.vip.credits;
    expectError(await anon.post('/tts', { text: 'Hello there.', voice_id: VOICE }, bearer(key.key)), 'KEY_LIMIT_REACHED');
    expect((await owner.get('/accounts/me')).body.vip.credits).toBe(before);
    // Raising the limit lets it spend again at once.
    await owner.request('PATCH', '/api/authorization', { id: key.id, limit: price * 3 });
    expect((await anon.post('/tts', { text: 'Hello there.', voice_id: VOICE }, bearer(key.key))).status).toBe(200);
    const row = (await owner.get('/api/authorization')).body.items.find((k: { id: string }) => k.id === key.id);
    expect(row.used).toBe(price * 3);
  });

  it('limits a key to its requests per minute with 429 RATE_LIMITED and retry-after', async () => {
    const { body: key } = await owner.put('/api/authorization', { name: 'slow', requests_per_minute: 3 });
    const anon = new Client(t.url);
    for (let i = 0; i < 3; i++) expect((await anon.get('/api/me', bearer(key.key))).status).toBe(200);
    const limited = await anon.get('/api/me', bearer(key.key));
    expectError(limited, 'RATE_LIMITED');
    expectRetryAfter(limited, 1, 60);
    // Another key of the same account has its own allowance.
    const { body: other } = await owner.put('/api/authorization', { name: 'other' });
    expect((await anon.get('/api/me', bearer(other.key))).status).toBe(200);
  });

  it('limits the work a key has in flight with 429 RATE_LIMITED, and gives slots back as responses end', async () => {
    const { body: key } = await owner.put('/api/authorization', { name: 'one at a time', concurrency: 1 });
    const text = 'A sentence long enough to take a moment to speak. '.repeat(6);
    const first = fetch(`${t.url}/tts`, {
      method: 'POST',
      headers: { ...bearer(key.key), 'content-type': 'application/json' },
      body: JSON.stringify({ text, voice_id: VOICE, format: 'wav', stream: true }),
    });
    const response = await first;
    expect(response.status).toBe(200);
    // The first response is still open (its body unread): a second call finds no free slot.
    const second = await new Client(t.url).get('/api/me', bearer(key.key));
    expectError(second, 'RATE_LIMITED');
    expectRetryAfter(second, 1, 1);
    await response.arrayBuffer();
    let after = await new Client(t.url).get('/api/me', bearer(key.key));
    for (let i = 0; i < 50 && after.status === 429; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await new Client(t.url).get('/api/me', bearer(key.key));
    }
    expect(after.status).toBe(200);
  });

  it('rejects __proto__ and constructor as key ids and names without harm', async () => {
    for (const id of ['__proto__', 'constructor', 'toString']) {
      expectError(await owner.request('PATCH', '/api/authorization', { id, name: 'x' }), 'NOT_FOUND');
      expectError(await owner.delete(`/api/authorization?id=${id}`), 'NOT_FOUND');
    }
    const named = await owner.put('/api/authorization', { name: '__proto__' });
    expect(named.status).toBe(201);
    expect(named.body).toMatchObject({ name: '__proto__', limit: null });
    const polluted = await fetch(`${t.url}/api/authorization`, {
      method: 'PUT',
      headers: { 'x-sid': owner.sid!, 'content-type': 'application/json' },
      body: '{"name":"p","__proto__":{"limit":5}}',
    });
    expect(polluted.status).toBe(400);
    expect(({} as Record<string, unknown>).limit).toBeUndefined();
    expectError(await owner.put('/api/authorization', { name: 'nul\u0000' }), 'VALIDATION_FAILED');
  });
});

describe('API keys across two server processes on one PostgreSQL database', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres', { env: { SPEECH_WORKERS: '1', SPEECH_WARMUP: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a key deleted through one process fails at once in the other', async () => {
    const peer = await startPeer(t);
    try {
      const owner = new Client(t.url);
      await owner.anonymous();
      const { body: key } = await owner.put('/api/authorization', { name: 'shared' });
      const there = new Client(peer.url);
      expect((await there.get('/api/me', bearer(key.key))).status).toBe(200);
      expect((await there.post('/tts/estimate', { text: 'Hi.', voice_id: VOICE }, { 'xi-api-key': key.key })).status).toBe(200);
      expect((await owner.delete(`/api/authorization?id=${key.id}`)).status).toBe(204);
      expectError(await there.get('/api/me', bearer(key.key)), 'UNAUTHENTICATED');
      expectError(await there.post('/tts', { text: 'Hi.', voice_id: VOICE }, bearer(key.key)), 'UNAUTHENTICATED');
      expectError(withoutDetail(await there.get('/v1/voices', { 'xi-api-key': key.key })), 'UNAUTHENTICATED');
    } finally {
      await peer.close();
    }
  });
});
