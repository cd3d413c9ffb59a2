/**
 * The pause budget (`pronunciation/pause-budget.ts`) on every speech route: a document asking for more silence than its
 * characters pay for is refused before anything is held or charged, naming the limit; one at the limit is spoken, and
 * lasts what it asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds, holdsOf } from '../support/leave.js';
import { audioOf, openRealtime } from '../support/realtime.js';

const VOICE = 'voice_espeak.en-us';
const breaks = (n: number, time: string, tag = (t: string) => `<break time="${t}"/>`) => tag(time).repeat(n);
/** 300 breaks of 10 s around two words: 10 priced characters, 3,000 s of silence. */
const SILENCE = `<speak>Hello ${breaks(300, '10s')} world</speak>`;
const RULE =
  'pauses may last at most 8 s in all for 10 characters (3 s and 0.5 s per character, 60 s at most); these last 3000 s';
/** ElevenLabs' breaks in plain text: 300 of 3 s. */
const PLAIN = `Hello ${breaks(300, '3s', (t) => `<break time="${t}" />`)} world`;
const PLAIN_RULE = /^Pauses may last at most 8 s in all for 10 characters .*; these last 900 s$/;

describe.each(DIALECTS)('the pause budget on every route (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let accountId: string;
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 100_000, 'pauses'));
    accountId = (await c.get('/accounts/me')).body.id as string;
  });
  afterAll(async () => {
    await t.close();
  });

  /** What the account has been charged and held so far: its balance, its ledger entries, its holds. */
  const books = async () => ({
    balance: await t.ctx.credits.balance(accountId),
    ledger: (await t.ctx.db.kysely.selectFrom('credit_ledger').select('id').where('account_id', '=', accountId).execute()).length,
    holds: (await holdsOf(t, accountId)).length,
  });
  const keyed = (path: string, body: unknown, header = 'authorization') =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { [header]: header === 'authorization' ? `Bearer ${key.key}` : key.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('refuses 300 breaks of 10 s on every HTTP route with VALIDATION_FAILED naming the limit, charging nothing', async () => {
    const before = await books();
    // Each asked in turn, the estimate first: it answers at once, where a route that took the document would speak it.
    const routes: [string, () => Promise<Response | Awaited<ReturnType<Client['post']>>>][] = [
      ['/tts/estimate', () => c.post('/tts/estimate', { text: SILENCE, voice_id: VOICE })],
      ['/tts/normalize', () => c.post('/tts/normalize', { text: SILENCE, voice_id: VOICE })],
      ['/tts', () => c.post('/tts', { text: SILENCE, voice_id: VOICE, format: 'mp3' })],
      ['/tts stream', () => keyed('/tts', { text: SILENCE, voice_id: VOICE, format: 'pcm', stream: true })],
      ['/tts timestamps', () => c.post('/tts', { text: SILENCE, voice_id: VOICE, timestamps: true })],
      ['/tts/jobs', () => c.post('/tts/jobs', { text: SILENCE, voice_id: VOICE, format: 'wav', text_type: 'ssml' })],
      ['/v1/audio/speech', () => keyed('/v1/audio/speech', { model: 'tts-1', voice: VOICE, input: SILENCE })],
      ['eleven', () => keyed(`/v1/text-to-speech/${VOICE}`, { text: SILENCE }, 'xi-api-key')],
      [
        'eleven stream',
        () => keyed(`/v1/text-to-speech/${VOICE}/stream?output_format=pcm_16000`, { text: SILENCE }, 'xi-api-key'),
      ],
      ['eleven timestamps', () => keyed(`/v1/text-to-speech/${VOICE}/with-timestamps`, { text: SILENCE }, 'xi-api-key')],
    ];
    for (const [route, send] of routes) {
      const res = await send();
      const body = res instanceof Response ? ((await res.json().catch(() => ({}))) as any) : res.body;
      expect([res.status, body.error?.code], route).toEqual([400, 'VALIDATION_FAILED']);
      expect(body.error.message, route).toBe(`P${RULE.slice(1)}`);
    }
    // ElevenLabs' plain-text breaks, on its route and on POST /tts.
    const plain = await keyed(`/v1/text-to-speech/${VOICE}?output_format=mp3_44100_128`, { text: PLAIN }, 'xi-api-key');
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as any).error.message).toMatch(PLAIN_RULE);
    const plainTts = await c.post('/tts', { text: PLAIN, voice_id: VOICE, format: 'wav' });
    expect(plainTts.body.error.message).toMatch(PLAIN_RULE);
    // In the request's language.
    const zh = new Client(t.url, 'zh-TW');
    zh.sid = c.sid;
    expect((await zh.post('/tts', { text: SILENCE, voice_id: VOICE })).body.error.message).toBe(
      '停頓總長最多 8 秒（10 個字元：3 秒，另加每個字元 0.5 秒，最多 60 秒）；這些停頓共 3000 秒',
    );
    expect(await books()).toEqual(before);
  });

  it('refuses a realtime piece over the budget with the protocol’s error message, charging nothing', async () => {
    const before = await books();
    const rt = await openRealtime(t.url, `/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_16000`, {
      'xi-api-key': key.key,
    });
    rt.send({ text: ' ' });
    rt.send({ text: PLAIN, flush: true });
    rt.send({ text: '' });
    // Its error, or (were it taken) the end of its audio.
    const error = await rt.next((m) => typeof m.error === 'string' || m.isFinal === true);
    expect(error).toMatchObject({ error: 'VALIDATION_FAILED', code: 400 });
    // The socket cuts its text into pieces of its own; the piece holding the breaks is priced (and held) alone.
    expect(error.message).toMatch(/^Pauses may last at most [\d.]+ s in all for \d+ characters .*; these last 900 s$/);
    expect((await rt.closed).code).toBe(1008);
    expect(rt.messages.some((m) => typeof m.audio === 'string')).toBe(false);
    expect(await books()).toEqual(before);
  });

  it('speaks a document at its limit, for as long as it asked and no longer', async () => {
    const words = 'Here we go again, slowly. '.repeat(6); // 126 characters: the 60 s ceiling
    const seconds = async (text: string) => {
      const res = await c.post('/tts', { text, voice_id: VOICE, format: 'wav' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return Number(res.headers.get('x-audio-duration'));
    };
    const spoken = await seconds(`<speak>${words}</speak>`);
    const paused = await seconds(`<speak>${words}${breaks(6, '10s')}</speak>`);
    expect(paused).toBeGreaterThanOrEqual(spoken + 59.5);
    expect(paused).toBeLessThanOrEqual(spoken + 60.5);
    // One millisecond more is refused.
    const over = await c.post('/tts/estimate', {
      text: `<speak>${words}${breaks(6, '10s')}<break time="1ms"/></speak>`,
      voice_id: VOICE,
    });
    expect(over.body.error?.code).toBe('VALIDATION_FAILED');
    expect(over.body.error.message).toMatch(/at most 60 s in all for 126 characters/);

    // On the socket the budget holds the whole stream: 100 characters of words in one piece pay for the 48 s of a
    // later piece with one word (4 characters, alone 5 s).
    const rt = await openRealtime(t.url, `/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_16000`, {
      'xi-api-key': key.key,
    });
    rt.send({ text: ' ', generation_config: { chunk_length_schedule: [500] } });
    rt.send({ text: 'Breathe in slowly and hold it. '.repeat(4), flush: true });
    rt.send({ text: `Now. ${breaks(16, '3s', (s) => `<break time="${s}" />`)}`, flush: true });
    rt.send({ text: '' });
    await rt.next((m) => m.isFinal === true || typeof m.error === 'string');
    expect(rt.messages.filter((m) => typeof m.error === 'string')).toEqual([]);
    const heard = audioOf(rt.messages).length / 32_000;
    expect(heard).toBeGreaterThanOrEqual(48);
    expect(heard).toBeLessThanOrEqual(48 + 15);
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
  });
});
