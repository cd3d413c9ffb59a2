import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyPiper, writeTinyVits } from '../../../../packages/speech/test/support/tiny-models.js';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { newId } from '../../src/platform/ids.js';

interface Timed {
  duration_seconds: number;
  alignment: { characters: string[]; character_start_times_seconds: number[]; character_end_times_seconds: number[] };
  normalized_alignment: { characters: string[] };
  words: { word: string; start: number; end: number }[];
}

const ESPEAK = 'voice_espeak.en-us';
/** The supercalifragilistic word's phonemes: far longer than the word they are given for. */
const LONG_IPA = 'ˌsuːpəˌkælɪˌfrædʒəlˌɪstɪkˌɛkspiˌælɪˈdoʊʃəs';

/** Timings well-formed and of the text as sent: its characters, in order, times rising within the audio. */
function expectWellFormed(body: Timed, text: string): void {
  const a = body.alignment;
  expect(a.characters.join('')).toBe(text);
  expect(a.character_start_times_seconds).toHaveLength(a.characters.length);
  for (let i = 0; i < a.characters.length; i++) {
    expect(a.character_end_times_seconds[i]!).toBeGreaterThanOrEqual(a.character_start_times_seconds[i]!);
    if (i > 0) expect(a.character_start_times_seconds[i]!).toBeGreaterThanOrEqual(a.character_start_times_seconds[i - 1]!);
    // Times are given to the millisecond.
    expect(a.character_end_times_seconds[i]!).toBeLessThanOrEqual(body.duration_seconds + 0.0011);
  }
}

/** The time of the request's word `w` (as the user wrote it). */
const wordTime = (body: Timed, w: string) => {
  const word = body.words.find((x) => x.word === w)!;
  return word.end - word.start;
};

/** A job's state once it has finished (polled, each poll after the event loop's turn). */
async function finished(c: Client, id: string): Promise<{ status: string }> {
  let state = (await c.get(`/tts/jobs/${id}`)).body;
  while (state.status === 'queued' || state.status === 'running') {
    await new Promise((r) => setImmediate(r));
    state = (await c.get(`/tts/jobs/${id}`)).body;
  }
  return state;
}

/** MODELS_DIR with a Piper export (sherpa-onnx phonemizes it with eSpeak NG) and a character VITS model (no phonemes). */
async function modelsDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-pron-'));
  writeTinyPiper(path.join(dir, 'piper'), 'model', [], true);
  writeTinyVits(path.join(dir, 'chars'), 1);
  const model = (id: string, name: string) => ({
    id,
    name,
    type: 'vits',
    languages: ['en-US', 'en'],
    files: { model: `${id}/model.onnx`, tokens: `${id}/tokens.txt` },
    speakers: [{ sid: 0, name, gender: 'female' }],
  });
  await fs.writeFile(
    path.join(dir, 'manifest.json'),
    JSON.stringify({ models: [model('piper', 'Piper'), model('chars', 'Chars')] }),
  );
  return dir;
}

describe.each(DIALECTS)('pronunciation rules change what is spoken (%s)', (dialect) => {
  let t: TestApp;
  let models: string;
  let c: Client;
  let key: { id: string; key: string };
  let dict: { id: string; version_id: string };
  beforeAll(async () => {
    models = await modelsDir();
    ({ t, c, key } = await keyedApp(dialect, 100_000, 'dict', { MODELS_DIR: models }));
    dict = (
      await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
        name: 'Applied',
        rules: [
          { type: 'alias', string_to_replace: 'UN', alias: 'United Nations Organization of every country' },
          { type: 'phoneme', string_to_replace: 'Bob', phoneme: LONG_IPA, alphabet: 'ipa' },
        ],
      })
    ).body;
  });
  afterAll(async () => {
    await t.close();
    await fs.rm(models, { recursive: true, force: true });
  });

  const timed = (text: string, extra: object = {}, voice = ESPEAK) =>
    c.post('/tts', { text, voice_id: voice, format: 'wav', timestamps: true, ...extra });

  it('an alias and a phoneme rule lengthen their words; the price and the timings stay the user’s text', async () => {
    const text = 'The UN met Bob today.';
    const plain = await timed(text);
    const ruled = await timed(text, {
      pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dict.id, version_id: dict.version_id }],
    });
    expect(plain.status).toBe(200);
    expect(ruled.status, JSON.stringify(ruled.body)).toBe(200);
    // Priced on the characters sent, not the alias's.
    expect(ruled.headers.get('x-characters')).toBe(plain.headers.get('x-characters'));
    expect(ruled.headers.get('x-credits-charged')).toBe(plain.headers.get('x-credits-charged'));
    expect(ruled.headers.get('x-pronunciation-fallback')).toBeNull();
    const p = plain.body as Timed;
    const r = ruled.body as Timed;
    // The alias adds five words, the phonemes a dozen syllables: the file is much longer.
    expect(r.duration_seconds).toBeGreaterThan(p.duration_seconds + 1.5);
    expectWellFormed(p, text);
    expectWellFormed(r, text);
    // The user's words, timed: "UN" and "Bob" each take the time of what they became.
    expect(r.words.map((w) => w.word)).toEqual(['The', 'UN', 'met', 'Bob', 'today']);
    expect(wordTime(r, 'UN')).toBeGreaterThan(wordTime(p, 'UN') + 0.5);
    expect(wordTime(r, 'Bob')).toBeGreaterThan(wordTime(p, 'Bob') + 0.5);
    // What was read: the alias, and the phonemes as eSpeak NG took them.
    expect(r.normalized_alignment.characters.join('')).toContain('United Nations Organization');
  });

  it('a locator without a version applies the latest; an old version id still applies that version', async () => {
    const text = 'Bob said hello.';
    const latest = await timed(text, { pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dict.id }] });
    const changed = await c.post(`/v1/pronunciation-dictionaries/${dict.id}/remove-rules`, { rule_strings: ['Bob'] });
    expect(changed.status).toBe(200);
    const now = await timed(text, { pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dict.id }] });
    const old = await timed(text, {
      pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dict.id, version_id: dict.version_id }],
    });
    const plain = await timed(text);
    const d = (r: { body: Timed }) => r.body.duration_seconds;
    expect(d(latest)).toBeGreaterThan(d(plain) + 0.8);
    expect(Math.abs(d(now) - d(plain))).toBeLessThan(0.05);
    expect(Math.abs(d(old) - d(latest))).toBeLessThan(0.05);
  });

  it('Flite and GnuSpeech speak phonemes in their own phones; a sound they lack falls back and is named; aliases apply', async () => {
    const fb = await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'Fallback',
      rules: [
        { type: 'phoneme', string_to_replace: 'Bob', phoneme: 'B AA1 B', alphabet: 'cmu-arpabet' },
        // /x/ is no sound of English: neither engine has it.
        { type: 'phoneme', string_to_replace: 'Bach', phoneme: 'bɑx', alphabet: 'ipa' },
        { type: 'alias', string_to_replace: 'UN', alias: 'United Nations Organization of every country' },
      ],
    });
    const locators = [{ pronunciation_dictionary_id: fb.body.id }];
    const text = 'Bob, Bach and the UN.';
    for (const voice of ['voice_flite.slt', 'voice_gnuspeech.male']) {
      const ruled = await c.post('/tts', { text, voice_id: voice, format: 'wav', pronunciation_dictionary_locators: locators });
      expect(ruled.status).toBe(200);
      expect(ruled.headers.get('x-pronunciation-fallback')).toBe('Bach');
      const plain = await c.post('/tts', { text, voice_id: voice, format: 'wav' });
      expect(Number(ruled.headers.get('x-audio-duration'))).toBeGreaterThan(Number(plain.headers.get('x-audio-duration')) + 1);
      expect(ruled.headers.get('x-characters')).toBe(plain.headers.get('x-characters'));
    }
    const said = await c.post('/tts/normalize', {
      text,
      voice_id: 'voice_flite.slt',
      pronunciation_dictionary_locators: locators,
    });
    expect(said.body.text).toMatch(/^\[\[b_aa1_b\]\] ?, Bach and the United Nations Organization of every country\.$/);
    // eSpeak NG has /x/: no fallback.
    const espeak = await c.post('/tts', { text, voice_id: ESPEAK, format: 'wav', pronunciation_dictionary_locators: locators });
    expect(espeak.headers.get('x-pronunciation-fallback')).toBeNull();
  });

  it('a sherpa-onnx model eSpeak NG phonemizes for speaks the phonemes; a character model falls back and names it', async () => {
    const hello = await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'Hello',
      rules: [{ type: 'phoneme', string_to_replace: 'Bo', phoneme: 'həˈloʊ', alphabet: 'ipa' }],
    });
    const locators = [{ pronunciation_dictionary_id: hello.body.id }];
    const seconds = async (voice: string, text: string, extra: object = {}) => {
      const r = await c.post('/tts', { text, voice_id: voice, format: 'wav', ...extra });
      expect(r.status).toBe(200);
      return { duration: Number(r.headers.get('x-audio-duration')), fallback: r.headers.get('x-pronunciation-fallback') };
    };
    // The tiny model's length follows its phoneme ids: /həˈloʊ/ is eSpeak NG's "hello", "Bo" as written is shorter.
    const piper = 'voice_sherpa.piper.0';
    const ruled = await seconds(piper, 'Say Bo now.', { pronunciation_dictionary_locators: locators });
    expect(ruled.fallback).toBeNull();
    expect(ruled.duration).toBe((await seconds(piper, 'Say hello now.')).duration);
    expect(ruled.duration).toBeGreaterThan((await seconds(piper, 'Say Bo now.')).duration);
    const said = await c.post('/tts/normalize', {
      text: 'Say Bo now.',
      voice_id: piper,
      pronunciation_dictionary_locators: locators,
    });
    expect(said.body.text).toBe("Say [[h@l'oU]] now.");
    const chars = await seconds('voice_sherpa.chars.0', 'Say Bo now.', { pronunciation_dictionary_locators: locators });
    expect(chars.fallback).toBe('Bo');
  });

  it('a job stored before voices had `phonemes` still speaks the rule as phonemes on a model eSpeak NG phonemizes for', async () => {
    const hello = await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'Hello job',
      rules: [{ type: 'phoneme', string_to_replace: 'Bo', phoneme: 'həˈloʊ', alphabet: 'ipa' }],
    });
    const done = async (id: string) => {
      expect((await finished(c, id)).status).toBe('succeeded');
      const audio = await fetch(`${t.url}/tts/jobs/${id}/audio`, { headers: { 'x-sid': c.sid! } });
      expect(audio.status).toBe(200);
      return Buffer.from(await audio.arrayBuffer()).length;
    };
    const job = async (text: string, locators: object[]) => {
      const r = await c.post('/tts/jobs', {
        text,
        voice_id: 'voice_sherpa.piper.0',
        format: 'wav',
        pronunciation_dictionary_locators: locators,
      });
      expect(r.status).toBe(202);
      return r.body.id as string;
    };
    const ruled = await job('Say Bo now.', [{ pronunciation_dictionary_id: hello.body.id }]);
    const ruledBytes = await done(ruled);
    expect(ruledBytes).toBe(await done(await job('Say hello now.', [])));
    expect(ruledBytes).not.toBe(await done(await job('Say Bo now.', [])));

    // The same job as a release before the field stored it: its voice without `phonemes`, queued for a worker.
    const row = await t.ctx.db.kysely.selectFrom('synthesis_jobs').selectAll().where('id', '=', ruled).executeTakeFirstOrThrow();
    const payload = JSON.parse(String(row.request)) as { request: { voice: Record<string, unknown> } };
    expect(payload.request.voice.phonemes).toBe('espeak');
    delete payload.request.voice.phonemes;
    const id = newId('job');
    const hold = await t.ctx.credits.hold(row.account_id, Number(row.credits), 'tts');
    await t.ctx.db.kysely
      .insertInto('synthesis_jobs')
      .values({
        ...row,
        id,
        status: 'queued',
        hold_id: hold.id,
        storage_key: null,
        finished_at: null,
        expires_at: null,
        request: JSON.stringify(payload),
        attempts: 0,
        owner: null,
        heartbeat_at: null,
        request_id: null,
      })
      .execute();
    const log = { info: () => {}, error: () => {}, warn: () => {}, child: () => log };
    await t.ctx.jobs.runner.runQueued(id, new AbortController().signal, log as never);
    expect(await done(id)).toBe(ruledBytes);
  });

  it('applies the account’s default dictionary when a request names none, and none when it names an empty list', async () => {
    const text = 'Ask the UN.';
    const d = (r: { body: Timed }) => r.body.duration_seconds;
    const before = await timed(text);
    const made = await c.request('PATCH', `/v1/pronunciation-dictionaries/${dict.id}`, { default: true });
    expect(made.status).toBe(200);
    const withDefault = await timed(text);
    const without = await timed(text, { pronunciation_dictionary_locators: [] });
    expect(d(withDefault)).toBeGreaterThan(d(before) + 1);
    expect(Math.abs(d(without) - d(before))).toBeLessThan(0.05);
    await c.request('PATCH', `/v1/pronunciation-dictionaries/${dict.id}`, { default: false });
    expect(Math.abs(d(await timed(text)) - d(before))).toBeLessThan(0.05);
  });

  it('applies on the ElevenLabs, OpenAI, estimate and job routes', async () => {
    const locators = [{ pronunciation_dictionary_id: dict.id, version_id: dict.version_id }];
    const text = 'The UN met Bob.';
    const headers = { 'xi-api-key': key.key };
    const plain = await c.post(`/v1/text-to-speech/${ESPEAK}/with-timestamps?output_format=pcm_22050`, { text }, headers);
    const ruled = await c.post(
      `/v1/text-to-speech/${ESPEAK}/with-timestamps?output_format=pcm_22050`,
      { text, pronunciation_dictionary_locators: locators },
      headers,
    );
    expect(ruled.status, JSON.stringify(ruled.body)).toBe(200);
    expect(ruled.body.alignment.characters.join('')).toBe(text);
    const bytes = (r: typeof plain) => Buffer.from(r.body.audio_base64 as string, 'base64').length;
    expect(bytes(ruled)).toBeGreaterThan(bytes(plain) * 1.5);
    expect(ruled.headers.get('character-cost')).toBe(plain.headers.get('character-cost'));

    const stream = async (body: object) => {
      const res = await fetch(`${t.url}/v1/text-to-speech/${ESPEAK}/stream?output_format=pcm_22050`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer()).length;
    };
    expect(await stream({ text, pronunciation_dictionary_locators: locators })).toBeGreaterThan((await stream({ text })) * 1.5);

    const openai = async (body: object) => {
      const res = await fetch(`${t.url}/v1/audio/speech`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tts-1', voice: ESPEAK, input: text, response_format: 'pcm', ...body }),
      });
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer()).length;
    };
    expect(await openai({ pronunciation_dictionary_locators: locators })).toBeGreaterThan((await openai({})) * 1.5);

    const estimate = await c.post('/tts/estimate', { text, voice_id: ESPEAK, pronunciation_dictionary_locators: locators });
    const estimatePlain = await c.post('/tts/estimate', { text, voice_id: ESPEAK });
    expect(estimate.body.characters).toBe(estimatePlain.body.characters);

    const job = await c.post('/tts/jobs', {
      text,
      voice_id: 'voice_flite.slt',
      format: 'wav',
      pronunciation_dictionary_locators: locators,
    });
    expect(job.status).toBe(202);
    expect(job.body.characters).toBe(estimatePlain.body.characters);
    expect((await finished(c, job.body.id)).status).toBe('succeeded');
    // The job kept the rules it was priced with: the alias is spoken, and "Bob"'s phonemes in Flite's phones.
    expect(job.headers.get('x-pronunciation-fallback')).toBeNull();
  });
});
