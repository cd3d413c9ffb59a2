import { describe, expect, it, vi } from 'vitest';
import type { SynthesisJob } from '../types';
import { jobError, jobPercent, runJob } from './job-runner';

const job = (status: SynthesisJob['status'], done: number, extra: Partial<SynthesisJob> = {}): SynthesisJob => ({
  id: 'job_1',
  status,
  progress: { done, total: 4 },
  credits: 3000,
  characters: 3000,
  audio_url: status === 'succeeded' ? '/tts/jobs/job_1/audio' : null,
  error: null,
  created_at: '2026-11-23T14:00:00.000Z',
  finished_at: status === 'running' ? null : '2026-11-23T14:00:09.000Z',
  ...extra,
});

describe('runJob', () => {
  it('polls every second until the job succeeds, reporting each progress', async () => {
    const answers = [job('running', 1), job('running', 3), job('succeeded', 4)];
    const get = vi.fn(async () => answers.shift()!);
    const sleep = vi.fn(async () => {});
    const seen: number[] = [];
    const done = await runJob({
      create: async () => job('running', 0),
      get,
      sleep,
      onProgress: (j) => seen.push(j.progress.done),
    });
    expect(done.status).toBe('succeeded');
    expect(seen).toEqual([0, 1, 3, 4]);
    expect(get).toHaveBeenCalledTimes(3);
    expect(sleep.mock.calls.map((c) => (c as unknown[])[0])).toEqual([1000, 1000, 1000]);
  });

  it("throws the failed job's error with its code", async () => {
    const failed = job('failed', 2, { error: { code: 'INTERNAL', message: 'Something went wrong, please try again later' } });
    await expect(
      runJob({ create: async () => job('running', 0), get: async () => failed, sleep: async () => {}, onProgress: () => {} }),
    ).rejects.toMatchObject({ code: 'INTERNAL', serverMessage: 'Something went wrong, please try again later' });
  });

  it('stops polling when cancelled', async () => {
    const controller = new AbortController();
    const get = vi.fn(async () => job('running', 1));
    const run = runJob({
      create: async () => job('running', 0),
      get,
      sleep: async () => controller.abort(),
      onProgress: () => {},
      signal: controller.signal,
    });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(get).not.toHaveBeenCalled();
  });

  it('does not poll a job that finished at once', async () => {
    const get = vi.fn();
    await runJob({ create: async () => job('succeeded', 4), get, sleep: async () => {}, onProgress: () => {} });
    expect(get).not.toHaveBeenCalled();
  });
});

describe('job helpers', () => {
  it('turns progress into a percentage', () => {
    expect(jobPercent({ done: 1, total: 4 })).toBe(25);
    expect(jobPercent({ done: 0, total: 0 })).toBe(0);
    expect(jobPercent({ done: 9, total: 4 })).toBe(100);
    expect(jobPercent(undefined)).toBe(0);
  });

  it("keeps the job's error code, and says INTERNAL when there is none", () => {
    const tooLong = { code: 'TEXT_TOO_LONG', message: 'Text exceeds the limit of 5000 characters' };
    expect(jobError(job('failed', 0, { error: tooLong }))).toMatchObject({
      code: 'TEXT_TOO_LONG',
      serverMessage: tooLong.message,
    });
    expect(jobError(job('failed', 0, { error: null }))).toMatchObject({ code: 'INTERNAL', serverMessage: '' });
  });
});
