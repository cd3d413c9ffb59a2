import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';
import { eventually } from '../support/leave.js';
import { measurePcm, semitonesBetween } from '@polyvox/speech';
import { decodeWav } from '@polyvox/speech/formats';
import { JFK_MP3, JFK_WAV, uploadSample } from '../support/design.js';
import { officialVoiceId } from '../../src/voices/official.js';

const SPEECH_ENV = { SPEECH_WORKERS: '1' };
const TEXT = 'A quick preview of this voice.';

describe.each(DIALECTS)('voice design, happy path (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let accountId: string;
  let n = 0;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: SPEECH_ENV });
    c = new Client(t.url);
    await c.anonymous();
    accountId = (await signIn(c, t.outbox, `designer-${dialect}@example.com`)).id;
    await givePlan(t, accountId); // saves more voices than the free plan's one
  });
  afterAll(async () => {
    await t.close();
  });

  const balance = () => t.ctx.credits.balance(accountId);
  const ledgerOk = async () => expect(await t.ctx.credits.ledgerSum(accountId)).toBe(await balance());

  it('keeps an uploaded sample with its index, format, size, duration, rate, measures and consent', async () => {
    const wav = await fs.readFile(JFK_WAV);
    const first = await uploadSample(c, wav, 'jfk.wav');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      id: expect.stringMatching(/^file_/),
      index: 1,
      format: 'wav',
      size: wav.length,
      sample_rate: 16000,
    });
    expect(first.body.duration).toBeCloseTo(11, 0);
    expect(first.body.measures.f0_median_hz).toBeGreaterThan(80);
    expect(typeof first.body.noisy).toBe('boolean');
    // Named .wav, but mp3 bytes: judged from the bytes.
    const second = await uploadSample(c, await fs.readFile(JFK_MP3), 'jfk.wav');
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ index: 2, format: 'mp3' });
    const row = await t.ctx.db.kysely
      .selectFrom('voice_samples')
      .selectAll()
      .where('id', '=', first.body.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ account_id: accountId, consent_ip: expect.stringMatching(/127\.0\.0\.1/) });
    expect(Date.parse(row.consent_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(JSON.parse(row.measures).measures.ltas.length).toBeGreaterThan(0);
    expect(await t.ctx.storage.get(row.storage_key)).toEqual(wav);
  });

  it('previews a clone as a charged, numbered version whose audio only its owner hears', async () => {
    const sample = (await uploadSample(c, await fs.readFile(JFK_WAV), 'jfk.wav')).body;
    const before = await balance();
    const res = await c.post('/voice/previews', {
      type: 'clone',
      model: 'flite',
      language: 'en',
      preview_text: TEXT,
      file_id: sample.id,
    });
    expect(res.status).toBe(201);
    const price = (await c.post('/tts/estimate', { text: TEXT, voice_id: 'voice_flite.slt' })).body.credits;
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^prv_/), model: 'flite', credits: price });
    expect(price).toBeGreaterThan(0);
    const { items, ...first } = res.body;
    expect(items).toEqual([first]);
    expect(first.activation_credits).toBe(t.ctx.credits.config.activation_fees.clone);
    expect(await eventually(async () => (await balance()) === before - res.body.credits)).toBe(true);
    const audio = await fetch(new URL(res.body.audio_url, t.url), { headers: { 'x-sid': c.sid! } });
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/mpeg');
    const seconds = await decodedSeconds(Buffer.from(await audio.arrayBuffer()));
    expect(seconds).toBeCloseTo(res.body.duration, 0);
    // The hold already lowers the balance; the settle is written once the answer is sent.
    const kinds = async () =>
      (
        await t.ctx.db.kysely
          .selectFrom('credit_ledger')
          .select(['kind', 'record_type'])
          .where('account_id', '=', accountId)
          .where('record_type', '=', 'preview')
          .execute()
      ).map((r) => r.kind);
    expect(await eventually(async () => (await kinds()).includes('settle'))).toBe(true);
    expect(await kinds()).toEqual(expect.arrayContaining(['hold', 'settle']));
    await ledgerOk();
  });

  it('previews one prompt on up to three models side by side, each its own version and charge', async () => {
    const before = await balance();
    const res = await c.post('/voice/previews', {
      type: 'prompt',
      model: 'flite',
      models: ['flite', 'espeak-ng', 'gnuspeech'],
      language: 'en',
      preview_text: TEXT,
      prompt: 'a deep calm older man, slow',
    });
    expect(res.status).toBe(201);
    expect(res.body.items.map((i: { model: string }) => i.model)).toEqual(['flite', 'espeak-ng', 'gnuspeech']);
    const versions = res.body.items.map((i: { version: number }) => i.version);
    expect(versions).toEqual([versions[0], versions[0] + 1, versions[0] + 2]);
    expect(res.body.id).toBe(res.body.items[0].id);
    const total = res.body.items.reduce((a: number, i: { credits: number }) => a + i.credits, 0);
    expect(await eventually(async () => (await balance()) === before - total)).toBe(true);
  });

  it('lists previews newest first with what made each', async () => {
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
    const list = await c.get('/voice/previews?page_size=100');
    expect(list.status).toBe(200);
    const items = list.body.items as { version: number; type: string; file_id: string | null; sample_index: number | null }[];
    expect(items.map((i) => i.version)).toEqual([...items.map((i) => i.version)].sort((a, b) => b - a));
    expect(items[0]).toMatchObject({
      id: mix.body.id,
      type: 'mix',
      model: 'espeak-ng',
      language: 'en',
      preview_text: TEXT,
      prompt: null,
      activation_credits: 0,
      voice_id: null,
    });
    expect((items[0] as unknown as { mix: unknown }).mix).toHaveLength(2);
    const prompt = items.find((i) => i.type === 'prompt') as unknown as { prompt: string };
    expect(prompt.prompt).toBe('a deep calm older man, slow');
    const clone = items.find((i) => i.type === 'clone')!;
    expect(clone.file_id).toMatch(/^file_/);
    expect(clone.sample_index).toBeGreaterThan(0);
    expect(list.body.total).toBe(items.length);
    const page = await c.get('/voice/previews?page=2&page_size=2');
    expect(page.body.items.map((i: { id: string }) => i.id)).toEqual(
      items.slice(2, 4).map((i) => (i as unknown as { id: string }).id),
    );
  });

  async function activate(type: 'clone' | 'prompt') {
    const sample = type === 'clone' ? (await uploadSample(c, await fs.readFile(JFK_WAV), 'jfk.wav')).body : null;
    const preview = await c.post('/voice/previews', {
      type,
      model: 'flite',
      language: 'en',
      preview_text: TEXT,
      ...(sample ? { file_id: sample.id } : { prompt: 'a bright young woman, fast' }),
    });
    expect(preview.status).toBe(201);
    const before = await eventually(async () => true).then(balance);
    const res = await c.put('/voice', { type, name: `My ${type} ${++n}`, preview_id: preview.body.id });
    expect(res.status).toBe(201);
    const fee = t.ctx.credits.config.activation_fees[type === 'clone' ? 'clone' : 'text_to_voice'];
    expect(await balance()).toBe(before - fee);
    // The history says which voice each version became, and what activating it cost.
    const listed = (await c.get('/voice/previews?page_size=100')).body.items.find(
      (i: { id: string }) => i.id === preview.body.id,
    );
    expect(listed).toMatchObject({ voice_id: res.body.id, activation_credits: fee });
    return { voice: res.body, sample, preview: preview.body };
  }

  it('activates a clone from its preview, charging the fee with it, and the voice speaks everywhere', async () => {
    const { voice } = await activate('clone');
    expect(voice).toMatchObject({
      id: expect.stringMatching(/^voice_/),
      type: 'clone',
      source: 'mine',
      model: 'flite',
      status: 'active',
    });
    const fees = await t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select(['amount', 'voice_id'])
      .where('account_id', '=', accountId)
      .where('record_type', '=', 'clone')
      .execute();
    expect(fees.at(-1)).toEqual({ amount: -t.ctx.credits.config.activation_fees.clone, voice_id: voice.id });

    const one = await c.get(`/voice?id=${voice.id}`);
    expect(one.body).toEqual(voice);
    const mine = await c.get('/voice?source=mine');
    expect(mine.body.items.map((v: { id: string }) => v.id)).toContain(voice.id);
    const official = await c.get(`/voice?name=${encodeURIComponent(voice.name)}`);
    expect(official.body.total).toBe(0);
    const preview = await fetch(new URL(voice.preview_url, t.url), { headers: { 'x-sid': c.sid! } });
    expect(preview.status).toBe(200);

    const plain = await c.post('/tts', { text: 'Hello from my own voice.', voice_id: voice.id, format: 'wav' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('audio/wav');
    const stream = await fetch(new URL('/tts', t.url), {
      method: 'POST',
      headers: { 'x-sid': c.sid!, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Streamed from my own voice.', voice_id: voice.id, stream: true }),
    });
    expect(stream.status).toBe(200);
    expect(await decodedSeconds(Buffer.from(await stream.arrayBuffer()))).toBeGreaterThan(0.5);
    const openai = await fetch(new URL('/v1/audio/speech', t.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${c.sid!}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', input: 'OpenAI shaped, my own voice.', voice: voice.id }),
    });
    expect(openai.status).toBe(200);
    expect(await decodedSeconds(Buffer.from(await openai.arrayBuffer()))).toBeGreaterThan(0.5);
    const job = await c.post('/tts/jobs', { text: 'A job in my own voice.', voice_id: voice.id });
    expect(job.status).toBe(202);
    expect(await eventually(async () => (await c.get(`/tts/jobs/${job.body.id}`)).body.status === 'succeeded')).toBe(true);
    await ledgerOk();
  });

  it("a saved clone speaks at its sample's pitch, not its base voice's", async () => {
    const { voice, sample } = await activate('clone');
    // A few sentences: enough voiced speech for a stable median.
    const text =
      'And so, my fellow Americans, ask not what your country can do for you, ask what you can do for your country. ' +
      'Printing, in the only sense with which we are at present concerned, differs from most if not from all the arts and crafts.';
    const f0 = async (voice_id: string) => {
      const res = await fetch(new URL('/tts', t.url), {
        method: 'POST',
        headers: { 'x-sid': c.sid!, 'content-type': 'application/json' },
        body: JSON.stringify({ text, voice_id, format: 'wav' }),
      });
      expect(res.status).toBe(200);
      const pcm = decodeWav(Buffer.from(await res.arrayBuffer()));
      // The measure the sample was judged by, taken on the output.
      return measurePcm(pcm.samples, pcm.sampleRate).f0MedianHz;
    };
    const target = sample!.measures.f0_median_hz as number;
    const base = (await t.ctx.voices.get(voice.id, accountId)).info.id;
    const own = await f0(voice.id);
    const plain = await f0(officialVoiceId(base));
    expect(Math.abs(semitonesBetween(own, target))).toBeLessThan(1);
    expect(Math.abs(semitonesBetween(own, target))).toBeLessThan(Math.abs(semitonesBetween(plain, target)));
  });

  it('lists own voices with the library filters, apart from the official ones', async () => {
    const all = (await c.get('/voice?source=mine&page_size=100')).body;
    expect(all.total).toBeGreaterThan(0);
    expect(all.items.every((v: { source: string }) => v.source === 'mine')).toBe(true);
    const flite = (await c.get('/voice?source=mine&model=flite&page_size=100')).body;
    expect(flite.items.every((v: { model: string }) => v.model === 'flite')).toBe(true);
    const named = (await c.get(`/voice?source=mine&name=${encodeURIComponent(all.items[0].name.slice(3))}`)).body;
    expect(named.items.map((v: { id: string }) => v.id)).toContain(all.items[0].id);
    const page = (await c.get('/voice?source=mine&page=1&page_size=1')).body;
    expect(page).toMatchObject({ total: all.total, page: 1, page_size: 1 });
    expect(page.items).toHaveLength(1);
    expect((await c.get('/voice?source=mine&mix=true')).body.total).toBe(0);
    const official = (await c.get('/voice?page_size=100')).body;
    expect(official.items.some((v: { source: string }) => v.source === 'mine')).toBe(false);
  });

  it('saves a mix of up to three voices and uses it', async () => {
    const res = await c.put('/voice', {
      type: 'mix',
      name: 'Blend',
      model: 'espeak-ng',
      mix: [
        { voice_id: 'voice_espeak.en-us', weight: 2 },
        { voice_id: 'voice_espeak.en-us~f2', weight: 1 },
        { voice_id: 'voice_espeak.en-us~m3', weight: 1 },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'mix', model: 'espeak-ng', source: 'mine', name: 'Blend' });
    expect(res.body.mix).toHaveLength(3);
    const spoken = await c.post('/tts', { text: 'Three voices in one.', voice_id: res.body.id });
    expect(spoken.status).toBe(200);
    const preview = await fetch(new URL(res.body.preview_url, t.url), { headers: { 'x-sid': c.sid! } });
    expect(preview.status).toBe(200);
    expect(await decodedSeconds(Buffer.from(await preview.arrayBuffer()))).toBeGreaterThan(0.5);
  });

  it('renames a voice; a mix may change its voices', async () => {
    const { voice } = await activate('prompt');
    const renamed = await c.request('PATCH', '/voice', { id: voice.id, name: '  Narrator  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: voice.id, name: 'Narrator', type: 'prompt' });
    // The same prompt again is no change.
    const same = await c.request('PATCH', '/voice', { id: voice.id, prompt: 'a bright young woman, fast' });
    expect(same.status).toBe(200);
    const mix = await c.put('/voice', {
      type: 'mix',
      name: 'Two',
      model: 'espeak-ng',
      mix: [{ voice_id: 'voice_espeak.en-us', weight: 1 }],
    });
    const changed = await c.request('PATCH', '/voice', {
      id: mix.body.id,
      mix: [
        { voice_id: 'voice_espeak.en-us', weight: 1 },
        { voice_id: 'voice_espeak.en-us~f2', weight: 1 },
      ],
    });
    expect(changed.status).toBe(200);
    expect(changed.body.mix).toHaveLength(2);
  });

  it('deletes a voice with its audio, previews and sample (kept for the operator); its id then answers 404 everywhere', async () => {
    const { voice, sample, preview } = await activate('clone');
    const row = await t.ctx.db.kysely.selectFrom('own_voices').selectAll().where('id', '=', voice.id).executeTakeFirstOrThrow();
    const sampleRow = await t.ctx.db.kysely
      .selectFrom('voice_samples')
      .selectAll()
      .where('id', '=', sample!.id)
      .executeTakeFirstOrThrow();
    const res = await c.delete(`/voice?id=${voice.id}`);
    expect(res.status).toBe(204);
    expect(await t.ctx.storage.get(row.audio_key!)).toBeNull();
    // The sample is no longer the owner's; its file and consent stay for the operator (voices.retention.test.ts).
    expect(await t.ctx.db.kysely.selectFrom('voice_samples').select('id').where('id', '=', sample!.id).execute()).toEqual([]);
    expect(await t.ctx.storage.exists(sampleRow.storage_key)).toBe(true);
    expect(
      await t.ctx.db.kysely
        .selectFrom('retained_voices')
        .select(['sample_key', 'consent_at'])
        .where('id', '=', voice.id)
        .execute(),
    ).toEqual([{ sample_key: sampleRow.storage_key, consent_at: sampleRow.consent_at }]);
    expect(await t.ctx.db.kysely.selectFrom('voice_previews').select('id').where('file_id', '=', sample!.id).execute()).toEqual(
      [],
    );
    expect((await c.get(`/voice?id=${voice.id}`)).status).toBe(404);
    expect((await c.get(`/voice/previews/${preview.id}/audio`)).status).toBe(404);
    expect((await c.post('/tts', { text: 'Gone?', voice_id: voice.id })).status).toBe(404);
    expect((await c.post('/tts', { text: 'Gone?', voice_id: voice.id, stream: true })).status).toBe(404);
    expect((await c.post('/tts/jobs', { text: 'Gone?', voice_id: voice.id })).status).toBe(404);
    expect((await c.post('/tts/estimate', { text: 'Gone?', voice_id: voice.id })).status).toBe(404);
    expect((await c.post('/v1/audio/speech', { model: 'tts-1', input: 'Gone?', voice: voice.id })).status).toBe(404);
    expect((await c.get(`/voice/preview/${voice.id}.mp3`)).status).toBe(404);
    expect((await c.delete(`/voice?id=${voice.id}`)).status).toBe(404);
    // Its numbers are not given again: the next sample and preview come after them.
    const next = await uploadSample(c, await fs.readFile(JFK_WAV), 'jfk.wav');
    expect(next.body.index).toBe(sample!.index + 1);
    const again = await c.post('/voice/previews', {
      type: 'clone',
      model: 'flite',
      language: 'en',
      preview_text: TEXT,
      file_id: next.body.id,
    });
    expect(again.body.version).toBe(preview.version + 1);
    expect(
      (
        await c.post('/voice/previews', {
          type: 'clone',
          model: 'flite',
          language: 'en',
          preview_text: TEXT,
          file_id: sample!.id,
        })
      ).status,
    ).toBe(404);
  });

  it('offers a prompt and preview text in English and Chinese that the prompt reader understands', async () => {
    for (const lang of ['en', 'zh-CN', 'zh-TW']) {
      const res = await c.get(`/api/random/text?lang=${lang}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        lang,
        name: expect.any(String),
        prompt: expect.any(String),
        previewText: expect.any(String),
      });
    }
  });

  it('documents every design route in the OpenAPI document, the side-by-side `models` field included', async () => {
    const doc = (await c.get('/openapi.json')).body;
    for (const [route, method] of [
      ['/files_upload', 'post'],
      ['/voice/previews', 'post'],
      ['/voice/previews', 'get'],
      ['/voice/previews/{id}/audio', 'get'],
      ['/voice', 'put'],
      ['/voice', 'patch'],
      ['/voice', 'delete'],
    ] as const) {
      expect(doc.paths[route]?.[method], `${method} ${route}`).toBeDefined();
    }
    const body = doc.paths['/voice/previews'].post.requestBody.content['application/json'].schema;
    expect(body.properties.models).toMatchObject({
      type: 'array',
      maxItems: 3,
      description: expect.stringMatching(/side by side/),
    });
  });

  it('names the mixable models and the limits in /tts/config', async () => {
    const res = await c.get('/tts/config');
    const espeak = res.body.models.find((m: { model: string }) => m.model === 'espeak-ng');
    expect(espeak.type).toContain('mixing');
    expect(res.body.limits).toMatchObject({ mix_max: 3, preview_versions: 50 });
    expect(res.body.activation_fees).toEqual(t.ctx.credits.config.activation_fees);
  });
});
