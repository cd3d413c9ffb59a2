/**
 * The in-process encoders, judged by ffmpeg as a client would decode them: whole files and
 * streams are valid, exactly as long as their input, and carry the sound (pitch) that went in.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EncoderHost } from '../src/audio/encoder-host.ts';
import { encodeAudio, looksLike, openEncoder } from '../src/audio/encoders.ts';
import { decodeAudio } from '../src/audio/ffmpeg.ts';
import { countFrames } from '../src/formats/mp3.ts';
import { estimateF0 } from '../src/dsp/f0.ts';
import { createLocalEngines } from '../src/engines/local.ts';
import { synthesizeChunks } from '../src/speech/chunks.ts';
import { makePlan } from '../src/pipeline/plan.ts';
import { WorkerPool } from '../src/pool/pool.ts';
import { buzz } from './support/audio.ts';

const host = new EncoderHost();
afterAll(() => host.close());

const ext = (format: 'mp3' | 'opus') => (format === 'opus' ? 'ogg' : 'mp3');

function rms(x: Float32Array): number {
  let s = 0;
  for (const v of x) s += v * v;
  return Math.sqrt(s / Math.max(1, x.length));
}

describe.each(['mp3', 'opus'] as const)('%s', (format) => {
  it.each([24000, 22050, 48000])('encodes a whole file at %i Hz that decodes to the same length and pitch', async (rate) => {
    const input = buzz(180, 1.7, rate);
    const file = await encodeAudio(input, rate, format);
    expect(looksLike(format, file)).toBe(true);
    const out = await decodeAudio(file, ext(format), rate);
    // The Info frame (mp3) and the end granule (opus) tell the decoder to trim delay and padding.
    expect(Math.abs(out.samples.length - input.length)).toBeLessThanOrEqual(Math.ceil(rate / 1000));
    expect(rms(out.samples)).toBeGreaterThan(0.5 * rms(input));
    expect(estimateF0(out.samples, rate).median).toBeGreaterThan(170);
    expect(estimateF0(out.samples, rate).median).toBeLessThan(190);
  });

  it('streams chunks of any size as one valid file, the bytes of each chunk out at once', async () => {
    const rate = 24000;
    const chunks = [buzz(150, 1, rate), new Float32Array(0), buzz(150, 0.013, rate), buzz(220, 0.9, rate), buzz(150, 0.3, rate)];
    const stream = host.stream(format, rate);
    const parts: Buffer[] = [];
    const first = await stream.write(chunks[0]!.slice());
    // The first sentence is not held back for the next: nearly all of it is out before more input.
    const firstOut = await decodeAudio(Buffer.concat(first), ext(format), rate);
    expect(firstOut.samples.length).toBeGreaterThan(0.85 * rate);
    expect(rms(firstOut.samples)).toBeGreaterThan(0.05);
    parts.push(...first);
    for (const c of chunks.slice(1)) parts.push(...(await stream.write(c.slice())));
    parts.push(...(await stream.end()));
    const total = chunks.reduce((n, c) => n + c.length, 0);
    const file = Buffer.concat(parts);
    expect(looksLike(format, file)).toBe(true);
    const out = await decodeAudio(file, ext(format), rate);
    // A stream's length is unknown when it starts, so an mp3 keeps its last frame's padding.
    expect(out.samples.length).toBeGreaterThanOrEqual(total - 24);
    expect(out.samples.length).toBeLessThanOrEqual(total + (format === 'mp3' ? 2 * 576 : 24));
    const second = out.samples.subarray(Math.round(1.05 * rate), Math.round(1.9 * rate));
    expect(estimateF0(second, rate).median).toBeGreaterThan(205);
  });

  it('survives an abandoned stream: the next one on the same thread is whole', async () => {
    const rate = 24000;
    const left = host.stream(format, rate);
    await left.write(buzz(150, 0.5, rate));
    left.abort();
    const file = await host.encode(buzz(150, 0.8, rate), rate, format);
    const out = await decodeAudio(file, ext(format), rate);
    expect(Math.abs(out.samples.length - 0.8 * rate)).toBeLessThanOrEqual(24);
  });
});

describe('output checks', () => {
  it('tells a valid file from broken output', async () => {
    const mp3 = await encodeAudio(buzz(150, 0.5, 24000), 24000, 'mp3');
    const opus = await encodeAudio(buzz(150, 0.5, 24000), 24000, 'opus');
    expect(countFrames(mp3)?.frames).toBeGreaterThan(20);
    // Truncated mid-frame, or not audio at all.
    expect(countFrames(mp3.subarray(0, mp3.length - 7))).toBeUndefined();
    expect(looksLike('mp3', Buffer.from('<html>error</html>'))).toBe(false);
    expect(looksLike('opus', mp3)).toBe(false);
    expect(looksLike('mp3', opus)).toBe(false);
  });

  it('makes no audio into a valid, empty file, and refuses a closed encoder', async () => {
    for (const format of ['mp3', 'opus'] as const) {
      const file = await encodeAudio(new Float32Array(0), 24000, format);
      expect(looksLike(format, file)).toBe(true);
      expect(
        (await decodeAudio(file, ext(format), 24000).catch(() => ({ samples: new Float32Array(0) }))).samples.length,
      ).toBeLessThan(600);
    }
    const enc = await openEncoder('opus', 24000);
    enc.free();
    expect(() => enc.write(new Float32Array(10))).toThrow(/closed/);
  });
});

describe('first sentence of a stream', () => {
  it('runs alone, with no look-ahead sharing its cores; a whole file starts the look-ahead at once', async () => {
    const pool = new WorkerPool({ size: 2 });
    try {
      const espeak = createLocalEngines({}).get('espeak')!;
      const voice = espeak.listVoices().find((v) => v.id === 'espeak:en-us')!;
      const plan = makePlan(
        { text: 'One sentence here. Two sentences here. Three sentences here. Four sentences here.', voice, format: 'mp3' },
        { findVoice: () => voice, maxTextLength: 5000 },
      );
      const ctx = { pool, localEngines: new Set(['espeak']), remoteEngines: new Map(), sampleRate: 24000 };
      const inFlight = () => pool.busy + pool.queued;

      const streamed = synthesizeChunks(ctx, plan, undefined, undefined, { firstAlone: true })[Symbol.asyncIterator]();
      const first = streamed.next();
      expect(inFlight()).toBe(1);
      expect((await first).value?.index).toBe(0);
      // Nothing else runs while the first sentence is encoded and sent; the next pull fills the look-ahead.
      expect(inFlight()).toBe(0);
      const second = streamed.next();
      expect(inFlight()).toBe(3);
      expect((await second).value?.index).toBe(1);
      while (!(await streamed.next()).done);

      const whole = synthesizeChunks(ctx, plan)[Symbol.asyncIterator]();
      const w = whole.next();
      expect(inFlight()).toBe(3);
      await w;
      while (!(await whole.next()).done);
    } finally {
      await pool.close();
    }
  });
});
