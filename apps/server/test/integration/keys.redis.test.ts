import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { memoryConcurrencyLimiter, redisConcurrencyLimiter, type ConcurrencyLimiter } from '../../src/platform/rate-limit.js';
import { Client } from '../support/client.js';
import { startPeer, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = () => `polyvox-test:${process.pid}:${Math.random().toString(36).slice(2)}:`;

async function slots(limiter: () => ConcurrencyLimiter) {
  const a = limiter();
  const b = limiter();
  const one = await a.acquire('k', 2);
  const two = await b.acquire('k', 2);
  expect(one).not.toBeNull();
  expect(two).not.toBeNull();
  expect(await a.acquire('k', 2)).toBeNull();
  expect(await b.acquire('other', 2)).not.toBeNull();
  one!();
  one!(); // giving a slot back twice gives back one (Redis runs one connection's commands in order)
  const three = await b.acquire('k', 2);
  expect(three).not.toBeNull();
  expect(await a.acquire('k', 2)).toBeNull();
}

describe('work in flight per key', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(() => {
    redis.disconnect();
  });

  it('counts slots in memory for one process', async () => {
    const shared = memoryConcurrencyLimiter();
    await slots(() => shared);
  });

  it('counts slots in Redis, shared by several limiters, and lets a dead holder’s slots expire', async () => {
    const p = prefix();
    await slots(() => redisConcurrencyLimiter(redis, p));
    let now = 1_000_000;
    const clocked = redisConcurrencyLimiter(redis, prefix(), 600, () => now);
    expect(await clocked.acquire('dead', 2)).not.toBeNull();
    now += 300_000;
    expect(await clocked.acquire('dead', 2)).not.toBeNull();
    expect(await clocked.acquire('dead', 2)).toBeNull();
    now += 299_999;
    expect(await clocked.acquire('dead', 2)).toBeNull();
    now += 1; // the first slot's holder has had the longest a request may run
    expect(await clocked.acquire('dead', 2)).not.toBeNull();
    expect(await clocked.acquire('dead', 2)).toBeNull();
  });
});

describe('two server processes sharing PostgreSQL and Redis', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres', { env: { REDIS_URL, REDIS_PREFIX: prefix(), SPEECH_WARMUP: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it("count a key's requests per minute together", async () => {
    const peer = await startPeer(t);
    try {
      const owner = new Client(t.url);
      await owner.anonymous();
      const { body: key } = await owner.put('/api/authorization', { name: 'shared', requests_per_minute: 4 });
      const here = new Client(t.url);
      const there = new Client(peer.url);
      const auth = { authorization: `Bearer ${key.key}` };
      for (const c of [here, there, here, there]) expect((await c.get('/api/me', auth)).status).toBe(200);
      expectError(await there.get('/api/me', auth), 'RATE_LIMITED');
      expectError(await here.get('/api/me', auth), 'RATE_LIMITED');
    } finally {
      await peer.close();
    }
  });
});
