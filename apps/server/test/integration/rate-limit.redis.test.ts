import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { redisRateLimiter } from '../../src/platform/rate-limit.js';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = () => `polyvox-test:${process.pid}:${Math.random().toString(36).slice(2)}:`;

describe('rate limits kept in Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(() => {
    redis.disconnect();
  });

  it('allows `limit` hits per window, then answers the seconds left, shared by two limiters', async () => {
    const p = prefix();
    const a = redisRateLimiter(redis, p);
    const b = redisRateLimiter(redis, p);
    expect(await a.hit('k', 3, 60)).toBe(0);
    expect(await b.hit('k', 3, 60)).toBe(0);
    expect(await a.hit('k', 3, 60)).toBe(0);
    const wait = await b.hit('k', 3, 60);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await a.hit('other', 3, 60)).toBe(0);
    expect(await redis.pttl(`${p}k`)).toBeGreaterThan(0);
  });

  it('reopens the window when it expires, by the clock it is given', async () => {
    let now = 1_000_000;
    const p = prefix();
    const limiter = redisRateLimiter(redis, p, () => now);
    expect(await limiter.hit('w', 1, 60)).toBe(0);
    now += 59_000;
    expect(await limiter.hit('w', 1, 60)).toBe(1);
    now += 999;
    expect(await limiter.hit('w', 1, 60)).toBe(1);
    now += 1;
    expect(await limiter.hit('w', 1, 60)).toBe(0);
    expect(await limiter.hit('w', 1, 60)).toBe(60);
    // a counter an older release left does not break the key
    await redis.set(`${p}old`, '5', 'PX', 60_000);
    expect(await limiter.hit('old', 1, 60)).toBe(0);
  });

  describe.each(DIALECTS)('in the app with REDIS_URL set (%s)', (dialect) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(dialect, { env: { REDIS_URL, REDIS_PREFIX: prefix(), CODE_LIMIT_PER_IP_HOUR: '2' } });
    });
    afterAll(async () => {
      await t.close();
    });

    it('limits code requests per IP through Redis', async () => {
      const c = new Client(t.url);
      expect((await c.post('/verification/email', { email: 'r1@example.com' })).status).toBe(200);
      expect((await c.post('/verification/email', { email: 'r2@example.com' })).status).toBe(200);
      const third = await c.post('/verification/email', { email: 'r3@example.com' });
      expect(third.status).toBe(429);
      expect(third.body.error.code).toBe('RATE_LIMITED');
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });
});
