import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';

/** Reads a web stream to its end, counting the chunks it came in. */
async function drain(stream: ReadableStream<Uint8Array>): Promise<{ bytes: Buffer; chunks: number }> {
  const parts: Buffer[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(chunk));
  return { bytes: Buffer.concat(parts), chunks: parts.length };
}

const TEXT = 'The quick brown fox jumps over the lazy dog. Then it runs back home.';

describe.each(DIALECTS)('official SDKs pointed at Polyvox (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let openai: OpenAI;
  let eleven: ElevenLabsClient;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    c = new Client(t.url);
    await c.anonymous();
    key = (await c.put('/api/authorization', { name: 'sdk' })).body;
    openai = new OpenAI({ apiKey: key.key, baseURL: `${t.url}/v1`, maxRetries: 0 });
    eleven = new ElevenLabsClient({ apiKey: key.key, baseUrl: t.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await t.close();
  });

  const records = async () => (await c.get(`/api/credits/records?api_key=${key.id}&page_size=100`)).body;

  it('openai.audio.speech.create answers mp3, wav, opus and pcm for OpenAI voice names and Polyvox ids', async () => {
    const cases = [
      ['mp3', 'alloy'],
      ['wav', 'onyx'],
      ['opus', 'voice_flite.awb'],
      ['pcm', 'marin'],
    ] as const;
    for (const [format, voice] of cases) {
      const res = await openai.audio.speech.create({ model: 'gpt-4o-mini-tts', voice, input: TEXT, response_format: format });
      expect(res.status).toBe(200);
      const audio = Buffer.from(await res.arrayBuffer());
      expect(await decodedSeconds(audio, format === 'opus' ? undefined : format)).toBeGreaterThan(2);
    }
    const custom = await openai.audio.speech.create({ model: 'tts-1', voice: { id: 'voice_flite.rms' }, input: 'Hello.' });
    expect(custom.headers.get('content-type')).toBe('audio/mpeg');
    const list = await records();
    expect(
      list.items.slice(0, 5).every((r: { type: string; api_key_id: string }) => r.type === 'api' && r.api_key_id === key.id),
    ).toBe(true);
  });

  it('streams through the openai client: the body arrives in chunks as it is made', async () => {
    const response = await openai.audio.speech
      .create({ model: 'tts-1', voice: 'echo', input: `${TEXT} ${TEXT}`, response_format: 'mp3' })
      .asResponse();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const { bytes, chunks } = await drain(response.body!);
    expect(chunks).toBeGreaterThan(1);
    expect(await decodedSeconds(bytes, 'mp3')).toBeGreaterThan(4);
  });

  it('the openai client sees an unknown voice and a bad key as errors it parses', async () => {
    await expect(openai.audio.speech.create({ model: 'tts-1', voice: 'nobody', input: 'Hi.' })).rejects.toMatchObject({
      status: 404,
    });
    const wrong = new OpenAI({ apiKey: 'pvx_not-a-key', baseURL: `${t.url}/v1`, maxRetries: 0 });
    const error = await wrong.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi.' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('ElevenLabs textToSpeech.convert and .stream answer audio for a Polyvox voice and key', async () => {
    const mp3 = await drain(
      await eleven.textToSpeech.convert('voice_flite.slt', { text: TEXT, modelId: 'eleven_multilingual_v2' }),
    );
    expect(await decodedSeconds(mp3.bytes, 'mp3')).toBeGreaterThan(2);

    const pcm = await drain(
      await eleven.textToSpeech.convert('voice_flite.kal16', {
        text: TEXT,
        outputFormat: 'pcm_24000',
        voiceSettings: { stability: 0.5, similarityBoost: 0.7, speed: 1.1 },
      }),
    );
    expect(await decodedSeconds(pcm.bytes, 'pcm')).toBeGreaterThan(2);

    const streamed = await drain(
      await eleven.textToSpeech.stream('voice_flite.awb', { text: `${TEXT} ${TEXT}`, outputFormat: 'mp3_44100_128' }),
    );
    expect(streamed.chunks).toBeGreaterThan(1);
    expect(await decodedSeconds(streamed.bytes, 'mp3')).toBeGreaterThan(4);

    const opus = await drain(
      await eleven.textToSpeech.convert('voice_flite.rms', { text: 'Hello there.', outputFormat: 'opus_48000_64' }),
    );
    expect(opus.bytes.subarray(0, 4).toString()).toBe('OggS');
    const list = await records();
    expect(
      list.items.slice(0, 4).every((r: { type: string; api_key_id: string }) => r.type === 'api' && r.api_key_id === key.id),
    ).toBe(true);
  });

  it('ElevenLabs pcm_<rate> formats are 16-bit PCM at that rate, whole or streamed', async () => {
    const at24 = await drain(await eleven.textToSpeech.convert('voice_flite.slt', { text: TEXT, outputFormat: 'pcm_24000' }));
    const seconds = at24.bytes.length / 2 / 24000;
    for (const [rate, stream] of [
      [16000, false],
      [8000, true],
      [44100, false],
    ] as const) {
      const call = stream
        ? eleven.textToSpeech.stream.bind(eleven.textToSpeech)
        : eleven.textToSpeech.convert.bind(eleven.textToSpeech);
      const out = await drain(await call('voice_flite.slt', { text: TEXT, outputFormat: `pcm_${rate}` }));
      expect(out.bytes.length % 2).toBe(0);
      expect(Math.abs(out.bytes.length / 2 / rate - seconds)).toBeLessThan(0.01);
      // Real speech, not silence: the level of the 24 kHz original survives.
      let sum = 0;
      for (let i = 0; i < out.bytes.length; i += 2) sum += (out.bytes.readInt16LE(i) / 32768) ** 2;
      expect(Math.sqrt(sum / (out.bytes.length / 2))).toBeGreaterThan(0.02);
    }
  });

  it('ElevenLabs voices.getAll lists the library in ElevenLabs shape', async () => {
    const { voices } = await eleven.voices.getAll();
    expect(voices.length).toBeGreaterThan(500);
    const slt = voices.find((v) => v.voiceId === 'voice_flite.slt');
    expect(slt).toMatchObject({ category: 'premade', labels: expect.objectContaining({ gender: 'female' }) });
    expect(slt?.previewUrl).toMatch(/\.mp3$/);
  });

  it('ElevenLabs errors reach the SDK with their status and body', async () => {
    const missing = await eleven.textToSpeech.convert('21m00Tcm4TlvDq8ikWAM', { text: 'Hi.' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ElevenLabsError);
    expect((missing as ElevenLabsError).statusCode).toBe(404);
    expect((missing as ElevenLabsError).body).toMatchObject({ detail: { status: 'not_found' }, error: { code: 'NOT_FOUND' } });
    const badFormat = await eleven.textToSpeech
      .convert('voice_flite.slt', { text: 'Hi.', outputFormat: 'ulaw_8000' })
      .catch((e: unknown) => e);
    expect((badFormat as ElevenLabsError).statusCode).toBe(400);
    const noKey = new ElevenLabsClient({ apiKey: 'pvx_deleted', baseUrl: t.url, maxRetries: 0 });
    const denied = await noKey.voices.getAll().catch((e: unknown) => e);
    expect((denied as ElevenLabsError).statusCode).toBe(401);
  });
});
