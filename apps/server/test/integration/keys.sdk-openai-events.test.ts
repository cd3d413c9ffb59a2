/** OpenAI's speech route, complete: server-sent events and `instructions`, through the official `openai` client unchanged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { measurePcm } from '@polyvox/speech';
import { readAigcValues } from '@polyvox/speech/formats';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { decodedSeconds } from '../support/audio.js';
import { eventually } from '../support/leave.js';

const TEXT = 'The quick brown fox jumps over the lazy dog. Then it runs back home to sleep.';

/** The events of a `text/event-stream` body, each `data:` line parsed. */
async function readEvents(res: Response): Promise<{ type: string; audio?: string; usage?: Record<string, number> }[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      expect(block.startsWith('data: ')).toBe(true);
      return JSON.parse(block.slice('data: '.length));
    });
}

/** 24 kHz 16-bit PCM as floats. */
const floats = (pcm: Buffer): Float32Array => {
  const out = new Float32Array(pcm.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = pcm.readInt16LE(2 * i) / 32768;
  return out;
};

describe.each(DIALECTS)("OpenAI's speech route: events and instructions (%s)", (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let openai: OpenAI;
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 50_000, 'openai-events'));
    openai = new OpenAI({ apiKey: key.key, baseURL: `${t.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await t.close();
  });

  const records = async () =>
    (await c.get(`/api/credits/records?api_key=${key.id}&page_size=100`)).body.items as { type: string; amount: number }[];

  it('stream_format "sse" answers speech.audio.delta events whose audio is one labelled file, then speech.audio.done with usage', async () => {
    const before = (await records()).length;
    const res = await openai.audio.speech.create({
      model: 'gpt-4o-mini-tts',
      voice: 'alloy',
      input: `${TEXT} ${TEXT}`,
      response_format: 'mp3',
      stream_format: 'sse',
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(res);
    const deltas = events.filter((e) => e.type === 'speech.audio.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(events.at(-1)!.type).toBe('speech.audio.done');
    expect(events.filter((e) => e.type === 'speech.audio.done')).toHaveLength(1);
    const audio = Buffer.concat(deltas.map((e) => Buffer.from(e.audio!, 'base64')));
    expect(audio.subarray(0, 3).toString('latin1')).toBe('ID3');
    expect(readAigcValues(audio)).toHaveLength(1);
    expect(await decodedSeconds(audio, 'mp3')).toBeGreaterThan(4);

    // Usage: the characters billed (Polyvox's input tokens) and the credits the record shows.
    const usage = events.at(-1)!.usage!;
    expect(usage.input_tokens).toBe(usage.characters);
    expect(usage.total_tokens).toBe(usage.input_tokens! + usage.output_tokens!);
    expect(usage.characters).toBeGreaterThan(100);
    expect(await eventually(async () => (await records()).length === before + 1)).toBe(true);
    const [charge] = await records();
    expect(charge).toMatchObject({ type: 'api', amount: -usage.credits! });
  });

  it('stream_format "sse" with pcm: the deltas join into samples as long as a plain answer', async () => {
    const plain = Buffer.from(
      await (
        await openai.audio.speech.create({ model: 'tts-1', voice: 'echo', input: TEXT, response_format: 'pcm' })
      ).arrayBuffer(),
    );
    const res = await openai.audio.speech.create({
      model: 'tts-1',
      voice: 'echo',
      input: TEXT,
      response_format: 'pcm',
      stream_format: 'sse',
    });
    // Raw samples carry their label in a header, as every pcm answer does.
    expect(res.headers.get('x-aigc')).toContain('ProduceID');
    const events = await readEvents(res);
    const pcm = Buffer.concat(events.filter((e) => e.type === 'speech.audio.delta').map((e) => Buffer.from(e.audio!, 'base64')));
    expect(pcm.length % 2).toBe(0);
    expect(Math.abs(pcm.length - plain.length) / plain.length).toBeLessThan(0.02);
  });

  it('instructions move the delivery: "slowly" speaks longer, "high-pitched" higher, words it does not know change nothing', async () => {
    const speak = async (instructions?: string) => {
      const res = await openai.audio.speech.create({
        model: 'gpt-4o-mini-tts',
        voice: 'voice_espeak.en-us',
        input: TEXT,
        response_format: 'pcm',
        ...(instructions ? { instructions } : {}),
      });
      return measurePcm(floats(Buffer.from(await res.arrayBuffer())), 24_000);
    };
    const plain = await speak();
    const slow = await speak('Speak very slowly and calmly.');
    const high = await speak('Use a high-pitched, cheerful voice.');
    const unknown = await speak('Pretend you are reading the news.');
    expect(slow.durationSec).toBeGreaterThan(plain.durationSec * 1.2);
    expect(high.f0MedianHz).toBeGreaterThan(plain.f0MedianHz * 1.15);
    expect(Math.abs(unknown.durationSec - plain.durationSec)).toBeLessThan(0.05);
    expect(Math.abs(unknown.f0MedianHz - plain.f0MedianHz)).toBeLessThan(plain.f0MedianHz * 0.03);
  });

  it("speed is OpenAI's 0.25–4, spoken so: 4 in about a quarter of the time, 0.25 in about four times, at one price", async () => {
    const speak = async (speed: number) => {
      const before = (await records()).length;
      const res = await openai.audio.speech.create({
        model: 'tts-1',
        voice: 'voice_espeak.en-us',
        input: TEXT,
        response_format: 'pcm',
        speed,
      });
      const seconds = Buffer.from(await res.arrayBuffer()).length / 2 / 24_000;
      expect(await eventually(async () => (await records()).length === before + 1)).toBe(true);
      const [charge] = await records();
      return { seconds, credits: charge!.amount };
    };
    const one = await speak(1);
    const fast = await speak(4);
    const slow = await speak(0.25);
    expect(fast.seconds / one.seconds).toBeGreaterThan(0.2);
    expect(fast.seconds / one.seconds).toBeLessThan(0.3);
    expect(slow.seconds / one.seconds).toBeGreaterThan(3.2);
    expect(slow.seconds / one.seconds).toBeLessThan(4.8);
    expect(fast.credits).toBe(one.credits);
    expect(slow.credits).toBe(one.credits);
  });

  it('refuses over-long instructions and an unknown stream_format with 400, charging nothing', async () => {
    const before = (await records()).length;
    const long = await fetch(`${t.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'Hi.', instructions: 'x'.repeat(5000) }),
    });
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
    const format = await fetch(`${t.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'Hi.', stream_format: 'websocket' }),
    });
    expect(format.status).toBe(400);
    expect((await records()).length).toBe(before);
  });
});
