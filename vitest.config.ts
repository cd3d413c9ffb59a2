import { defineConfig } from 'vitest/config';

// A test's timeout is a hang guard, not a speed check (speed goals live in bench/): tests wait for conditions, and
// on a two-core machine whose cores other work keeps busy a CPU-bound test (a clone measured, a pool kept busy) took
// over a minute. Three minutes tells a hang from a slow machine without cutting the slow machine short.
const HANG_GUARD_MS = 180_000;

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/test/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'apps/server/test/unit/**/*.test.ts'],
          testTimeout: HANG_GUARD_MS,
          hookTimeout: HANG_GUARD_MS,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['apps/server/test/integration/**/*.test.ts'],
          testTimeout: HANG_GUARD_MS,
          hookTimeout: HANG_GUARD_MS,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
