import { describe, expect, it } from 'vitest';
import { localBroadcast } from '../../src/platform/broadcast.js';
import { isSpeechRoute } from '../../src/overview/service.js';
import { LATENCY_BOUNDS, quantile } from '../../src/overview/speech-stats.js';

describe('the speech routes as the overview reads them from the hourly histogram', () => {
  it('interpolates the 95th percentile in its bucket, and stops at the last bound past it', () => {
    // 90 fast answers (≤ 0.05 s), 8 slower (0.1 to 0.25 s), two of 2.5 to 5 s.
    const counts = new Array<number>(LATENCY_BOUNDS.length + 1).fill(0);
    counts[LATENCY_BOUNDS.indexOf(0.05)] = 90;
    counts[LATENCY_BOUNDS.indexOf(0.25)] = 8;
    counts[LATENCY_BOUNDS.indexOf(5)] = 2;
    // The 95th of 100 falls in the (0.1, 0.25] bucket, the 5th of its 8: 0.1 + 0.15 × 5/8.
    expect(quantile(0.95, counts)).toBeCloseTo(0.1 + (0.15 * 5) / 8, 6);
    const slow = new Array<number>(LATENCY_BOUNDS.length + 1).fill(0);
    slow[LATENCY_BOUNDS.length] = 3;
    expect(quantile(0.95, slow)).toBe(30);
  });

  it('names the routes that speak', () => {
    for (const route of ['/tts', '/tts/jobs', '/v1/audio/speech', '/v1/text-to-speech/:voice_id/stream'])
      expect(isSpeechRoute('POST', route), route).toBe(true);
    expect(isSpeechRoute('GET', '/tts/jobs')).toBe(false);
    expect(isSpeechRoute('POST', '/tts/estimate')).toBe(false);
  });
});

describe('a broadcast within one process', () => {
  it('runs the handlers of a topic at once, keeps a throwing one from the others, and unsubscribes', async () => {
    const errors: unknown[] = [];
    const b = localBroadcast((e) => errors.push(e));
    const got: string[] = [];
    b.on('t', () => {
      throw new Error('listener failed');
    });
    const off = b.on('t', (m) => got.push(m));
    b.on('other', (m) => got.push(`other:${m}`));
    await b.publish('t', 'a');
    off();
    await b.publish('t', 'b');
    expect(got).toEqual(['a']);
    expect(errors).toHaveLength(2);
  });
});
