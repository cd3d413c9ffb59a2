/** Remote providers against local servers that speak OpenAI's and ElevenLabs' wire formats. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '../src/audio/ffmpeg.ts';
import { estimateF0, semitonesBetween } from '../src/dsp/f0.ts';
import { concatFloat32 } from '../src/dsp/pcm.ts';
import { ElevenLabsEngine } from '../src/engines/elevenlabs.ts';
import { OpenAIEngine } from '../src/engines/openai.ts';
import { createSpeech } from '../src/speech.ts';
import type { Engine, VoiceInfo } from '../src/core/types.ts';
import { elevenLabsServer, openAIServer, SECONDS_PER_CHAR, VOICE_HZ, type ProviderServer } from './support/provider-servers.ts';

let openai: ProviderServer;
let eleven: ProviderServer;
beforeAll(async () => {
  openai = await openAIServer();
  eleven = await elevenLabsServer();
});
afterAll(async () => {
  await openai.close();
  await eleven.close();
});

async function speak(
  engine: Engine,
  voice: VoiceInfo,
  text: string,
  opts: { speed?: number; pitch?: number } = {},
): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  for await (const c of engine.synthesize({
    text,
    voice,
    speed: opts.speed ?? 1,
    pitch: opts.pitch ?? 0,
    profile: voice.profile,
  })) {
    expect(c.sampleRate).toBe(24000);
    parts.push(c.samples);
  }
  return concatFloat32(parts);
}

const TEXT = 'Hello from a remote provider.';

describe('OpenAI-compatible /v1/audio/speech', () => {
  const engine = (key: string): OpenAIEngine => new OpenAIEngine({ url: openai.url, key, model: 'tts-1' });
  const voice = (e: OpenAIEngine, id: string): VoiceInfo => e.listVoices().find((v) => v.variant === id)!;

  it("sends OpenAI's request and reads its PCM", async () => {
    const e = engine('good');
    const before = openai.requests.length;
    const samples = await speak(e, voice(e, 'alloy'), TEXT, { speed: 1.5 });
    const req = openai.requests[before]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/audio/speech');
    expect(req.headers.authorization).toBe('Bearer good');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ model: 'tts-1', input: TEXT, voice: 'alloy', response_format: 'pcm', speed: 1.5 });
    expect(samples.length / 24000).toBeCloseTo((TEXT.length * SECONDS_PER_CHAR) / 1.5, 1);
    expect(estimateF0(samples, 24000).median).toBeCloseTo(VOICE_HZ.alloy!, -0.5);
  });

  it('shifts pitch locally, which the API cannot do', async () => {
    const e = engine('good');
    const samples = await speak(e, voice(e, 'onyx'), TEXT, { pitch: 4 });
    expect(semitonesBetween(VOICE_HZ.onyx!, estimateF0(samples, 24000).median)).toBeCloseTo(4, 0);
  });

  it.each([
    ['bad', 'FORBIDDEN', 401],
    ['quota', 'INSUFFICIENT_BALANCE', 429],
    ['busy', 'RATE_LIMITED', 429],
    ['boom', 'INTERNAL', 500],
  ])('maps key %s to %s', async (key, code, status) => {
    const e = engine(key);
    const err = await speak(e, voice(e, 'alloy'), TEXT).catch((x: unknown) => x);
    expect(err).toMatchObject({ name: 'SpeechError', code, upstreamStatus: status });
    if (key === 'busy') expect(err).toMatchObject({ retryAfter: 7 });
  });

  it('maps a rejected parameter to VALIDATION_FAILED', async () => {
    const e = new OpenAIEngine({ url: openai.url, key: 'good', voices: [{ id: 'nope' }] });
    await expect(speak(e, e.listVoices()[0]!, TEXT)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      params: { reason: 'invalid_value' },
    });
  });
});

describe('ElevenLabs text to speech', () => {
  it("lists the account's voices and sends ElevenLabs' request", async () => {
    const e = new ElevenLabsEngine({ url: eleven.url, key: 'good' });
    const voices = await e.refreshVoices();
    expect(voices.map((v) => [v.id, v.name, v.gender])).toEqual([
      ['elevenlabs:v_rachel', 'Rachel', 'female'],
      ['elevenlabs:v_adam', 'Adam', 'male'],
    ]);
    const before = eleven.requests.length;
    const samples = await speak(e, voices[0]!, TEXT, { speed: 1.1 });
    const req = eleven.requests[before]!;
    expect(req.path).toBe('/v1/text-to-speech/v_rachel?output_format=pcm_24000');
    expect(req.headers['xi-api-key']).toBe('good');
    expect(req.body).toMatchObject({ text: TEXT, model_id: 'eleven_multilingual_v2', voice_settings: { speed: 1.1 } });
    expect(samples.length / 24000).toBeCloseTo((TEXT.length * SECONDS_PER_CHAR) / 1.1, 1);
    expect(estimateF0(samples, 24000).median).toBeCloseTo(VOICE_HZ.v_rachel!, -0.5);
  });

  it('keeps speed inside the API range and does the rest locally', async () => {
    const e = new ElevenLabsEngine({ url: eleven.url, key: 'good' });
    const [rachel] = await e.refreshVoices();
    const before = eleven.requests.length;
    const samples = await speak(e, rachel!, TEXT, { speed: 2 });
    expect((eleven.requests[before]!.body as { voice_settings: { speed: number } }).voice_settings.speed).toBe(1.2);
    expect(samples.length / 24000).toBeCloseTo((TEXT.length * SECONDS_PER_CHAR) / 2, 1);
    expect(estimateF0(samples, 24000).median).toBeCloseTo(VOICE_HZ.v_rachel!, -0.5);
  });

  it.each([
    ['bad', 'FORBIDDEN', 401],
    ['quota', 'INSUFFICIENT_BALANCE', 401],
    ['unpaid', 'INSUFFICIENT_BALANCE', 402],
    ['busy', 'RATE_LIMITED', 429],
  ])('maps key %s to %s', async (key, code, status) => {
    const good = new ElevenLabsEngine({ url: eleven.url, key: 'good' });
    const [rachel] = await good.refreshVoices();
    const e = new ElevenLabsEngine({ url: eleven.url, key });
    await expect(speak(e, rachel!, TEXT)).rejects.toMatchObject({ name: 'SpeechError', code, upstreamStatus: status });
  });

  it('maps an unknown voice to NOT_FOUND and a bad key on the voice list to FORBIDDEN', async () => {
    const e = new ElevenLabsEngine({ url: eleven.url, key: 'good' });
    const [rachel] = await e.refreshVoices();
    await expect(speak(e, { ...rachel!, variant: 'v_ghost' }, TEXT)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      params: { reason: 'voice_not_found' },
    });
    await expect(new ElevenLabsEngine({ url: eleven.url, key: 'bad' }).refreshVoices()).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });
});

describe('remote providers in the pipeline', () => {
  it('offers their voices in the library and synthesizes encoded audio', async () => {
    const speech = await createSpeech({
      poolSize: 1,
      warmup: false,
      remote: { openai: { url: openai.url, key: 'good', model: 'tts-1' }, elevenlabs: { url: eleven.url, key: 'good' } },
    });
    try {
      expect(speech.listModels().map((m) => m.id)).toEqual(
        expect.arrayContaining(['openai:tts-1', 'elevenlabs:eleven_multilingual_v2']),
      );
      expect(speech.getVoice('openai:nova')?.gender).toBe('female');
      const r = await speech.synthesize({
        text: 'First sentence here. Second one.',
        voiceId: 'elevenlabs:v_adam',
        format: 'mp3',
      });
      expect(r.sentences).toBe(2);
      const pcm = await decodeAudio(r.audio, 'mp3', 24000);
      expect(Math.abs(pcm.samples.length / 24000 - r.durationSec)).toBeLessThan(0.1);
      expect(estimateF0(pcm.samples, 24000).median).toBeCloseTo(VOICE_HZ.v_adam!, -0.5);
      await expect(speech.synthesize({ text: 'Hi.', voiceId: 'openai:nova', format: 'wav', speed: 1.2 })).resolves.toMatchObject({
        format: 'wav',
      });
    } finally {
      await speech.close();
    }
  });
});
