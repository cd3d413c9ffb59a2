import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { JFK_MP3, JFK_WAV, uploadSample } from '../support/design.js';

const TEXT = 'A quick preview of this voice.';

/**
 * The account's samples are listed (`GET /files?type=clone`) and played back (`GET /files/{id}/audio`),
 * and a preview's price is known before it is paid (`POST /voice/previews/estimate`): the estimate is
 * exactly what the preview then charges, with the activation fee and the plan's room for own voices.
 */
describe.each(DIALECTS)('voice samples and preview estimates (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let other: Client;
  let accountId: string;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    c = new Client(t.url);
    await c.anonymous();
    accountId = (await signIn(c, t.outbox, `samples-${dialect}@example.com`)).id;
    other = new Client(t.url);
    await other.anonymous();
  });
  afterAll(async () => {
    await t.close();
  });

  const audio = (client: Client, url: string, headers: Record<string, string> = {}) =>
    fetch(new URL(url, t.url), { headers: { ...(client.sid ? { 'x-sid': client.sid } : {}), ...headers } });

  it('lists the samples newest first with index, format, size and duration, and plays each back as uploaded', async () => {
    const wav = await fs.readFile(JFK_WAV);
    const mp3 = await fs.readFile(JFK_MP3);
    const first = (await uploadSample(c, wav, 'jfk.wav')).body;
    const second = (await uploadSample(c, mp3, 'jfk.mp3', { mime: 'audio/mpeg' })).body;
    const list = await c.get('/files?type=clone');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.items.map((s: { id: string }) => s.id)).toEqual([second.id, first.id]);
    const [b, a] = list.body.items;
    expect(a).toMatchObject({ index: first.index, format: 'wav', size: wav.length, audio_url: `/files/${first.id}/audio` });
    expect(b).toMatchObject({ index: first.index + 1, format: 'mp3', size: mp3.length });
    expect(a.duration).toBeGreaterThan(10);
    expect(first.audio_url).toBe(a.audio_url);

    const whole = await audio(c, a.audio_url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(await whole.arrayBuffer()).equals(wav)).toBe(true);
    const part = await audio(c, b.audio_url, { range: 'bytes=0-99' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await part.arrayBuffer()).equals(mp3.subarray(0, 100))).toBe(true);
    // Paging.
    const page = await c.get('/files?type=clone&page=2&page_size=1');
    expect(page.body.items.map((s: { id: string }) => s.id)).toEqual([first.id]);
  });

  it("another account's samples are not listed nor played; no session is 401; a bad query is named", async () => {
    const mine = (await c.get('/files?type=clone')).body.items[0];
    expect((await other.get('/files?type=clone')).body).toMatchObject({ items: [], total: 0 });
    expect((await audio(other, mine.audio_url)).status).toBe(404);
    expect((await audio(other, '/files/file_nothing/audio')).status).toBe(404);
    const anonymous = new Client(t.url);
    expectError(await anonymous.get('/files?type=clone'), 'UNAUTHENTICATED');
    expect((await audio(anonymous, mine.audio_url)).status).toBe(401);
    expectError(await c.get('/files?type=avatar'), 'VALIDATION_FAILED');
    expectError(await c.get('/files?type=clone&page_size=1000'), 'VALIDATION_FAILED');
  });

  describe('POST /voice/previews/estimate', () => {
    const balance = () => t.ctx.credits.balance(accountId);
    const body = {
      type: 'prompt',
      model: 'flite',
      models: ['flite', 'espeak-ng', 'gnuspeech'],
      language: 'en',
      preview_text: TEXT,
      prompt: 'a calm older man',
    };

    it('is what the previews then charge, per model and in all, and charges nothing itself', async () => {
      const before = await balance();
      const estimate = await c.post('/voice/previews/estimate', body);
      expect(estimate.status).toBe(200);
      expect(await balance()).toBe(before);
      expect(estimate.body.items.map((i: { model: string }) => i.model)).toEqual(body.models);
      expect(estimate.body.credits).toBe(estimate.body.items.reduce((s: number, i: { credits: number }) => s + i.credits, 0));
      expect(estimate.body.credits).toBeGreaterThan(0);
      const made = await c.post('/voice/previews', body);
      expect(made.status).toBe(201);
      await expect.poll(balance).toBe(before - estimate.body.credits);
      expect(made.body.items.map((i: { credits: number }) => i.credits)).toEqual(
        estimate.body.items.map((i: { credits: number }) => i.credits),
      );
    });

    it('states the activation fee from the server and the free plan room for own voices', async () => {
      const fees = t.ctx.credits.config.activation_fees;
      const prompt = await c.post('/voice/previews/estimate', { ...body, models: undefined });
      expect(prompt.body.activation_credits).toBe(fees.text_to_voice);
      expect(prompt.body.own_voices).toEqual({ limit: 1, used: 0 });
      const sample = (await c.get('/files?type=clone')).body.items[0];
      const clone = await c.post('/voice/previews/estimate', {
        type: 'clone',
        model: 'flite',
        language: 'en',
        preview_text: TEXT,
        file_id: sample.id,
      });
      expect(clone.status).toBe(200);
      expect(clone.body.activation_credits).toBe(fees.clone);
      const mix = await c.post('/voice/previews/estimate', {
        type: 'mix',
        model: 'espeak-ng',
        language: 'en',
        preview_text: TEXT,
        mix: [{ voice_id: 'voice_espeak.en-us', weight: 1 }],
      });
      expect(mix.status).toBe(200);
      expect(mix.body.activation_credits).toBe(0);
    });

    it('refuses what the preview would refuse, and another account sample is not found', async () => {
      const before = await balance();
      expectError(await c.post('/voice/previews/estimate', { ...body, preview_text: '  ' }), 'PARAMETERS_NEEDED');
      expectError(await c.post('/voice/previews/estimate', { ...body, model: 'nope', models: undefined }), 'VALIDATION_FAILED');
      expectError(await c.post('/voice/previews/estimate', { ...body, prompt: 'a voice that says fuck' }), 'SENSITIVE_WORDS');
      const mine = (await c.get('/files?type=clone')).body.items[0];
      expectError(
        await other.post('/voice/previews/estimate', { ...body, type: 'clone', file_id: mine.id, models: undefined }),
        'NOT_FOUND',
      );
      expectError(await new Client(t.url).post('/voice/previews/estimate', body), 'UNAUTHENTICATED');
      expect(await balance()).toBe(before);
    });
  });
});
