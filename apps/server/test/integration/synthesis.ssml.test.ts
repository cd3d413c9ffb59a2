import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAUSE_MS } from '@polyvox/speech';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { keyedApp } from '../support/sdk.js';
import { eventually } from '../support/leave.js';

const ESPEAK = 'voice_espeak.en-us';
/** A break after a sentence is the pause there: it replaces the sentence's own, so the audio grows by the difference. */
const SENTENCE_PAUSE = PAUSE_MS.sentence / 1000;
/** Far longer than the word it is given for. */
const LONG_IPA = 'ˌsuːpəˌkælɪˌfrædʒəlˌɪstɪkˌɛkspiˌælɪˈdoʊʃəs';

describe.each(DIALECTS)('SSML on the synthesis routes (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let accountId: string;
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 100_000, 'ssml'));
    accountId = (await c.get('/accounts/me')).body.id as string;
  });
  afterAll(async () => {
    await t.close();
  });

  const tts = (text: string, extra: object = {}, client = c) =>
    client.post('/tts', { text, voice_id: ESPEAK, format: 'wav', ...extra });
  const seconds = (res: Awaited<ReturnType<typeof tts>>) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return Number(res.headers.get('x-audio-duration'));
  };

  it('a break makes the audio longer by its time; ElevenLabs’ break in plain text too, capped at 3 s', async () => {
    const plain = seconds(await tts('<speak>Hello there. How are you?</speak>'));
    const broken = seconds(await tts('<speak>Hello there. <break time="2s"/> How are you?</speak>'));
    expect(broken).toBeGreaterThan(plain + 2 - SENTENCE_PAUSE - 0.2);
    expect(broken).toBeLessThan(plain + 2 - SENTENCE_PAUSE + 0.4);
    // Plain text, no text_type: the tag is a pause, not words; a break of 10 s in plain text is 3 s.
    const eleven = seconds(await tts('Hello there. <break time="10s" /> How are you?'));
    expect(eleven).toBeGreaterThan(plain + 3 - SENTENCE_PAUSE - 0.2);
    expect(eleven).toBeLessThan(plain + 3 - SENTENCE_PAUSE + 0.4);
    // Streamed, the same pause.
    const streamed = await fetch(`${t.url}/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        text: '<speak>Hello there. <break time="2s"/> How are you?</speak>',
        voice_id: ESPEAK,
        format: 'pcm',
        stream: true,
      }),
    });
    expect(streamed.status).toBe(200);
    const pcmSeconds = Buffer.from(await streamed.arrayBuffer()).length / 2 / 24_000;
    expect(pcmSeconds).toBeGreaterThan(plain + 2 - SENTENCE_PAUSE - 0.2);
  });

  it('prosody rate changes the duration; emphasis and volume are accepted', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    const normal = seconds(await tts(`<speak>${text}</speak>`));
    const slow = seconds(await tts(`<speak><prosody rate="x-slow">${text}</prosody></speak>`));
    const fast = seconds(await tts(`<speak><prosody rate="200%">${text}</prosody></speak>`));
    expect(slow).toBeGreaterThan(normal * 1.5);
    expect(fast).toBeLessThan(normal * 0.75);
    const shaped = await tts(
      `<speak><emphasis level="strong">${text}</emphasis><prosody volume="soft" pitch="+3st">Yes.</prosody></speak>`,
    );
    expect(seconds(shaped)).toBeGreaterThan(normal);
  });

  it('a phoneme tag changes the phonemes eSpeak NG is given, and the audio', async () => {
    const plain = await c.post('/tts/normalize', { text: '<speak>Say Bob now.</speak>', voice_id: ESPEAK });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body.text).toBe('Say Bob now.');
    const ruled = await c.post('/tts/normalize', {
      text: `<speak>Say <phoneme alphabet="ipa" ph="${LONG_IPA}">Bob</phoneme> now.</speak>`,
      voice_id: ESPEAK,
    });
    expect(ruled.status, JSON.stringify(ruled.body)).toBe(200);
    expect(ruled.body.text).toMatch(/^Say \[\[s,u:p@k[^\]]*d'oUS@s\]\] now\.$/);
    const arpabet = await c.post('/tts/normalize', {
      text: '<speak>Say <phoneme alphabet="cmu-arpabet" ph="B AA1 B">Bob</phoneme>.</speak>',
      voice_id: ESPEAK,
    });
    expect(arpabet.body.text).toMatch(/^Say \[\[b'A:b\]\] ?\.$/);
    const before = seconds(await tts('<speak>Say Bob now.</speak>'));
    const after = seconds(await tts(`<speak>Say <phoneme alphabet="ipa" ph="${LONG_IPA}">Bob</phoneme> now.</speak>`));
    expect(after).toBeGreaterThan(before + 0.8);
    // Flite takes them in its own phones; a sound it has not (/x/) is spoken as written, and the response says so.
    const flite = await c.post('/tts', {
      text: `<speak>Say <phoneme alphabet="ipa" ph="${LONG_IPA}">Bob</phoneme> to <phoneme ph="bɑx">Bach</phoneme>.</speak>`,
      voice_id: 'voice_flite.slt',
      format: 'wav',
    });
    expect(flite.status).toBe(200);
    expect(flite.headers.get('x-pronunciation-fallback')).toBe('Bach');
    const fliteSaid = await c.post('/tts/normalize', {
      text: '<speak>Say <phoneme alphabet="cmu-arpabet" ph="B AA1 B">Bob</phoneme>.</speak>',
      voice_id: 'voice_flite.slt',
    });
    expect(fliteSaid.body.text).toMatch(/^Say \[\[b_aa1_b\]\] ?\.$/);
  });

  it('an unknown tag is 400 VALIDATION_FAILED naming it, in the request’s language; a malformed one names its line and column', async () => {
    const text = '<speak>Hello\n <voice name="x">there</voice></speak>';
    const en = expectError(await tts(text), 'VALIDATION_FAILED');
    expect(en.message).toBe('Unsupported SSML tag <voice> at line 2, column 2');
    const zh = new Client(t.url, 'zh-CN');
    await zh.anonymous();
    const zhError = expectError(await zh.post('/tts/normalize', { text, voice_id: ESPEAK }), 'VALIDATION_FAILED');
    expect(zhError.message).toBe('不支持的 SSML 标签 <voice>（第 2 行第 2 列）');
    // The same on every route, before anything is charged.
    expectError(await c.post('/tts/estimate', { text, voice_id: ESPEAK }), 'VALIDATION_FAILED');
    expectError(await c.post('/tts/jobs', { text, voice_id: ESPEAK, format: 'wav' }), 'VALIDATION_FAILED');
    const eleven = await fetch(`${t.url}/v1/text-to-speech/${ESPEAK}`, {
      method: 'POST',
      headers: { 'xi-api-key': key.key, 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    expect(eleven.status).toBe(400);
    expect(((await eleven.json()) as { error: { message: string } }).error.message).toMatch(/<voice>/);
    const malformed = expectError(
      await c.post('/tts/normalize', { text: '<speak>\n  <p>Hello\n</speak>', voice_id: ESPEAK }),
      'VALIDATION_FAILED',
    );
    expect(malformed.message).toMatch(
      /^Not well-formed SSML at line 3, column \d+: the <p> tag opened at line 2, column 3 is not closed before <\/speak>$/,
    );
    const zhMalformed = expectError(
      await zh.post('/tts/normalize', { text: '<speak><prosody rate="slow">你好</speak>', voice_id: ESPEAK }),
      'VALIDATION_FAILED',
    );
    expect(zhMalformed.message).toBe(
      'SSML 格式不正确（第 1 行第 31 列）：第 1 行第 8 列的 <prosody> 标签在 </speak> 之前没有关闭',
    );
    // text_type "ssml" with text that is not a document at all.
    const notXml = expectError(await tts('Hello there.', { text_type: 'ssml' }), 'VALIDATION_FAILED');
    expect(notXml.message).toMatch(/line 1, column 1/);
  });

  it('charges only the spoken characters: the credit records add up to the balance', async () => {
    const spoken = 'Hello world and WWW.';
    const text =
      '<speak><p><s>Hello <break time="300ms"/> world</s> <prosody rate="slow">and</prosody> ' +
      '<sub alias="WWW">World Wide Web</sub>.</p><mark name="end"/></speak>';
    const price = await c.post('/tts/estimate', { text: spoken, voice_id: ESPEAK });
    const estimate = await c.post('/tts/estimate', { text, voice_id: ESPEAK, text_type: 'ssml' });
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
    expect(estimate.body.characters).toBe(price.body.characters);
    expect(estimate.body.credits).toBe(price.body.credits);
    const shown = await c.post('/tts/normalize', { text, voice_id: ESPEAK });
    expect(shown.body.characters).toBe(price.body.characters);
    expect(shown.body.text).toBe('Hello world and WWW.');

    // A charge settles as its answer's last bytes leave: a reader may ask before its record is written, so the
    // ledger is read once it is at rest (the records add up to the balance), before and after.
    const recordsSum = async () =>
      ((await c.get('/api/credits/records?page_size=100')).body.items as { amount: number }[]).reduce((s, r) => s + r.amount, 0);
    const atRest = async () => {
      let balance = 0;
      expect(await eventually(async () => (await recordsSum()) === (balance = await t.ctx.credits.balance(accountId)))).toBe(
        true,
      );
      return balance;
    };
    const before = await atRest();
    const res = await tts(text);
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-characters'))).toBe(price.body.characters);
    expect(Number(res.headers.get('x-credits-charged'))).toBe(price.body.credits);
    const after = await atRest();
    expect(before - after).toBe(price.body.credits);
    expect(await t.ctx.credits.ledgerSum(accountId)).toBe(after);
  });

  it('timings map to the user’s characters and report each mark with its time', async () => {
    const text = '<speak>One two. <break time="1s"/><mark name="second"/>Three four.</speak>';
    const res = await tts(text, { timestamps: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body as {
      alignment: { characters: string[]; character_start_times_seconds: number[] };
      marks: { name: string; time_seconds: number }[];
      words: { word: string; start: number; end: number }[];
      duration_seconds: number;
    };
    expect(body.alignment.characters.join('')).toBe(text);
    const two = body.words.find((w) => w.word === 'two')!;
    const three = body.words.find((w) => w.word === 'Three')!;
    // The second's words come after the pause.
    expect(three.start - two.end).toBeGreaterThan(0.9);
    expect(body.marks).toHaveLength(1);
    expect(body.marks[0]!.name).toBe('second');
    expect(body.marks[0]!.time_seconds).toBeGreaterThan(two.end + 0.9);
    expect(body.marks[0]!.time_seconds).toBeLessThanOrEqual(three.start + 0.05);
    // Streamed lines of JSON: the marks on the last line.
    const lines = await fetch(`${t.url}/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text, voice_id: ESPEAK, format: 'mp3', stream: true, timestamps: true }),
    });
    expect(lines.status).toBe(200);
    const parsed = (await lines.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { alignment: { characters: string[] } | null; marks?: { name: string }[] });
    expect(parsed.map((l) => l.alignment?.characters.join('') ?? '').join('')).toBe(text);
    expect(parsed.at(-1)!.marks?.map((m) => m.name)).toEqual(['second']);
    expect(parsed.slice(0, -1).every((l) => l.marks === undefined)).toBe(true);
    // ElevenLabs' with-timestamps carries them too.
    const eleven = await fetch(`${t.url}/v1/text-to-speech/${ESPEAK}/with-timestamps?output_format=pcm_22050`, {
      method: 'POST',
      headers: { 'xi-api-key': key.key, 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    expect(eleven.status).toBe(200);
    const elevenBody = (await eleven.json()) as { alignment: { characters: string[] }; marks: unknown[] };
    expect(elevenBody.alignment.characters.join('')).toBe(text);
    expect(elevenBody.marks).toHaveLength(1);
  });

  it('applies on the job, OpenAI and ElevenLabs routes; <lang> switches eSpeak NG to a voice of that language', async () => {
    const text = '<speak>Hello. <break time="2s"/> Goodbye.</speak>';
    const openai = async (input: string) => {
      const res = await fetch(`${t.url}/v1/audio/speech`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tts-1', voice: ESPEAK, input, response_format: 'pcm' }),
      });
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer()).length;
    };
    expect(await openai(text)).toBeGreaterThan(
      (await openai('<speak>Hello. Goodbye.</speak>')) + (2 - SENTENCE_PAUSE - 0.2) * 24_000 * 2,
    );
    const eleven = async (body: object) => {
      const res = await fetch(`${t.url}/v1/text-to-speech/${ESPEAK}/stream?output_format=pcm_22050`, {
        method: 'POST',
        headers: { 'xi-api-key': key.key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer()).length;
    };
    expect(await eleven({ text: 'Hello. <break time="1.5s" /> Goodbye.' })).toBeGreaterThan(
      (await eleven({ text: 'Hello. Goodbye.' })) + (1.5 - SENTENCE_PAUSE - 0.2) * 22_050 * 2,
    );

    const job = await c.post('/tts/jobs', { text, voice_id: ESPEAK, format: 'wav', text_type: 'ssml' });
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    // "Hello." and "Goodbye.": the markup is not priced.
    expect(job.body.characters).toBe(14);
    let state = job.body;
    while (state.status === 'queued' || state.status === 'running') {
      await new Promise((r) => setImmediate(r));
      state = (await c.get(`/tts/jobs/${job.body.id}`)).body;
    }
    expect(state.status).toBe('succeeded');

    // French words in an English document, on eSpeak NG: read by its French voice (the normaliser's language too).
    const lang = await c.post('/tts/normalize', {
      text: '<speak>I have 2 cats. <lang xml:lang="fr-FR">J’ai 2 chats.</lang></speak>',
      voice_id: ESPEAK,
    });
    expect(lang.status, JSON.stringify(lang.body)).toBe(200);
    expect(lang.body.sentences).toEqual(['I have two cats.', 'J’ai 2 chats.']);
    const french = seconds(await tts('<speak><lang xml:lang="fr-FR">Bonjour tout le monde.</lang></speak>'));
    expect(french).toBeGreaterThan(0.5);
  });
});
