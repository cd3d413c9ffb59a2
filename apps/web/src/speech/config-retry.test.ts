import { describe, expect, it } from 'vitest';
import { configAttemptTimes, configRetryDelay, shouldRetryConfig } from './config-retry';

describe('model config retry schedule', () => {
  it('waits 3, 8 and 15 s between attempts', () => {
    expect([0, 1, 2].map(configRetryDelay)).toEqual([3000, 8000, 15000]);
  });

  it('retries three times, then gives up (the dialog takes over)', () => {
    expect([0, 1, 2, 3, 4].map(shouldRetryConfig)).toEqual([true, true, true, false, false]);
  });

  it('never answers an undefined or negative delay', () => {
    expect(configRetryDelay(7)).toBe(15000);
    expect(configRetryDelay(-1)).toBe(3000);
  });

  it('sends four requests in all, at 0, 3, 11 and 26 s', () => {
    expect(configAttemptTimes()).toEqual([0, 3000, 11000, 26000]);
  });
});
