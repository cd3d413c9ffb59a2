import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav, int16ToFloat } from '../src/formats/index.ts';
import { samplesMarkedHere } from '../src/audio/marked.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import { detectWatermark } from '../src/watermark/index.ts';

const KEY = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 0xff);

describe('the watermark, off the calling thread', () => {
  let speech: Speech;
  beforeAll(async () => {
    speech = await createSpeech({ poolSize: 1, cache: false, warmup: false, watermark: { key: KEY } });
  });
  afterAll(async () => {
    await speech.close();
  });

  it('marks a short WAV or PCM file in the encoder thread, not on the event loop, and the mark is in it', async () => {
    const text = 'Two short sentences make a file. The server builds it whole, and it carries the mark.';
    for (const format of ['wav', 'pcm'] as const) {
      const before = samplesMarkedHere();
      const r = await speech.synthesize({ text: `${text} ${format}`, voiceId: 'espeak:en-us', format });
      expect(r.mark).toEqual(expect.any(Number));
      expect(samplesMarkedHere()).toBe(before);
      if (format === 'wav') {
        const decoded = decodeWav(r.audio);
        const found = detectWatermark(decoded.samples, decoded.sampleRate, KEY);
        expect(found.detected).toBe(true);
      }
    }
  });

  it('marks 16-bit PCM fed in one-second chunks on the encoder thread (openPcmEncoder pcm with a mark): as long, the mark in it', async () => {
    const r = await speech.synthesize({
      text: 'A book is joined from many paragraphs, and the joined sound is marked once more on its way out.',
      voiceId: 'espeak:en-us',
      format: 'pcm',
    });
    const rate = r.sampleRate;
    const plain = r.audio.subarray(0, r.audio.length & ~1);
    const before = samplesMarkedHere();
    const encoder = speech.openPcmEncoder('pcm', rate, false, { key: KEY, payload: 4321 });
    const out: Buffer[] = [];
    for (let at = 0; at < plain.length; at += rate * 2) out.push(await encoder.write(plain.subarray(at, at + rate * 2)));
    out.push(await encoder.end());
    const marked = Buffer.concat(out);
    expect(samplesMarkedHere()).toBe(before);
    expect(marked.length).toBe(plain.length);
    expect(marked.equals(plain)).toBe(false);
    const samples = int16ToFloat(marked);
    const found = detectWatermark(samples, rate, KEY, { payload: true });
    expect(found.detected).toBe(true);
    expect(found.payload).toBe(4321);
  });
});
