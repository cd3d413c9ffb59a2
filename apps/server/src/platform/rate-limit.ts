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
