/** ElevenLabs' timestamp routes through the official SDK, unchanged but for its base URL and key. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { readAigcValues } from '@polyvox/speech/formats';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { elevenLabsError, keyedApp, postWithKey } from '../support/sdk.js';
import { decodedSeconds } from '../support/audio.js';
import { eventually } from '../support/leave.js';

const TEXT = 'The quick brown fox, who was tired, went home. Then it slept for 3 hours!';
const VOICE = 'voice_espeak.en-us';

interface Alignment {
  characters: string[];
  characterStartTimesSeconds: number[];
  characterEndTimesSeconds: number[];
}

/** Every character's interval ordered and inside the audio (with an mp3 decoder's padding of a few frames). */
function expectAligned(a: Alignment, text: string, durationSec: number): void {
  expect(a.characters.join('')).toBe(text);
  expect(a.characterStartTimesSeconds).toHaveLength(a.characters.length);
  expect(a.characterEndTimesSeconds).toHaveLength(a.characters.length);
  let prev = 0;
  a.characters.forEach((c, i) => {
    const s = a.characterStartTimesSeconds[i]!;
    const e = a.characterEndTimesSeconds[i]!;
    expect(s, `${c} at ${i}`).toBeGreaterThanOrEqual(prev);
    expect(e, `${c} at ${i}`).toBeGreaterThanOrEqual(s);
    expect(e, `${c} at ${i}`).toBeLessThanOrEqual(durationSec + 0.1);
    prev = s;
  });
  // Speech, not one point: the last word ends well after the first begins.
  expect(a.characterEndTimesSeconds.at(-1)! - a.characterStartTimesSeconds[0]!).toBeGreaterThan(0.5);
}

describe.each(DIALECTS)('ElevenLabs timestamp routes through the official SDK (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let eleven: ElevenLabsClient;
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 50_000, 'timestamps'));
    eleven = new ElevenLabsClient({ apiKey: key.key, baseUrl: t.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await t.close();
  });

  const records = async () =>
    (await c.get(`/api/credits/records?api_key=${key.id}&page_size=100`)).body.items as {
      type: string;
      amount: number;
      api_key_id: string;
    }[];
  /** The records once there are `n` of them: a streamed answer's charge settles as its last bytes leave, so a
   * client that has read them may ask before the record is written. */
  const recordsWhen = async (n: number) => {
    let list = await records();
    expect(await eventually(async () => (list = await records()).length >= n)).toBe(true);
    return list;
  };
  const ledgerRows = async () => (await t.ctx.db.kysely.selectFrom('credit_ledger').select('id').execute()).length;

  it('convertWithTimestamps answers labelled audio and an alignment of the text, charged as convert is', async () => {
    const plain = await eleven.textToSpeech.convert(VOICE, { text: TEXT });
    for await (const chunk of plain as unknown as AsyncIterable<Uint8Array>) void chunk;
    const [convertCharge] = await recordsWhen(1);
    const res = await eleven.textToSpeech.convertWithTimestamps(VOICE, { text: TEXT, modelId: 'eleven_multilingual_v2' });
    const audio = Buffer.from(res.audioBase64, 'base64');
    // mp3, labelled in its ID3 tag as every file that leaves.
    expect(audio.subarray(0, 3).toString('latin1')).toBe('ID3');
    expect(readAigcValues(audio).length).toBeGreaterThan(0);
    const seconds = await decodedSeconds(audio);
    expectAligned(res.alignment!, TEXT, seconds);
    // The number as it was read.
    expect(res.normalizedAlignment!.characters.join('')).toContain('three');
    expectAligned(res.normalizedAlignment!, res.normalizedAlignment!.characters.join(''), seconds);
    const [charge] = await recordsWhen(2);
    expect(charge).toMatchObject({ type: 'api', api_key_id: key.id });
    expect(charge!.amount).toBe(convertCharge!.amount);
    expect(charge!.amount).toBeLessThan(0);
  });

  it('a pcm_16000 answer is as long as its alignment says', async () => {
    const res = await eleven.textToSpeech.convertWithTimestamps(VOICE, {
      text: 'Hello there, my friend.',
      outputFormat: 'pcm_16000',
    });
    const pcm = Buffer.from(res.audioBase64, 'base64');
    const seconds = pcm.length / 2 / 16000;
    expect(pcm.length % 2).toBe(0);
    expect(seconds).toBeGreaterThan(1);
    expectAligned({ ...res.alignment! }, 'Hello there, my friend.', seconds);
    // Its charge is settled after the answer: wait for it, so the next test counts from a ledger at rest.
    await recordsWhen(3);
  });

  it('streamWithTimestamps sends pieces of the audio with the characters each holds, charged as convert is', async () => {
    const text = `${TEXT} ${TEXT}`;
    const before = (await records()).length;
    const stream = await eleven.textToSpeech.streamWithTimestamps(VOICE, { text });
    const parts: Buffer[] = [];
    const all: Alignment = { characters: [], characterStartTimesSeconds: [], characterEndTimesSeconds: [] };
    let chunks = 0;
    const pieces: string[] = [];
    for await (const chunk of stream) {
      chunks++;
      parts.push(Buffer.from(chunk.audioBase64, 'base64'));
      if (chunk.alignment?.characters.length) pieces.push(chunk.alignment.characters.join(''));
      if (chunk.alignment) {
        all.characters.push(...chunk.alignment.characters);
        all.characterStartTimesSeconds.push(...chunk.alignment.characterStartTimesSeconds);
        all.characterEndTimesSeconds.push(...chunk.alignment.characterEndTimesSeconds);
      }
    }
    expect(chunks).toBeGreaterThan(1);
    // Sent as it is made: characters come a sentence (or a batch of sentences) at a time, once their times are known.
    for (const piece of pieces.slice(0, -1)) expect(piece.trim()).toMatch(/[.!]$/);
    expect(pieces.join('')).toBe(text);
    const audio = Buffer.concat(parts);
    expect(readAigcValues(audio).length).toBeGreaterThan(0);
    expectAligned(all, text, await decodedSeconds(audio));
    const list = await recordsWhen(before + 1);
    expect(list.length).toBe(before + 1);
    const plain = await eleven.textToSpeech.convert(VOICE, { text });
    for await (const chunk of plain as unknown as AsyncIterable<Uint8Array>) void chunk;
    const [convertCharge, streamCharge] = await recordsWhen(before + 2);
    expect(streamCharge!.amount).toBe(convertCharge!.amount);
  });

  it("a Flite voice, whose engine reports no word times, is aligned against eSpeak NG's rendering", async () => {
    const text = 'Hello there, my friend. How are you today?';
    const res = await eleven.textToSpeech.convertWithTimestamps('voice_flite.slt', { text, outputFormat: 'wav_16000' });
    const wav = Buffer.from(res.audioBase64, 'base64');
    const seconds = await decodedSeconds(wav);
    expectAligned(res.alignment!, text, seconds);
    // 'How' starts after 'friend.' ends, and in the second half of the audio.
    const a = res.alignment!;
    const at = (i: number) => a.characterStartTimesSeconds[i]!;
    expect(at(text.indexOf('How'))).toBeGreaterThan(a.characterEndTimesSeconds[text.indexOf('friend') + 5]!);
    expect(at(text.indexOf('How'))).toBeGreaterThan(seconds * 0.35);
  });

  it('are in the OpenAPI document: the JSON answer, and the stream as lines of it', async () => {
    const doc = (await c.get('/openapi.json')).body;
    const ok = (path: string) => doc.paths[path].post.responses['200'].content;
    const whole = ok('/v1/text-to-speech/{voice_id}/with-timestamps')['application/json'].schema;
    const line = ok('/v1/text-to-speech/{voice_id}/stream/with-timestamps')['application/x-ndjson'].schema;
    for (const schema of [whole, line])
      expect(Object.keys(schema.properties)).toEqual(['audio_base64', 'alignment', 'normalized_alignment']);
    expect(doc.paths['/v1/text-to-speech/{voice_id}/with-timestamps'].post.tags).toEqual(['elevenlabs']);
  });

  it('refuses as the plain routes do: an unknown voice, no credits, a bad format', async () => {
    const rows = await ledgerRows();
    for (const call of [
      () => eleven.textToSpeech.convertWithTimestamps('21m00Tcm4TlvDq8ikWAM', { text: 'Hi.' }),
      async () => {
        for await (const chunk of await eleven.textToSpeech.streamWithTimestamps('voice_nope', { text: 'Hi.' })) void chunk;
      },
    ]) {
      const missing = await call().catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(ElevenLabsError);
      expect((missing as ElevenLabsError).statusCode).toBe(404);
      expect((missing as ElevenLabsError).body).toMatchObject({ detail: { status: 'not_found' }, error: { code: 'NOT_FOUND' } });
    }

    expect(await ledgerRows()).toBe(rows);

    // A second anonymous account on a device that had its trial: no credits.
    await new Client(t.url).anonymous('web-timestamps-device');
    const broke = new Client(t.url);
    await broke.anonymous('web-timestamps-device');
    const brokeKey = (await broke.put('/api/authorization', { name: 'broke' })).body as { key: string };
    const poor = new ElevenLabsClient({ apiKey: brokeKey.key, baseUrl: t.url, maxRetries: 0 });
    const after = await ledgerRows();
    for (const path of ['with-timestamps', 'stream/with-timestamps']) {
      const res = await postWithKey(`${t.url}/v1/text-to-speech/${VOICE}/${path}`, brokeKey.key, { text: 'Hello there.' });
      expect(res, path).toMatchObject({ status: 402, body: elevenLabsError('INSUFFICIENT_BALANCE') });
    }
    const refused = await poor.textToSpeech.convertWithTimestamps(VOICE, { text: 'Hello there.' }).catch((e: unknown) => e);
    expect((refused as ElevenLabsError).statusCode).toBe(402);

    // A format ElevenLabs does not have (the SDK refuses one before sending it, so asked without the SDK).
    const badFormat = await postWithKey(`${t.url}/v1/text-to-speech/${VOICE}/with-timestamps?output_format=flac_44100`, key.key, {
      text: 'Hi.',
    });
    expect(badFormat).toMatchObject({ status: 400, body: elevenLabsError('VALIDATION_FAILED') });

    expect(await ledgerRows()).toBe(after);
  });
});
