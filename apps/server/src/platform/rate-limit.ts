import { randomUUID } from 'node:crypto';

/** Fixed-window counters. The embedded default keeps them in memory; a shared store can replace it. */
export interface RateLimiter {
  /** Counts one hit; returns 0 when allowed, else the seconds until the window reopens. */
  hit(key: string, limit: number, windowSeconds: number): Promise<number>;
}

export function memoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { start: number; count: number; ms: number }>();
  let lastSweep = now();
  return {
    hit(key, limit, windowSeconds) {
      const t = now();
      const windowMs = windowSeconds * 1000;
      if (t - lastSweep > 60_000) {
        for (const [k, w] of windows) if (t - w.start >= w.ms) windows.delete(k);
        lastSweep = t;
      }
      const current = windows.get(key);
      if (!current || t - current.start >= windowMs) {
        windows.set(key, { start: t, count: 1, ms: windowMs });
        return Promise.resolve(0);
      }
      current.count += 1;
      if (current.count <= limit) return Promise.resolve(0);
      return Promise.resolve(Math.max(1, Math.ceil((current.start + windowMs - t) / 1000)));
    },
  };
}

/** The minimal Redis surface the limiter needs; ioredis satisfies it. */
export interface RedisLike {
  eval(script: string, keys: number, ...args: (string | number)[]): Promise<unknown>;
}

// One window per key: its start (by the caller's clock) and its count, so every process and a test's clock
// agree on when it reopens. The expiry only clears windows nobody hits any more; a counter an older release
// left (a plain string) is replaced.
const HIT_SCRIPT = `
if redis.call('TYPE', KEYS[1]).ok == 'string' then redis.call('DEL', KEYS[1]) end
local now = tonumber(ARGV[3])
local ms = tonumber(ARGV[2])
local start = tonumber(redis.call('HGET', KEYS[1], 'start'))
if not start or now - start >= ms or now < start then
  redis.call('HSET', KEYS[1], 'start', now, 'count', 1)
  redis.call('PEXPIRE', KEYS[1], ms)
  return 0
end
local n = redis.call('HINCRBY', KEYS[1], 'count', 1)
if n > tonumber(ARGV[1]) then return start + ms - now end
return 0`;

/** Shared counters for several server processes, kept in Redis (REDIS_URL). */
export function redisRateLimiter(redis: RedisLike, prefix: string, now: () => number = Date.now): RateLimiter {
  return {
    async hit(key, limit, windowSeconds) {
      const left = Number(await redis.eval(HIT_SCRIPT, 1, prefix + key, limit, windowSeconds * 1000, now()));
      return left > 0 ? Math.max(1, Math.ceil(left / 1000)) : 0;
    },
  };
}

/**
 * The requester as per-IP limits count it. One IPv6 subscriber is usually handed a whole /64, so
 * counting single IPv6 addresses would give one person 2^64 separate allowances.
 */
export function requesterKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Counts work in flight per key, so one caller runs at most `limit` requests at once. */
export interface ConcurrencyLimiter {
  /** Takes a slot; returns a function that gives it back (call it once), or null when all slots are taken. */
  acquire(key: string, limit: number): Promise<(() => void) | null>;
}

export function memoryConcurrencyLimiter(): ConcurrencyLimiter {
  const counts = new Map<string, number>();
  return {
    acquire(key, limit) {
      const n = counts.get(key) ?? 0;
      if (n >= limit) return Promise.resolve(null);
      counts.set(key, n + 1);
      let released = false;
      return Promise.resolve(() => {
        if (released) return;
        released = true;
        const left = (counts.get(key) ?? 1) - 1;
        if (left <= 0) counts.delete(key);
        else counts.set(key, left);
      });
    },
  };
}

// A slot is a member of a sorted set scored by when it lapses (the caller's clock), so slots a dead process
// held are given back `ttl` (the longest a request may run) after they were taken.
const ACQUIRE_SCRIPT = `
if redis.call('TYPE', KEYS[1]).ok == 'string' then redis.call('DEL', KEYS[1]) end
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** Slots shared by several server processes, kept in Redis (REDIS_URL). */
export function redisConcurrencyLimiter(
  redis: RedisLike,
  prefix: string,
  ttlSeconds = 600,
  now: () => number = Date.now,
): ConcurrencyLimiter {
  return {
    async acquire(key, limit) {
      const slot = randomUUID();
      const taken = Number(await redis.eval(ACQUIRE_SCRIPT, 1, prefix + key, limit, ttlSeconds * 1000, now(), slot));
      if (taken !== 1) return null;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        void redis.eval(`return redis.call('ZREM', KEYS[1], ARGV[1])`, 1, prefix + key, slot).catch(() => undefined);
      };
    },
  };
}
