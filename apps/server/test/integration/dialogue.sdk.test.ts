/** ElevenLabs' text-to-dialogue routes through the official SDK, unchanged but for its base URL and key. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { readAigcValues } from '@polyvox/speech/formats';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { decodedSeconds } from '../support/audio.js';
import { eventually } from '../support/leave.js';

const INPUTS = [
  { text: 'Good morning. Did you sleep well?', voiceId: 'voice_espeak.en-us' },
  { text: 'Not really, the storm kept me up.', voiceId: 'voice_flite.slt' },
  { text: 'I am sorry to hear that.', voiceId: 'voice_espeak.en-us' },
];
const TEXT = INPUTS.map((i) => i.text).join('');

interface Segment {
  voiceId: string;
  startTimeSeconds: number;
  endTimeSeconds: number;
  characterStartIndex: number;
  characterEndIndex: number;
  dialogueInputIndex: number;
}

/** One segment per input, in order, their characters contiguous over the joined texts, their times ordered with gaps. */
function expectSegments(segments: Segment[], seconds: number): void {
  expect(segments.map((s) => s.voiceId)).toEqual(INPUTS.map((i) => i.voiceId));
  expect(segments.map((s) => s.dialogueInputIndex)).toEqual([0, 1, 2]);
  let chars = 0;
  let time = 0;
  segments.forEach((s, i) => {
    expect(s.characterStartIndex).toBe(chars);
    expect(s.characterEndIndex - s.characterStartIndex).toBe(INPUTS[i]!.text.length);
    expect(s.startTimeSeconds).toBeGreaterThan(i === 0 ? -0.001 : time + 0.15);
    expect(s.endTimeSeconds).toBeGreaterThan(s.startTimeSeconds + 0.5);
    chars = s.characterEndIndex;
    time = s.endTimeSeconds;
  });
  expect(time).toBeLessThanOrEqual(seconds + 0.1);
}

describe.each(DIALECTS)('ElevenLabs text-to-dialogue through the official SDK (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let eleven: ElevenLabsClient;
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 50_000, 'dialogue'));
    eleven = new ElevenLabsClient({ apiKey: key.key, baseUrl: t.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await t.close();
  });

  const records = async () =>
    (await c.get(`/api/credits/records?api_key=${key.id}&page_size=100`)).body.items as { type: string; amount: number }[];
  const recordsWhen = async (n: number) => {
    let list = await records();
    expect(await eventually(async () => (list = await records()).length >= n)).toBe(true);
    return list;
  };

  it('convert and stream answer one labelled mp3 of every turn, each charged the estimate of its inputs', async () => {
    const estimate = (await c.post('/tts/estimate', { inputs: INPUTS.map((i) => ({ text: i.text, voice_id: i.voiceId })) }))
      .body as { credits: number; characters: number };
    expect(estimate.characters).toBe(TEXT.replace(/\s/g, '').length);
    for (const call of [
      () => eleven.textToDialogue.convert({ inputs: INPUTS }),
      () => eleven.textToDialogue.stream({ inputs: INPUTS }),
    ]) {
      const before = (await records()).length;
      const parts: Buffer[] = [];
      for await (const chunk of (await call()) as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(chunk));
      const audio = Buffer.concat(parts);
      expect(audio.subarray(0, 3).toString('latin1')).toBe('ID3');
      expect(readAigcValues(audio).length).toBeGreaterThan(0);
      // Three turns and two pauses: longer than any one of them.
      expect(await decodedSeconds(audio)).toBeGreaterThan(4);
      const [charge] = await recordsWhen(before + 1);
      expect(charge).toMatchObject({ type: 'api', amount: -estimate.credits });
    }
  });

  it('convertWithTimestamps answers the alignment of the joined texts and one voice segment per input', async () => {
    const res = await eleven.textToDialogue.convertWithTimestamps({ inputs: INPUTS, outputFormat: 'pcm_24000' });
    const seconds = Buffer.from(res.audioBase64, 'base64').length / 2 / 24000;
    expect(res.alignment!.characters.join('')).toBe(TEXT);
    expectSegments(res.voiceSegments, seconds);
    // Each character inside its input's segment.
    for (const s of res.voiceSegments)
      for (let i = s.characterStartIndex; i < s.characterEndIndex; i++) {
        expect(res.alignment!.characterStartTimesSeconds[i]).toBeGreaterThanOrEqual(s.startTimeSeconds);
        expect(res.alignment!.characterEndTimesSeconds[i]).toBeLessThanOrEqual(s.endTimeSeconds);
      }
  });

  it('streamWithTimestamps sends each turn as it is made, with its characters and segment', async () => {
    const stream = await eleven.textToDialogue.streamWithTimestamps({ inputs: INPUTS, outputFormat: 'pcm_16000' });
    const parts: Buffer[] = [];
    const segments: Segment[] = [];
    const characters: string[] = [];
    let lines = 0;
    for await (const chunk of stream) {
      lines++;
      parts.push(Buffer.from(chunk.audioBase64, 'base64'));
      segments.push(...chunk.voiceSegments);
      if (chunk.alignment) characters.push(...chunk.alignment.characters);
    }
    // At least one line per turn: the first leaves before the last is made.
    expect(lines).toBeGreaterThanOrEqual(3);
    expect(characters.join('')).toBe(TEXT);
    expectSegments(segments, Buffer.concat(parts).length / 2 / 16000);
  });

  it('are in the OpenAPI document: the JSON answer with voice segments, and the stream as lines of it', async () => {
    const doc = (await c.get('/openapi.json')).body;
    const ok = (path: string) => doc.paths[path].post.responses['200'].content;
    const whole = ok('/v1/text-to-dialogue/with-timestamps')['application/json'].schema;
    const line = ok('/v1/text-to-dialogue/stream/with-timestamps')['application/x-ndjson'].schema;
    for (const schema of [whole, line])
      expect(Object.keys(schema.properties)).toEqual(['audio_base64', 'alignment', 'normalized_alignment', 'voice_segments']);
    for (const path of ['/v1/text-to-dialogue', '/v1/text-to-dialogue/stream'])
      expect(doc.paths[path].post.tags, path).toEqual(['elevenlabs']);
    // The estimate takes a dialogue's inputs.
    expect(Object.keys(doc.paths['/tts/estimate'].post.requestBody.content['application/json'].schema.properties)).toContain(
      'inputs',
    );
  });

  it('refuses an unknown voice and an 11th distinct voice before anything is held', async () => {
    const rows = async () => (await t.ctx.db.kysely.selectFrom('credit_ledger').select('id').execute()).length;
    const before = await rows();
    const missing = await eleven.textToDialogue
      .convert({ inputs: [{ text: 'Hi.', voiceId: 'voice_nope' }] })
      .catch((e: unknown) => e);
    expect((missing as ElevenLabsError).statusCode).toBe(404);
    const voices = [
      'voice_espeak.en-us',
      'voice_espeak.en-gb',
      'voice_flite.slt',
      'voice_flite.awb',
      'voice_flite.rms',
      'voice_flite.kal',
      'voice_espeak.en-gb-scotland',
      'voice_espeak.en-029',
      'voice_espeak.en-gb-x-rp',
      'voice_espeak.en-us-nyc',
      'voice_espeak.en-gb-x-gbclan',
    ];
    const eleventh = await eleven.textToDialogue
      .convert({ inputs: voices.map((voiceId) => ({ text: 'Hello.', voiceId })) })
      .catch((e: unknown) => e);
    expect((eleventh as ElevenLabsError).statusCode).toBe(400);
    expect((eleventh as ElevenLabsError).body).toMatchObject({
      error: { code: 'VALIDATION_FAILED', message: expect.stringContaining('at most 10 distinct voices') },
    });
    expect(await rows()).toBe(before);
  });
});
