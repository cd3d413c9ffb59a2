import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { givePlan } from '../support/economy.js';
import { eventually, heldHolds, longText, rawPost } from '../support/leave.js';

/** A key's caller that leaves mid-stream pays nothing, and its key gives back what it had counted. */
describe.each(DIALECTS)('key-paid streams when the client leaves (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', HOLD_SWEEP_SECONDS: '86400' } });
    await t.ctx.voices.load();
  });
  afterAll(async () => {
    await t.close();
  });

  for (const [name, path, body] of [
    [
      'a resampled ElevenLabs stream',
      '/v1/text-to-speech/voice_espeak.en-us/stream?output_format=pcm_16000',
      { text: longText(40) },
    ],
    // Sent in lines of JSON as it is made: the client that leaves before the last of them pays nothing.
    [
      'an ElevenLabs stream with timestamps',
      '/v1/text-to-speech/voice_espeak.en-us/stream/with-timestamps?output_format=wav_48000',
      { text: longText(40) },
    ],
    ['an OpenAI stream', '/v1/audio/speech', { model: 'tts-1', input: longText(40), voice: 'voice_espeak.en-us' }],
    [
      "OpenAI's server-sent events",
      '/v1/audio/speech',
      { model: 'gpt-4o-mini-tts', input: longText(40), voice: 'voice_flite.slt', stream_format: 'sse' },
    ],
    [
      'a POST /tts stream with timestamps',
      '/tts',
      { text: longText(40), voice_id: 'voice_flite.slt', format: 'mp3', stream: true, timestamps: true },
    ],
  ] as const) {
    it(`releases ${name} left after its first bytes, and the key's count and slot`, async () => {
      const c = new Client(t.url);
      const { account } = await c.anonymous();
      await givePlan(t, account.id); // texts longer than the free plan's limit
      await t.ctx.db.kysely
        .transaction()
        .execute((trx) => t.ctx.credits.grantOnce(trx, account.id, `test:${account.id}`, 20_000, 'test'));
      const before = (await c.get('/accounts/me')).body.vip.credits as number;
      const { body: key } = await c.put('/api/authorization', { name: 'leaver', limit: 10_000, concurrency: 1 });
      const { req, response } = rawPost(t.url, path, body, { 'xi-api-key': key.key });
      const res = await response;
      expect(res.statusCode).toBe(200);
      await new Promise<void>((resolve) => res.once('data', () => resolve()));
      req.destroy();
      expect(await eventually(async () => (await heldHolds(t, account.id)).length === 0)).toBe(true);
      expect((await c.get('/accounts/me')).body.vip.credits).toBe(before);
      const row = (await c.get('/api/authorization')).body.items[0];
      expect(row.used).toBe(0);
      expect((await c.get(`/api/credits/records?api_key=${key.id}`)).body.total).toBe(0);
      // The slot came back: the key (concurrency 1) answers again.
      expect(
        await eventually(async () => (await new Client(t.url).get('/api/me', { 'xi-api-key': key.key })).status === 200),
      ).toBe(true);
      expect(await t.ctx.credits.balance(account.id)).toBe(await t.ctx.credits.ledgerSum(account.id));
    });
  }
});
