import { describe, expect, it } from 'vitest';
import { memoryRateLimiter, requesterKey } from '../../src/platform/rate-limit.js';

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('memoryRateLimiter', () => {
  it('allows `limit` hits per window, then answers the seconds until it reopens', async () => {
    const c = clock();
    const rl = memoryRateLimiter(c.now);
    for (let i = 0; i < 3; i++) expect(await rl.hit('k', 3, 60)).toBe(0);
    expect(await rl.hit('k', 3, 60)).toBe(60);
    c.advance(10_500);
    expect(await rl.hit('k', 3, 60)).toBe(50); // 49.5 s left, rounded up
    c.advance(49_499);
    expect(await rl.hit('k', 3, 60)).toBe(1); // 1 ms left still says 1 s, never 0
    c.advance(1);
    expect(await rl.hit('k', 3, 60)).toBe(0); // a new window
    expect(await rl.hit('k', 3, 60)).toBe(0);
    expect(await rl.hit('k', 3, 60)).toBe(0);
    expect(await rl.hit('k', 3, 60)).toBe(60);
  });

  it('keeps keys apart', async () => {
    const c = clock();
    const rl = memoryRateLimiter(c.now);
    expect(await rl.hit('code:ip:1', 1, 3600)).toBe(0);
    expect(await rl.hit('code:ip:1', 1, 3600)).toBe(3600);
    expect(await rl.hit('code:ip:2', 1, 3600)).toBe(0);
    expect(await rl.hit('code:email:a', 1, 86_400)).toBe(0);
    c.advance(3_599_000);
    expect(await rl.hit('code:ip:1', 1, 3600)).toBe(1);
    expect(await rl.hit('code:email:a', 1, 86_400)).toBe(86_400 - 3599);
  });

  it('uses a fixed window: refused hits do not extend it', async () => {
    const c = clock();
    const rl = memoryRateLimiter(c.now);
    expect(await rl.hit('k', 1, 10)).toBe(0);
    for (let i = 0; i < 9; i++) {
      c.advance(1000);
      expect(await rl.hit('k', 1, 10)).toBe(10 - (i + 1));
    }
    c.advance(1000);
    expect(await rl.hit('k', 1, 10)).toBe(0);
  });

  it('forgets old windows without losing live ones', async () => {
    const c = clock();
    const rl = memoryRateLimiter(c.now);
    expect(await rl.hit('short', 1, 30)).toBe(0);
    expect(await rl.hit('long', 1, 3600)).toBe(0);
    c.advance(61_000); // past the sweep interval: 'short' is dropped, 'long' must stay
    expect(await rl.hit('long', 1, 3600)).toBe(3600 - 61);
    expect(await rl.hit('short', 1, 30)).toBe(0);
    expect(await rl.hit('short', 1, 30)).toBe(30);
  });
});

describe('requesterKey', () => {
  it('counts an IPv4 address as itself, also when mapped into IPv6', () => {
    expect(requesterKey('203.0.113.7')).toBe('203.0.113.7');
    expect(requesterKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts every IPv6 address of one /64 as one requester, however it is written', () => {
    const one = requesterKey('2001:db8:0:1::1');
    for (const ip of ['2001:0db8:0000:0001:ffff:ffff:ffff:ffff', '2001:DB8:0:1:1:2:3:4', '2001:db8:0:1:0:0:0:9']) {
      expect(requesterKey(ip)).toBe(one);
    }
    expect(requesterKey('2001:db8:0:2::1')).not.toBe(one);
    expect(requesterKey('::1')).toBe('0:0:0:0::/64');
    expect(requesterKey('2001:db8::')).toBe('2001:db8:0:0::/64');
  });
});
