import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds } from '../support/leave.js';

const ESPEAK = 'voice_espeak.en-us';

describe.each(DIALECTS)('POST /tts/normalize shows what will be spoken (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let dict: { id: string; version_id: string };
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 100_000, 'normalize'));
    dict = (
      await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
        name: 'Shown',
        rules: [
          { type: 'alias', string_to_replace: 'UN', alias: 'United Nations' },
          { type: 'phoneme', string_to_replace: 'Bob', phoneme: 'bɑb', alphabet: 'ipa' },
        ],
      })
    ).body;
  });
  afterAll(async () => {
    await t.close();
  });

  /** The balance and today's figures once every hold is settled (a file's is, just after its reply is written out). */
  const balance = async () => {
    const accountId = (await c.get('/accounts/me')).body.id as string;
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    return (await c.get('/api/statistics/current')).body;
  };
  const normalize = (body: object, client = c) => client.post('/tts/normalize', { voice_id: ESPEAK, ...body });

  it('answers the normalised sentences, with dictionaries applied, and charges nothing', async () => {
    const before = await balance();
    const res = await normalize({
      text: 'Dr. Smith paid $3.50 on 2024-03-05. The UN met Bob at 3:30 pm!',
      pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dict.id }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.sentences).toHaveLength(2);
    expect(res.body.text).toBe(res.body.sentences.join(' '));
    expect(res.body.sentences[0]).toBe('Doctor Smith paid three dollars and fifty cents on March fifth, twenty twenty-four.');
    // The alias as words; the phoneme rule as the eSpeak NG phonemes the engine receives.
    expect(res.body.sentences[1]).toMatch(/^The United Nations met \[\[[^\]]+\]\] at three thirty p m!$/);
    expect(res.body.language).toMatch(/^en/);
    expect(res.body.characters).toBeGreaterThan(0);
    // An API key works as on /tts/estimate; nothing is held, charged or recorded.
    const keyed = await c.post(
      '/tts/normalize',
      { text: 'It is 25°C.', voice_id: ESPEAK },
      { authorization: `Bearer ${key.key}` },
    );
    expect(keyed.status).toBe(200);
    expect(keyed.body.text).toBe('It is twenty-five degrees Celsius.');
    expect(await balance()).toEqual(before);
  });

  it('is the same plan synthesis uses: "off" leaves digits as written, and /tts takes the field', async () => {
    const off = await normalize({ text: 'Call  me at 3:30 on 2024-03-05, $5.', apply_text_normalization: 'off' });
    expect(off.status).toBe(200);
    expect(off.body.text).toBe('Call me at 3:30 on 2024-03-05, $5.');
    const on = await normalize({ text: '12 apples.', apply_text_normalization: 'on' });
    expect(on.body.text).toBe('twelve apples.');
    const zh = await normalize({ text: '2024年3月5日，买了2个苹果。', voice_id: 'voice_espeak.cmn' });
    expect(zh.status, JSON.stringify(zh.body)).toBe(200);
    expect(zh.body.text).toBe('二零二四年三月五日，买了两个苹果。');
    // What /tts reads (its normalized alignment) is what /tts/normalize showed, in either mode.
    for (const mode of ['off', 'auto']) {
      const shown = await normalize({ text: 'Room 12.', apply_text_normalization: mode });
      const tts = await c.post('/tts', {
        text: 'Room 12.',
        voice_id: ESPEAK,
        format: 'wav',
        timestamps: true,
        apply_text_normalization: mode,
      });
      expect(tts.status).toBe(200);
      expect(tts.body.normalized_alignment.characters.join('').trim()).toBe(shown.body.text);
    }
    // ElevenLabs' body takes it too.
    const eleven = await fetch(`${t.url}/v1/text-to-speech/${ESPEAK}/with-timestamps`, {
      method: 'POST',
      headers: { 'xi-api-key': key.key, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Room 12.', apply_text_normalization: 'off' }),
    });
    expect(eleven.status).toBe(200);
    const elevenBody = (await eleven.json()) as { normalized_alignment: { characters: string[] } };
    expect(elevenBody.normalized_alignment.characters.join('')).toContain('12');
    const estimate = await c.post('/tts/estimate', { text: 'Room 12.', voice_id: ESPEAK, apply_text_normalization: 'off' });
    expect(estimate.status).toBe(200);
  });

  it('is documented: what it shows, and apply_text_normalization on the speech routes', async () => {
    const doc = (await c.get('/openapi.json')).body;
    const route = doc.paths['/tts/normalize'].post;
    expect(route.description).toContain('[[…]]');
    expect(route.description).toContain('apply_text_normalization');
    expect(JSON.stringify(route.responses['404'])).toContain('#/components/schemas/Error');
    for (const path of ['/tts', '/tts/estimate', '/tts/jobs', '/v1/text-to-speech/{voice_id}'])
      expect(JSON.stringify(doc.paths[path].post.requestBody), path).toContain('apply_text_normalization');
  });

  it('refuses as synthesis would, before anything is charged', async () => {
    const before = await balance();
    expectError(await c.post('/tts/normalize', { text: 'Hello.' }), 'PARAMETERS_NEEDED');
    expectError(await normalize({ text: 'Hello.', voice_id: 'voice_nope' }), 'NOT_FOUND');
    expectError(await normalize({ text: 'Hello.', apply_text_normalization: 'sometimes' }), 'VALIDATION_FAILED');
    expectError(
      await c.post('/tts', { text: 'Hello.', voice_id: ESPEAK, apply_text_normalization: 'maybe' }),
      'VALIDATION_FAILED',
    );
    expectError(await normalize({ text: 42 }), 'VALIDATION_FAILED');
    expectError(await normalize({ text: 'Hello.', text_type: 'html' }), 'VALIDATION_FAILED');
    expectError(await normalize({ text: '   ' }), 'VALIDATION_FAILED');
    expectError(
      await normalize({ text: 'Hello.', pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'pd_nope' }] }),
      'NOT_FOUND',
    );
    // Another account's dictionary answers 404, as a missing one does.
    const other = new Client(t.url);
    await other.anonymous();
    expectError(
      await normalize(
        { text: 'Hello UN.', pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dict.id }] },
        other,
      ),
      'NOT_FOUND',
    );
    expectError(await new Client(t.url).post('/tts/normalize', { text: 'Hello.', voice_id: ESPEAK }), 'UNAUTHENTICATED');
    expect(await balance()).toEqual(before);
  });
});
