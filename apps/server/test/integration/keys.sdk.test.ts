import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readC2pa } from '../../src/provenance/c2pa-read.js';
import { parseWavHeader, readAigcValues } from '@polyvox/speech/formats';
import OpenAI from 'openai';
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { elevenLabsError, keyedApp, postWithKey } from '../support/sdk.js';
import { decodedSeconds, measureS16 } from '../support/audio.js';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { FFMPEG } from '@polyvox/speech';

/** ffmpeg's own reading of raw audio (`-f mulaw`, `-f alaw` …) as 16-bit samples at `rate`. */
async function ffmpegSamples(bytes: Buffer, input: string[], rate: number): Promise<Int16Array> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-g711-'));
  try {
    await fs.writeFile(path.join(dir, 'in'), bytes);
    await promisify(execFile)(FFMPEG, [
      '-v',
      'error',
      ...input,
      '-i',
      path.join(dir, 'in'),
      '-f',
      's16le',
      '-ac',
      '1',
      '-ar',
      String(rate),
      path.join(dir, 'out'),
    ]);
    const out = await fs.readFile(path.join(dir, 'out'));
    return new Int16Array(out.buffer, out.byteOffset, out.length / 2);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Signal-to-noise ratio of `b` against `a` in dB, over their common length. */
function snr(a: Int16Array, b: Int16Array): number {
  let signal = 0;
  let noise = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    signal += a[i]! ** 2;
    noise += (a[i]! - b[i]!) ** 2;
  }
  return 10 * Math.log10(signal / Math.max(noise, 1));
}

/** The fields of a 44-byte RIFF/WAVE header of PCM. */
function wavFields(bytes: Buffer) {
  // The fmt chunk first, then the AIGC label's LIST chunk, then data.
  const info = parseWavHeader(bytes)!;
  return {
    riff: bytes.subarray(0, 4).toString('latin1'),
    wave: bytes.subarray(8, 12).toString('latin1'),
    format: bytes.readUInt16LE(20),
    channels: bytes.readUInt16LE(22),
    rate: bytes.readUInt32LE(24),
    byteRate: bytes.readUInt32LE(28),
    bits: bytes.readUInt16LE(34),
    data: bytes.subarray(info.dataSizeOffset - 4, info.dataSizeOffset).toString('latin1'),
    dataBytes: bytes.readUInt32LE(info.dataSizeOffset),
    dataOffset: info.dataOffset,
    aigc: readAigcValues(bytes).length,
  };
}

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
    // Every format of both SDKs is a paid call: more than the trial's credits.
    ({ t, c, key } = await keyedApp(dialect, 200_000, 'sdk'));
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

  it('ElevenLabs voice_settings are heard on every route: stability 0 swings the pitch wider than 1; the defaults change nothing', async () => {
    const VOICE = 'voice_espeak.en-us';
    const SPOKEN = 'Do you really think so? I was sure the weather would hold until the evening, but look at it now!';
    const f0 = (pcm: Buffer) => measureS16(pcm);
    type Settings = { stability?: number; similarityBoost?: number; style?: number; useSpeakerBoost?: boolean };
    const routes: Record<string, (voiceSettings?: Settings) => Promise<Buffer>> = {
      convert: async (voiceSettings) =>
        (
          await drain(
            await eleven.textToSpeech.convert(VOICE, {
              text: SPOKEN,
              outputFormat: 'pcm_24000',
              ...(voiceSettings ? { voiceSettings } : {}),
            }),
          )
        ).bytes,
      stream: async (voiceSettings) =>
        (
          await drain(
            await eleven.textToSpeech.stream(VOICE, {
              text: SPOKEN,
              outputFormat: 'pcm_24000',
              ...(voiceSettings ? { voiceSettings } : {}),
            }),
          )
        ).bytes,
      convertWithTimestamps: async (voiceSettings) =>
        Buffer.from(
          (
            await eleven.textToSpeech.convertWithTimestamps(VOICE, {
              text: SPOKEN,
              outputFormat: 'pcm_24000',
              ...(voiceSettings ? { voiceSettings } : {}),
            })
          ).audioBase64,
          'base64',
        ),
      streamWithTimestamps: async (voiceSettings) => {
        const parts: Buffer[] = [];
        const stream = await eleven.textToSpeech.streamWithTimestamps(VOICE, {
          text: SPOKEN,
          outputFormat: 'pcm_24000',
          ...(voiceSettings ? { voiceSettings } : {}),
        });
        for await (const chunk of stream) if (chunk.audioBase64) parts.push(Buffer.from(chunk.audioBase64, 'base64'));
        return Buffer.concat(parts);
      },
    };
    for (const [name, speak] of Object.entries(routes)) {
      const loose = f0(await speak({ stability: 0 }));
      const steady = f0(await speak({ stability: 1 }));
      expect(loose.f0RangeSemitones, name).toBeGreaterThan(steady.f0RangeSemitones * 1.3);
    }
    // ElevenLabs' defaults are the voice as it is: the same samples but for the watermark (each file's own record).
    const plain = await routes.convert!();
    const defaults = await routes.convert!({ stability: 0.5, similarityBoost: 0.75, style: 0, useSpeakerBoost: true });
    expect(defaults.length).toBe(plain.length);
    expect(Math.abs(f0(defaults).f0RangeSemitones - f0(plain).f0RangeSemitones)).toBeLessThan(0.2);
    expect(Math.abs(f0(defaults).f0MedianHz - f0(plain).f0MedianHz)).toBeLessThan(1);
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

  it('ElevenLabs wav_<rate> formats are 16-bit mono WAV at that rate, whole or streamed', async () => {
    const at24 = await drain(await eleven.textToSpeech.convert('voice_flite.slt', { text: TEXT, outputFormat: 'pcm_24000' }));
    const seconds = at24.bytes.length / 2 / 24000;
    for (const [rate, stream] of [
      [16000, false],
      [24000, false],
      [44100, false],
      [8000, true],
      [48000, true],
    ] as const) {
      // The SDK's stream call does not offer wav (ElevenLabs' streaming route takes it): asked over HTTP as the SDK would.
      const bytes = stream
        ? Buffer.from(
            await (
              await fetch(`${t.url}/v1/text-to-speech/voice_flite.slt/stream?output_format=wav_${rate}`, {
                method: 'POST',
                headers: { 'xi-api-key': key.key, 'content-type': 'application/json' },
                body: JSON.stringify({ text: TEXT }),
              })
            ).arrayBuffer(),
          )
        : (
            await drain(
              await eleven.textToSpeech.convert('voice_flite.slt', { text: TEXT, outputFormat: `wav_${rate}` as 'wav_16000' }),
            )
          ).bytes;
      const header = wavFields(bytes);
      expect(header).toMatchObject({
        riff: 'RIFF',
        wave: 'WAVE',
        format: 1,
        channels: 1,
        rate,
        byteRate: rate * 2,
        bits: 16,
        data: 'data',
        aigc: 1,
      });
      const dataBytes = stream ? bytes.length - header.dataOffset : header.dataBytes;
      // A whole file names its exact size; a stream cannot know it and says so with the largest size.
      // A whole file's RIFF size covers all of it (the data, then its C2PA chunk); a stream's cannot be known.
      if (!stream) expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
      // A WAV answered whole is signed like any whole WAV (its C2PA chunk after the data, outside the data's size).
      if (!stream) expect(await readC2pa(bytes, 'audio/wav')).toMatchObject({ present: true, valid: true });
      else expect(header.dataBytes).toBeGreaterThan(dataBytes);
      expect(Math.abs(dataBytes / 2 / rate - seconds)).toBeLessThan(0.01);
      expect(Math.abs((await decodedSeconds(bytes)) - seconds)).toBeLessThan(0.05);
    }
  });

  it('ElevenLabs ulaw_8000 and alaw_8000 are G.711 at 8 kHz, one byte a sample, that ffmpeg decodes to the same speech', async () => {
    const pcm = await drain(await eleven.textToSpeech.convert('voice_flite.slt', { text: TEXT, outputFormat: 'pcm_8000' }));
    const reference = new Int16Array(pcm.bytes.buffer.slice(pcm.bytes.byteOffset, pcm.bytes.byteOffset + pcm.bytes.length));
    for (const [law, stream] of [
      ['ulaw', false],
      ['alaw', true],
      ['ulaw', true],
    ] as const) {
      const call = stream
        ? eleven.textToSpeech.stream.bind(eleven.textToSpeech)
        : eleven.textToSpeech.convert.bind(eleven.textToSpeech);
      const { bytes } = await drain(await call('voice_flite.slt', { text: TEXT, outputFormat: `${law}_8000` }));
      // No header: one companded byte per 8 kHz sample, as many as the 16-bit PCM has samples.
      expect(bytes.subarray(0, 4).toString('latin1')).not.toBe('RIFF');
      expect(bytes.length).toBe(reference.length);
      const decoded = await ffmpegSamples(bytes, ['-f', law === 'ulaw' ? 'mulaw' : 'alaw', '-ar', '8000', '-ac', '1'], 8000);
      expect(decoded.length).toBe(reference.length);
      // G.711 keeps about 38 dB of signal to noise on speech; a wrong law or byte order falls far below.
      expect(snr(reference, decoded)).toBeGreaterThan(25);
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
    // A format ElevenLabs does not have (the SDK refuses one before sending it, so asked without the SDK).
    const badFormat = await postWithKey(`${t.url}/v1/text-to-speech/voice_flite.slt?output_format=flac_44100`, key.key, {
      text: 'Hi.',
    });
    expect(badFormat).toMatchObject({ status: 400, body: elevenLabsError('VALIDATION_FAILED') });
    const noKey = new ElevenLabsClient({ apiKey: 'pvx_deleted', baseUrl: t.url, maxRetries: 0 });
    const denied = await noKey.voices.getAll().catch((e: unknown) => e);
    expect((denied as ElevenLabsError).statusCode).toBe(401);
  });
});
