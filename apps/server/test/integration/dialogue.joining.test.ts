/** The dialogue's joins, loudness, price and charge: measured on the audio the routes answer, on both databases. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pcmLoudness } from '@polyvox/speech';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { eventually, heldHolds } from '../support/leave.js';

const ESPEAK = 'voice_espeak.en-us';
const FLITE = 'voice_flite.slt';
/** Two turns of one speaker, then a change, then a change back. */
const INPUTS = [
  { text: 'Shall we take the early train tomorrow morning?', voice_id: ESPEAK },
  { text: 'It leaves at seven, so we would have to hurry.', voice_id: ESPEAK },
  { text: 'Seven is fine by me, I wake up early anyway.', voice_id: FLITE },
  { text: 'Then it is settled, I will buy the tickets tonight.', voice_id: ESPEAK },
];

interface Segment {
  voice_id: string;
  start_time_seconds: number;
  end_time_seconds: number;
  character_start_index: number;
  character_end_index: number;
  dialogue_input_index: number;
}

const samplesOf = (pcm: Buffer) => new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);

/** The silence heard around `at` seconds: from the last sample above -45 dBFS before it to the first one after. */
function gapAround(pcm: Buffer, rate: number, at: number): number {
  const s = samplesOf(pcm);
  const loud = 32768 * Math.pow(10, -45 / 20);
  let a = Math.round(at * rate);
  let b = a;
  while (a > 0 && Math.abs(s[a]!) < loud) a--;
  while (b < s.length - 1 && Math.abs(s[b]!) < loud) b++;
  return (b - a) / rate;
}

describe.each(DIALECTS)('text-to-dialogue: joins, loudness and charge (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let accountId: string;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    c = new Client(t.url);
    ({
      account: { id: accountId },
    } = await c.anonymous());
    await t.ctx.db.kysely
      .transaction()
      .execute((trx) => t.ctx.credits.grantOnce(trx, accountId, `test:${accountId}`, 50_000, 'test'));
    key = ((await c.put('/api/authorization', { name: 'dialogue' })).body as { key: string }).key;
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (path: string, body: unknown, query = '') =>
    fetch(`${t.url}/v1/text-to-dialogue${path}${query}`, {
      method: 'POST',
      headers: { 'xi-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const ledgerAtRest = async () => {
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    const balance = await t.ctx.credits.balance(accountId);
    expect(balance).toBe(await t.ctx.credits.ledgerSum(accountId));
    return balance;
  };

  it('joins turns with a short pause within a speaker and a longer one at a change, eSpeak NG and Flite equally loud', async () => {
    const res = await post('/with-timestamps', { inputs: INPUTS }, '?output_format=pcm_24000');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { audio_base64: string; voice_segments: Segment[]; alignment: { characters: string[] } };
    const pcm = Buffer.from(body.audio_base64, 'base64');
    const segments = body.voice_segments;
    expect(segments).toHaveLength(4);
    expect(body.alignment.characters.join('')).toBe(INPUTS.map((i) => i.text).join(''));
    const gaps = segments
      .slice(1)
      .map((s, i) => gapAround(pcm, 24000, (segments[i]!.end_time_seconds + s.start_time_seconds) / 2));
    // Within a speaker's run about 250 ms, at a change about 500 ms (silence below -45 dBFS, the turns' own quiet edges included).
    expect(gaps[0]).toBeGreaterThanOrEqual(0.24);
    expect(gaps[0]).toBeLessThan(0.27);
    for (const gap of gaps.slice(1)) {
      expect(gap).toBeGreaterThanOrEqual(0.49);
      expect(gap).toBeLessThan(0.52);
    }
    // Each turn's loudness (BS.1770 integrated) within 1 LU of the others, across the two engines.
    const lufs = segments.map((s) =>
      pcmLoudness(pcm.subarray(Math.round(s.start_time_seconds * 24000) * 2, Math.round(s.end_time_seconds * 24000) * 2), 24000),
    );
    // The figures bench/history.md reports, printed with the run.
    console.log(
      `[dialogue] silence at the joins ${gaps.map((g) => g.toFixed(3)).join(', ')} s; loudness ${lufs.map((l) => l.toFixed(2)).join(', ')} LUFS`,
    );
    expect(Math.max(...lufs) - Math.min(...lufs)).toBeLessThanOrEqual(1);
    for (const l of lufs) expect(Math.abs(l - -16)).toBeLessThanOrEqual(1);
    await ledgerAtRest();
  });

  it('charges the characters of every input once, as /tts/estimate priced them, in one ledger entry', async () => {
    const estimate = (await c.post('/tts/estimate', { inputs: INPUTS })).body as { credits: number; characters: number };
    expect(estimate.characters).toBe(INPUTS.reduce((n, i) => n + i.text.replace(/\s/g, '').length, 0));
    // The sum of the turns priced one by one.
    let sum = 0;
    for (const i of INPUTS) sum += ((await c.post('/tts/estimate', i)).body as { credits: number }).credits;
    expect(estimate.credits).toBe(sum);
    const before = await ledgerAtRest();
    const entries = async () =>
      (await t.ctx.db.kysely.selectFrom('credit_ledger').select('id').where('account_id', '=', accountId).execute()).length;
    // One request of one voice writes as many ledger entries as one dialogue.
    let rows = await entries();
    const single = await c.post('/tts', { text: INPUTS[0]!.text, voice_id: ESPEAK });
    expect(single.status).toBe(200);
    await ledgerAtRest();
    const perRequest = (await entries()) - rows;
    rows = await entries();
    const afterSingle = await ledgerAtRest();
    const res = await post('', { inputs: INPUTS, output_format: 'wav_16000' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-charged')).toBe(String(estimate.credits));
    expect(res.headers.get('character-cost')).toBe(String(estimate.characters));
    const wav = Buffer.from(await res.arrayBuffer());
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(before - afterSingle).toBe(
      sum - (sum - ((await c.post('/tts/estimate', INPUTS[0])).body as { credits: number }).credits),
    );
    expect(await ledgerAtRest()).toBe(afterSingle - estimate.credits);
    expect(await entries()).toBe(rows + perRequest);
  });

  it('a client that leaves a stream pays for the turns it received, not the rest', async () => {
    // Texts of this test alone (nothing cached), long enough that the first turn leaves well before the last is made.
    const many = [...INPUTS, ...INPUTS].map((input, i) => ({
      ...input,
      text: `${dialect} turn ${i + 1}. ${input.text} ${'And then we talked about the weather.'}`,
    }));
    const priced = await c.post('/tts/estimate', { inputs: many });
    expect(priced.status, JSON.stringify(priced.body)).toBe(200);
    const full = (priced.body as { credits: number }).credits;
    const before = await ledgerAtRest();
    const controller = new AbortController();
    const res = await fetch(`${t.url}/v1/text-to-dialogue/stream?output_format=pcm_24000`, {
      method: 'POST',
      headers: { 'xi-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: many }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    const after = await ledgerAtRest();
    // What it paid is the price of the first k turns (k < all of them): the turns handed on before it left.
    const prefixes = [0];
    for (const input of many)
      prefixes.push(prefixes.at(-1)! + ((await c.post('/tts/estimate', input)).body as { credits: number }).credits);
    expect(prefixes.at(-1)).toBe(full);
    expect(prefixes.slice(0, -1)).toContain(before - after);
  });

  it("speaks the account's own mixed voice beside a library one, and refuses a dialogue with one refused turn", async () => {
    const mix = await c.put('/voice', {
      type: 'mix',
      name: 'Blend',
      model: 'espeak-ng',
      mix: [
        { voice_id: 'voice_espeak.en-us', weight: 1 },
        { voice_id: 'voice_espeak.en-us~f4', weight: 1 },
      ],
    });
    expect(mix.status, JSON.stringify(mix.body)).toBe(201);
    const mine = (mix.body as { id: string }).id;
    const res = await post('/with-timestamps', {
      inputs: [
        { text: `${dialect}: a voice of my own.`, voice_id: mine },
        { text: 'And one from the library.', voice_id: FLITE },
      ],
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { voice_segments: Segment[] };
    expect(body.voice_segments.map((s) => s.voice_id)).toEqual([mine, FLITE]);
    const before = await ledgerAtRest();
    // The second turn is refused by moderation: the whole dialogue is, before anything is held.
    const refused = await post(
      '',
      {
        inputs: [
          { text: 'A calm first line.', voice_id: ESPEAK },
          { text: 'Read this: f.u.c.k and more', voice_id: FLITE },
        ],
      },
      '?lang=zh-CN',
    );
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'CONTENT_REFUSED',
      message: '该内容无法在本服务合成，未扣除任何额度',
    });
    expect(await ledgerAtRest()).toBe(before);
  });

  it("refuses in the request's language: an 11th voice, a text over the limit; nothing held", async () => {
    const before = await ledgerAtRest();
    const voices = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'].map((v) => `voice_espeak.x-${v}`);
    const res = await post('', { inputs: voices.map((voice_id) => ({ text: 'Hi.', voice_id })) }, '?lang=zh-CN');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.message).toContain('最多 10 个不同的声音');
    const long = 'word '.repeat(700);
    const tooLong = await post('', {
      inputs: [
        { text: long, voice_id: ESPEAK },
        { text: long, voice_id: FLITE },
      ],
    });
    expect(tooLong.status).toBe(422);
    expect(((await tooLong.json()) as { error: { code: string } }).error.code).toBe('TEXT_TOO_LONG');
    // The estimate takes `inputs` or `text` and `voice_id`: without either, the text is missing.
    const missing = await c.post('/tts/estimate', { voice_id: ESPEAK });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: { code: 'PARAMETERS_NEEDED' } });
    // A second anonymous account on a device that had its trial: no credits, on every form of the route.
    await new Client(t.url).anonymous('web-dialogue-device');
    const broke = new Client(t.url);
    await broke.anonymous('web-dialogue-device');
    const brokeKey = ((await broke.put('/api/authorization', { name: 'broke' })).body as { key: string }).key;
    for (const path of ['', '/stream', '/with-timestamps', '/stream/with-timestamps']) {
      const poor = await fetch(`${t.url}/v1/text-to-dialogue${path}`, {
        method: 'POST',
        headers: { 'xi-api-key': brokeKey, 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: INPUTS }),
      });
      expect(poor.status, path).toBe(402);
      expect(((await poor.json()) as { error: { code: string } }).error.code).toBe('INSUFFICIENT_BALANCE');
    }
    expect(await ledgerAtRest()).toBe(before);
  });
});
