import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';
import { OPENAI_VOICES } from '../../src/voices/openai-voices.js';

const SPEECH_ENV = { SPEECH_WORKERS: '1' };

describe.each(DIALECTS)('voices and synthesis, happy path (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: SPEECH_ENV });
    c = new Client(t.url);
    await c.anonymous();
    await signIn(c, t.outbox, `speaker-${dialect}@example.com`);
  });
  afterAll(async () => {
    await t.close();
  });

  const balance = async () => (await c.get('/accounts/me')).body.vip.credits as number;

  it('describes every model with its languages, genders and limits', async () => {
    const res = await c.get('/tts/config');
    expect(res.status).toBe(200);
    const models = res.body.models as {
      model: string;
      type: string[];
      languages: string[];
      sexs: { sex: string; icon: string }[];
    }[];
    const byId = Object.fromEntries(models.map((m) => [m.model, m]));
    expect(Object.keys(byId)).toEqual(expect.arrayContaining(['espeak-ng', 'flite', 'gnuspeech']));
    expect(byId['espeak-ng']!.type).toContain('mixing');
    expect(byId['espeak-ng']!.languages.length).toBeGreaterThan(90);
    expect(byId['flite']!.languages).toContain('en');
    for (const m of models) for (const s of m.sexs) expect(s.icon).toMatch(/\.svg$/);
    // A visitor's text limit is the free plan's.
    expect(res.body.limits).toEqual({ max_text_length: 1000, mix_max: 3, preview_versions: 50, job_threshold: 1000 });
    expect(res.body.activation_fees).toEqual(t.ctx.credits.config.activation_fees);
  });

  it('lists at least 500 distinct official voices, 20 a page, with filters', async () => {
    const all = await c.get('/voice?page_size=100');
    expect(all.body.total).toBeGreaterThanOrEqual(500);
    const first = await c.get('/voice');
    expect(first.body.items).toHaveLength(20);
    expect(first.body.page_size).toBe(20);
    const ids = new Set<string>();
    for (let page = 1; (page - 1) * 100 < all.body.total; page++) {
      for (const v of (await c.get(`/voice?page_size=100&page=${page}`)).body.items) ids.add(v.id);
    }
    expect(ids.size).toBe(all.body.total);

    const female = await c.get('/voice?gender=female&page_size=100');
    expect(female.body.total).toBeGreaterThan(0);
    expect(female.body.items.every((v: { gender: string }) => v.gender === 'female')).toBe(true);
    const flite = await c.get('/voice?model=flite');
    expect(flite.body.items.map((v: { model: string }) => v.model)).toEqual(Array(flite.body.total).fill('flite'));
    const chinese = await c.get('/voice?languages=zh-CN');
    expect(chinese.body.total).toBeGreaterThan(0);
    expect(chinese.body.items.every((v: { languages: string[] }) => v.languages.includes('zh-CN'))).toBe(true);
    const named = await c.get('/voice?name=sarah');
    expect(named.body.items.some((v: { name: string }) => /sarah/i.test(v.name))).toBe(true);
    const mixable = await c.get('/voice?mix=true&page_size=100');
    expect(mixable.body.items.every((v: { mixable: boolean }) => v.mixable)).toBe(true);
    const mine = await c.get('/voice?source=mine');
    expect(mine.body).toMatchObject({ items: [], total: 0 });
  });

  it('answers one voice by id, with a default avatar and a preview that decodes', async () => {
    const res = await c.get('/voice?id=voice_flite.slt');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: 'voice_flite.slt',
      gender: 'female',
      source: 'official',
      type: 'preset',
      avatar: '/assets/avatars/female.svg',
    });
    const preview = await fetch(new URL(res.body.preview_url, t.url));
    expect(preview.headers.get('content-type')).toBe('audio/mpeg');
    expect(await decodedSeconds(Buffer.from(await preview.arrayBuffer()))).toBeGreaterThan(1);
    const avatar = await fetch(new URL(res.body.avatar, t.url));
    expect(avatar.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('estimates, then charges exactly the estimate for the audio it returns', async () => {
    const text = 'The quick brown fox jumps over the lazy dog near the river bank.';
    const estimate = await c.post('/tts/estimate', { text, voice_id: 'voice_espeak.en-us' });
    expect(estimate.status).toBe(200);
    expect(estimate.body.credits).toBe(estimate.body.characters);
    const before = await balance();
    const res = await fetch(new URL('/tts', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid! },
      body: JSON.stringify({ text, voice_id: 'voice_espeak.en-us', format: 'wav' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(Number(res.headers.get('x-credits-charged'))).toBe(estimate.body.credits);
    const seconds = await decodedSeconds(Buffer.from(await res.arrayBuffer()));
    expect(seconds).toBeGreaterThan(2);
    expect(seconds).toBeLessThan(10);
    expect(await balance()).toBe(before - estimate.body.credits);
    const rows = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .selectAll()
      .where('kind', '=', 'settle')
      .where('record_type', '=', 'tts')
      .execute();
    expect(rows.at(-1)).toMatchObject({ characters: estimate.body.characters, voice_id: 'voice_espeak.en-us', amount: 0 });
  });

  it('streams audio in chunks and settles when the stream ends', async () => {
    const text = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} of a streamed text.`).join(' ');
    const before = await balance();
    const res = await fetch(new URL('/tts', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid! },
      body: JSON.stringify({ text, voice_id: 'voice_espeak.en-us~f2', format: 'mp3', stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(res.headers.get('content-length')).toBeNull();
    const charged = Number(res.headers.get('x-credits-charged'));
    const chunks: Buffer[] = [];
    for await (const chunk of res.body!) chunks.push(Buffer.from(chunk));
    expect(chunks.length).toBeGreaterThan(1);
    expect(await decodedSeconds(Buffer.concat(chunks))).toBeGreaterThan(20);
    expect(await balance()).toBe(before - charged);
  });

  it('speaks Chinese on a Mandarin voice and serves a repeated request from the cache', async () => {
    const body = { text: '今天天气很好，我们一起去公园散步吧。', voice_id: 'voice_espeak.cmn', format: 'mp3' };
    const first = await c.post('/tts', body);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('miss');
    const second = await c.post('/tts', body);
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(Number(second.headers.get('x-audio-duration'))).toBeGreaterThan(1.5);
  });

  it('answers the OpenAI-compatible route with OpenAI voice names, recorded as api usage', async () => {
    // Without neural models, the best installed English voices are Flite's.
    for (const name of OPENAI_VOICES.keys()) {
      const id = await t.ctx.voices.openAiVoice(name);
      expect(id).toMatch(/^voice_flite\./);
      expect((await c.get(`/voice?id=${id}`)).status).toBe(200);
    }
    const res = await fetch(new URL('/v1/audio/speech', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${c.sid}` },
      body: JSON.stringify({
        model: 'tts-1',
        input: 'Hello from the compatible endpoint.',
        voice: 'alloy',
        response_format: 'opus',
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/ogg');
    expect(await decodedSeconds(Buffer.from(await res.arrayBuffer()))).toBeGreaterThan(1);
    const api = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select('record_type')
      .where('kind', '=', 'settle')
      .where('record_type', '=', 'api')
      .execute();
    expect(api.length).toBeGreaterThan(0);
  });

  it('runs a long text as a job with progress, charges its estimate and keeps it from other accounts', async () => {
    const text = Array.from({ length: 30 }, (_, i) => `Chapter line ${i + 1} tells the long story of a patient traveller.`).join(
      ' ',
    );
    expect(text.length).toBeGreaterThan(1000);
    await givePlan(t, (await c.get('/accounts/me')).body.id); // longer than the free plan's limit: a subscriber's
    const before = await balance();
    const created = await c.post('/tts/jobs', { text, voice_id: 'voice_espeak.en-us', format: 'mp3' });
    expect(created.status).toBe(202);
    expect(created.body.id).toMatch(/^job_/);
    expect(await balance()).toBe(before - created.body.credits);
    const seen: number[] = [];
    let job = created.body;
    // Until it ends, however long a loaded machine takes (the test's own timeout bounds it).
    while (job.status === 'queued' || job.status === 'running') {
      await new Promise((r) => setTimeout(r, 100));
      job = (await c.get(`/tts/jobs/${job.id}`)).body;
      seen.push(job.progress.done);
    }
    expect(job.status).toBe('succeeded');
    expect(job.progress.total).toBeGreaterThan(1);
    expect(job.progress.done).toBe(job.progress.total);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const audio = await fetch(new URL(job.audio_url, t.url), { headers: { 'x-sid': c.sid! } });
    expect(audio.headers.get('content-type')).toBe('audio/mpeg');
    expect(await decodedSeconds(Buffer.from(await audio.arrayBuffer()))).toBeGreaterThan(30);
    expect(await balance()).toBe(before - created.body.credits);
    const other = new Client(t.url);
    await other.anonymous();
    expect((await other.get(`/tts/jobs/${job.id}`)).status).toBe(404);
    expect((await other.get(`/tts/jobs/${job.id}/audio`)).status).toBe(404);
  }, 180_000);

  it('offers random texts per language', async () => {
    const zh = await c.get('/api/random/text?lang=zh-CN');
    expect(zh.body.lang).toBe('zh-CN');
    expect(zh.body.previewText).toMatch(/[\u4e00-\u9fff]/);
    const fallback = await c.get('/api/random/text?lang=xx');
    expect(fallback.body.lang).toBe('en');
  });
});
