import { describe, expect, it, vi } from 'vitest';
import type { CreditsService } from '../../src/credits/service.js';
import { HeldWork } from '../../src/synthesis/held-work.js';

/** A credits service that answers what a test says and records what was asked. */
function fakeCredits(opts: { status: 'held' | 'released'; extends?: boolean; ttlSeconds?: number }) {
  const calls: string[] = [];
  const credits = {
    config: { hold_ttl_seconds: opts.ttlSeconds ?? 900 },
    holdStatus: vi.fn(async () => {
      calls.push('status');
      return opts.status;
    }),
    reclaim: vi.fn(async () => {
      calls.push('reclaim');
      return true;
    }),
    extend: vi.fn(async () => {
      calls.push('extend');
      return opts.extends ?? true;
    }),
    release: vi.fn(async () => true),
  };
  return { credits: credits as unknown as CreditsService, calls };
}

const hold = { id: 'hold_1', accountId: 'acc_1', amount: 10, apiKeyId: null };
const work = (credits: CreditsService, heldSince?: number) =>
  new HeldWork({ credits, hold, charge: { amount: 10, details: {} }, onClosed: () => {}, heldSince });

describe('HeldWork.ensureHeld', () => {
  it('trusts a hold this process took moments ago, since the sweeper only frees holds past their deadline', async () => {
    const { credits, calls } = fakeCredits({ status: 'released' });
    await work(credits, Date.now()).ensureHeld();
    expect(calls).toEqual([]);
  });

  it('asks the database once a third of the lifetime has passed, and takes a swept hold again', async () => {
    const { credits, calls } = fakeCredits({ status: 'released', ttlSeconds: 900 });
    await work(credits, Date.now() - 301_000).ensureHeld();
    expect(calls).toEqual(['status', 'reclaim']);
  });

  it('asks the database for a hold it did not take itself (adopted, or a job another route may cancel)', async () => {
    const { credits, calls } = fakeCredits({ status: 'held' });
    await work(credits).ensureHeld();
    expect(calls).toEqual(['status']);
  });

  it('stops trusting its own hold once an extension finds it no longer held', async () => {
    vi.useFakeTimers();
    try {
      const { credits, calls } = fakeCredits({ status: 'released', extends: false, ttlSeconds: 3 });
      const w = work(credits, Date.now());
      await vi.advanceTimersByTimeAsync(1000); // the first extension, a third of the lifetime on
      expect(calls).toEqual(['extend']);
      await w.ensureHeld();
      expect(calls).toEqual(['extend', 'status', 'reclaim']);
      await w.release('done');
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps trusting a hold whose extensions succeed', async () => {
    vi.useFakeTimers();
    try {
      const { credits, calls } = fakeCredits({ status: 'released', extends: true, ttlSeconds: 3 });
      const w = work(credits, Date.now());
      await vi.advanceTimersByTimeAsync(1000);
      await w.ensureHeld();
      expect(calls).toEqual(['extend']);
      await w.release('done');
    } finally {
      vi.useRealTimers();
    }
  });
});
