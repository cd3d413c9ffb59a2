import { describe, expect, it } from 'vitest';
import { metrics, routeStats } from '../../src/platform/metrics.js';
import { localBroadcast } from '../../src/platform/broadcast.js';
import { isSpeechRoute } from '../../src/overview/service.js';

describe('the speech routes as the overview reads them from the request histogram', () => {
  it('counts requests and errors of the routes picked and interpolates the 95th percentile in its bucket', async () => {
    const route = `/unit-speech-${Math.random().toString(36).slice(2)}`;
    const picked = (method: string, r: string) => method === 'POST' && r === route;
    expect(await routeStats(picked)).toEqual({ requests: 0, client_errors: 0, server_errors: 0, p95_seconds: null });
    // 90 fast answers (≤ 0.05 s), 8 slower (0.1 to 0.25 s), a refusal and a failure (2.5 to 5 s).
    for (let i = 0; i < 90; i++) metrics.request('POST', route, 200, 0.03);
    for (let i = 0; i < 8; i++) metrics.request('POST', route, 200, 0.2);
    metrics.request('POST', route, 422, 3);
    metrics.request('POST', route, 500, 3);
    metrics.request('GET', route, 500, 3); // not picked
    const stats = await routeStats(picked);
    expect(stats).toMatchObject({ requests: 100, client_errors: 1, server_errors: 1 });
    // The 95th of 100 falls in the (0.1, 0.25] bucket, the 5th of its 8: 0.1 + 0.15 × 5/8.
    expect(stats.p95_seconds).toBeCloseTo(0.1 + (0.15 * 5) / 8, 6);
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
