import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_LIMITS, errorMessage } from '@polyvox/contracts';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';

describe.each(DIALECTS)('API keys, errors (%s)', (dialect) => {
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

  it('needs a session to list, create, change or delete keys', async () => {
    const anon = new Client(t.url);
    expectError(await anon.get('/api/authorization'), 'UNAUTHENTICATED');
    expectError(await anon.put('/api/authorization', { name: 'x' }), 'UNAUTHENTICATED');
    expectError(await anon.request('PATCH', '/api/authorization', { id: 'key_x', name: 'y' }), 'UNAUTHENTICATED');
    expectError(await anon.delete('/api/authorization?id=key_x'), 'UNAUTHENTICATED');
  });

  it('names the missing field and the broken rule', async () => {
    expectError(await c.put('/api/authorization', {}), 'PARAMETERS_NEEDED');
    expectError(await c.put('/api/authorization'), 'PARAMETERS_NEEDED');
    expectError(await c.request('PATCH', '/api/authorization', { name: 'y' }), 'PARAMETERS_NEEDED');
    expectError(await c.delete('/api/authorization'), 'PARAMETERS_NEEDED');
    const cases: unknown[] = [
      { name: '' },
      { name: '   ' },
      { name: 'n'.repeat(API_KEY_LIMITS.nameMaxLength + 1) },
      { name: 7 },
      { name: 'k', limit: -1 },
      { name: 'k', limit: 1.5 },
      { name: 'k', limit: '100' },
      { name: 'k', limit: API_KEY_LIMITS.maxCreditLimit + 1 },
      { name: 'k', requests_per_minute: 0 },
      { name: 'k', requests_per_minute: API_KEY_LIMITS.maxRequestsPerMinute + 1 },
      { name: 'k', concurrency: 0 },
      { name: 'k', concurrency: API_KEY_LIMITS.maxConcurrency + 1 },
      { name: 'k', voices: Array.from({ length: API_KEY_LIMITS.maxVoices + 1 }, (_, i) => `voice_${i}`) },
      { name: 'k', voices: [''] },
      { name: 'k', voices: 'voice_flite.slt' },
    ];
    for (const body of cases) {
      const error = expectError(await c.put('/api/authorization', body), 'VALIDATION_FAILED');
      expect(error.message.length).toBeGreaterThan(5);
    }
    expectError(await c.request('PATCH', '/api/authorization', { id: 'key_x', limit: -5 }), 'VALIDATION_FAILED');
    expect((await c.get('/api/authorization')).body.items).toEqual([]);
  });

  it('answers in the request language', async () => {
    const zh = new Client(t.url, 'zh-TW');
    zh.sid = c.sid;
    const res = await zh.request('PATCH', '/api/authorization', { id: 'key_missing', name: 'x' });
    expect(expectError(res, 'NOT_FOUND').message).toMatch(/[\u4e00-\u9fff]/);
  });

  it('answers a deleted, unknown or mistyped key as an invalid key in the request language, not "sign in first"', async () => {
    const { body: key } = await c.put('/api/authorization', { name: 'to delete' });
    expect((await c.delete(`/api/authorization?id=${key.id}`)).status).toBe(204);
    const messages = {
      en: errorMessage('UNAUTHENTICATED', 'en', { reason: 'invalid_key' }),
      'zh-CN': errorMessage('UNAUTHENTICATED', 'zh-CN', { reason: 'invalid_key' }),
      'zh-TW': errorMessage('UNAUTHENTICATED', 'zh-TW', { reason: 'invalid_key' }),
    };
    expect(messages.en).toMatch(/API key/);
    expect(messages['zh-CN']).toMatch(/API 密钥无效/);
    for (const [lang, message] of Object.entries(messages)) {
      expect(message).not.toBe(errorMessage('UNAUTHENTICATED', lang as 'en'));
      const anon = new Client(t.url, lang);
      for (const secret of [key.key, 'pvx_unknown', `${key.key.slice(0, -1)}x`]) {
        const speech = await anon.post(
          '/v1/audio/speech',
          { model: 'tts-1', input: 'Hi.', voice: 'alloy' },
          { authorization: `Bearer ${secret}` },
        );
        expect(expectError(speech, 'UNAUTHENTICATED').message).toBe(message);
        const tts = await anon.post('/tts', { text: 'Hi.', voice_id: 'voice_flite.slt' }, { 'xi-api-key': secret });
        expect(expectError(tts, 'UNAUTHENTICATED').message).toBe(message);
      }
      // Without a key, a route that needs one still asks to sign in.
      expect(expectError(await anon.get('/api/authorization'), 'UNAUTHENTICATED').message).toBe(
        errorMessage('UNAUTHENTICATED', lang as 'en'),
      );
    }
  });

  it('refuses a text the voice does not speak in the language of the request, as the keys page’s sample asks', async () => {
    const { body: key } = await c.put('/api/authorization', { name: 'sample' });
    const speech = await new Client(t.url).post(
      '/v1/audio/speech',
      { model: 'tts-1', input: '你好，欢迎使用。', voice: 'alloy' },
      { authorization: `Bearer ${key.key}`, 'accept-language': 'zh-CN' },
    );
    expect(expectError(speech, 'LANGUAGE_UNSUPPORTED').message).toBe(errorMessage('LANGUAGE_UNSUPPORTED', 'zh-CN'));
  });

  it(`holds at most ${API_KEY_LIMITS.maxKeys} keys per account`, async () => {
    const other = new Client(t.url);
    await other.anonymous();
    for (let i = 0; i < API_KEY_LIMITS.maxKeys; i++)
      expect((await other.put('/api/authorization', { name: `k${i}` })).status).toBe(201);
    expectError(await other.put('/api/authorization', { name: 'one more' }), 'VALIDATION_FAILED');
    const first = (await other.get('/api/authorization')).body.items[0];
    expect((await other.delete(`/api/authorization?id=${first.id}`)).status).toBe(204);
    expect((await other.put('/api/authorization', { name: 'replacement' })).status).toBe(201);
  });

  it('answers the ElevenLabs routes with bad bodies as validation errors, before any charge', async () => {
    const { body: key } = await c.put('/api/authorization', { name: 'el' });
    const before = (await c.get('/accounts/me')).body.vip.credits;
    const headers = { 'xi-api-key': key.key };
    for (const [url, body] of [
      ['/v1/text-to-speech/voice_flite.slt', {}],
      ['/v1/text-to-speech/voice_flite.slt', { text: '' }],
      ['/v1/text-to-speech/voice_flite.slt', { text: 'Hi.', output_format: 'mp3_1_1' }],
      ['/v1/text-to-speech/voice_flite.slt?output_format=pcm_1', { text: 'Hi.' }],
      ['/v1/text-to-speech/voice_flite.slt/stream', { text: 'Hi.', voice_settings: { speed: 9 } }],
    ] as const) {
      const res = await c.post(url, body, headers);
      expect(res.status).toBe(400);
      expect(res.body.detail.status).toBe(res.body.error.code.toLowerCase());
    }
    const missing = await c.post('/v1/text-to-speech/voice_nobody', { text: 'Hi.' }, headers);
    expect(missing.status).toBe(404);
    expect((await c.get('/accounts/me')).body.vip.credits).toBe(before);
  });
});
