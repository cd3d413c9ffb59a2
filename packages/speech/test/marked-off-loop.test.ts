import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav } from '../src/formats/index.ts';
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
});
