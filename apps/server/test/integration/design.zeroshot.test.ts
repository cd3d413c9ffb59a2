/**
 * Cloning on a zero-shot model in MODELS_DIR (a tiny ZipVoice the test writes: its output takes the
 * pitch of the reference it is given, so the pitch shows that the sample reached the model): the
 * preview sends the sample and its transcript, ZipVoice without a transcript is refused before any
 * charge, and the activated voice speaks from its sample in every synthesis route.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePcm, referenceFromSample, semitonesBetween } from '@polyvox/speech';
import { decodeWav } from '@polyvox/speech/formats';
import { writeTinyZipVoice } from '../../../../packages/speech/test/support/tiny-models.js';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';
import { eventually } from '../support/leave.js';
import { FIXTURES, JFK_WAV, uploadSample } from '../support/design.js';

const MODEL = 'tiny-zipvoice';
const LJ_WAV = path.join(FIXTURES, 'LJ001-0001.wav');
/** The tiny model knows two words. */
const TEXT = 'hello world. hello world.';
const TRANSCRIPT = 'And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.';

async function modelsDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-zeroshot-'));
  writeTinyZipVoice(path.join(dir, MODEL));
  const files = Object.fromEntries(['encoder', 'decoder', 'vocoder'].map((f) => [f, `${MODEL}/${f}.onnx`]));
  await fs.writeFile(
    path.join(dir, 'manifest.json'),
    JSON.stringify({
      models: [
        {
          id: MODEL,
          name: 'Tiny ZipVoice',
          type: 'zipvoice',
          languages: ['en'],
          files: { ...files, tokens: `${MODEL}/tokens.txt`, lexicon: `${MODEL}/lexicon.txt` },
        },
      ],
    }),
  );
  return dir;
}

/** F0 median of a WAV answer, as the sample was measured. */
const f0Of = (wav: Buffer): number => {
  const pcm = decodeWav(wav);
  return measurePcm(pcm.samples, pcm.sampleRate).f0MedianHz;
};

describe.each(DIALECTS)('a zero-shot cloning model in MODELS_DIR (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let dir: string;
  let accountId: string;
  let sample: { id: string; measures: { f0_median_hz: number } };
  beforeAll(async () => {
    dir = await modelsDir();
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', MODELS_DIR: dir } });
    c = new Client(t.url);
    await c.anonymous();
    accountId = (await signIn(c, t.outbox, `zeroshot-${dialect}@example.com`)).id;
    sample = (await uploadSample(c, await fs.readFile(JFK_WAV), 'jfk.wav')).body;
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const balance = () => t.ctx.credits.balance(accountId);

  /** The model's own output for the same text given each sample (and the transcript), straight from the speech package. */
  const direct = async (files: string[]): Promise<number[]> => {
    const speech = await t.ctx.speech.get();
    const voice = speech.cloneVoice(MODEL, 'direct');
    const out: number[] = [];
    for (const file of files) {
      const reference = await referenceFromSample(file, { transcript: TRANSCRIPT });
      out.push(f0Of((await speech.synthesize({ text: TEXT, voice, reference, format: 'wav' })).audio));
    }
    return out;
  };
  const previewCount = async () =>
    Number(
      (
        await t.ctx.db.kysely
          .selectFrom('voice_previews')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('/tts/config names it a cloning model that needs the transcript', async () => {
    const model = (await c.get('/tts/config')).body.models.find((m: { model: string }) => m.model === MODEL);
    expect(model).toMatchObject({ type: ['tts', 'cloning'], reference_text: 'required', languages: ['en'] });
    const flite = (await c.get('/tts/config')).body.models.find((m: { model: string }) => m.model === 'flite');
    expect(flite.reference_text).toBeUndefined();
  });

  it('ZipVoice without a transcript: VALIDATION_FAILED naming it, in the request language, nothing charged or kept', async () => {
    const before = await balance();
    const kept = await previewCount();
    const body = { type: 'clone', model: MODEL, language: 'en', preview_text: TEXT, file_id: sample.id };
    const en = await c.post('/voice/previews', body);
    expect(en.status).toBe(400);
    expect(en.body.error.code).toBe('VALIDATION_FAILED');
    expect(en.body.error.message).toBe('Invalid value for transcript: this model needs what the sample says');
    const zh = await c.post('/voice/previews?lang=zh-CN', { ...body, transcript: '   ' });
    expect(zh.status).toBe(400);
    expect(zh.body.error.code).toBe('VALIDATION_FAILED');
    expect(zh.body.error.message).toBe('transcript 的值无效：该模型需要样本中所说的文字');
    expect(await balance()).toBe(before);
    expect(await previewCount()).toBe(kept);
  });

  it("refuses a language the model does not speak, and another account's sample is 404", async () => {
    const wrong = await c.post('/voice/previews', {
      type: 'clone',
      model: MODEL,
      language: 'zh-CN',
      preview_text: '你好世界',
      file_id: sample.id,
      transcript: TRANSCRIPT,
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.code).toBe('LANGUAGE_UNSUPPORTED');
    const other = new Client(t.url);
    await other.anonymous();
    const stolen = await other.post('/voice/previews', {
      type: 'clone',
      model: MODEL,
      language: 'en',
      preview_text: TEXT,
      file_id: sample.id,
      transcript: TRANSCRIPT,
    });
    expect(stolen.status).toBe(404);
  });

  it('previews with the sample and its transcript, activates, and the voice speaks from its sample everywhere', async () => {
    const before = await balance();
    const res = await c.post('/voice/previews', {
      type: 'clone',
      model: MODEL,
      language: 'en',
      preview_text: TEXT,
      file_id: sample.id,
      transcript: ` ${TRANSCRIPT} `,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ model: MODEL, credits: expect.any(Number) });
    expect(await eventually(async () => (await balance()) === before - res.body.credits)).toBe(true);
    const row = await t.ctx.db.kysely
      .selectFrom('voice_previews')
      .selectAll()
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ transcript: TRANSCRIPT, file_id: sample.id, base_voice: `sherpa:${MODEL}:clone` });
    const audio = await fetch(new URL(res.body.audio_url, t.url), { headers: { 'x-sid': c.sid! } });
    expect(audio.status).toBe(200);
    expect(await decodedSeconds(Buffer.from(await audio.arrayBuffer()))).toBeGreaterThan(0.3);

    const made = await c.put('/voice', { type: 'clone', name: 'Zero-shot me', preview_id: res.body.id });
    expect(made.status).toBe(201);
    const voice = made.body;
    expect(voice).toMatchObject({ type: 'clone', model: MODEL, source: 'mine' });
    const own = await t.ctx.db.kysely.selectFrom('own_voices').selectAll().where('id', '=', voice.id).executeTakeFirstOrThrow();
    expect(own.transcript).toBe(TRANSCRIPT);

    // The tiny model's tone follows its reference's spectrum: the voice speaks as the model does
    // given this sample, and unlike the model given another speaker's.
    const wav = await fetch(new URL('/tts', t.url), {
      method: 'POST',
      headers: { 'x-sid': c.sid!, 'content-type': 'application/json' },
      body: JSON.stringify({ text: TEXT, voice_id: voice.id, format: 'wav' }),
    });
    expect(wav.status).toBe(200);
    const f0 = f0Of(Buffer.from(await wav.arrayBuffer()));
    const [same, other] = (await direct([JFK_WAV, LJ_WAV])) as [number, number];
    expect(Math.abs(semitonesBetween(same, other))).toBeGreaterThan(1);
    expect(Math.abs(semitonesBetween(f0, same))).toBeLessThan(0.5);

    const stream = await fetch(new URL('/tts', t.url), {
      method: 'POST',
      headers: { 'x-sid': c.sid!, 'content-type': 'application/json' },
      body: JSON.stringify({ text: TEXT, voice_id: voice.id, stream: true }),
    });
    expect(stream.status).toBe(200);
    expect(await decodedSeconds(Buffer.from(await stream.arrayBuffer()))).toBeGreaterThan(0.3);
    const openai = await fetch(new URL('/v1/audio/speech', t.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${c.sid!}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', input: TEXT, voice: voice.id, response_format: 'wav' }),
    });
    expect(openai.status).toBe(200);
    expect(Math.abs(semitonesBetween(f0Of(Buffer.from(await openai.arrayBuffer())), same))).toBeLessThan(0.5);
    const job = await c.post('/tts/jobs', { text: TEXT, voice_id: voice.id });
    expect(job.status).toBe(202);
    expect(await eventually(async () => (await c.get(`/tts/jobs/${job.body.id}`)).body.status === 'succeeded')).toBe(true);
    const preview = await fetch(new URL(voice.preview_url, t.url), { headers: { 'x-sid': c.sid! } });
    expect(preview.status).toBe(200);
    expect(await t.ctx.credits.ledgerSum(accountId)).toBe(await balance());

    // Deleted with its sample: the voice answers 404 and the sample is not decoded from memory again.
    expect((await c.delete(`/voice?id=${voice.id}`)).status).toBe(204);
    expect((await c.post('/tts', { text: TEXT, voice_id: voice.id })).status).toBe(404);
  });
});
