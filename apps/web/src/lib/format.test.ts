import { describe, expect, it } from 'vitest';
import { formatBytes, formatClock, formatSeconds, playerClock } from './format';

describe('formatBytes', () => {
  it('picks a decimal unit and one decimal', () => {
    expect(formatBytes(812, 'en')).toBe('812 B');
    expect(formatBytes(64_200, 'en')).toBe('64.2 kB');
    expect(formatBytes(1_340_000, 'en')).toBe('1.3 MB');
    expect(formatBytes(-5, 'en')).toBe('0 B');
    expect(formatBytes(2_500_000, 'zh-CN')).toContain('2.5');
  });
});

describe('formatClock', () => {
  it('shows m:ss, and h:mm:ss past an hour', () => {
    expect(formatClock(0)).toBe('0:00');
    expect(formatClock(5.9)).toBe('0:05');
    expect(formatClock(65)).toBe('1:05');
    expect(formatClock(3725)).toBe('1:02:05');
    expect(formatClock(Number.NaN)).toBe('0:00');
    expect(formatClock(Infinity)).toBe('0:00');
  });
});

it('formatSeconds keeps one decimal', () => {
  expect(formatSeconds(3.456, 'en')).toBe('3.5');
  expect(formatSeconds(2, 'zh-CN')).toBe('2.0');
});

describe('playerClock', () => {
  it('ends a 4.7 s clip on the same second it announces', () => {
    expect(playerClock(4.7, 4.7, true)).toEqual({ elapsed: '0:05', total: '0:05' });
    expect(playerClock(4.69, 4.72, false)).toEqual({ elapsed: '0:05', total: '0:05' });
    expect(playerClock(4.4, 4.72, true)).toEqual({ elapsed: '0:05', total: '0:05' });
  });

  it('counts up from zero and never passes the total', () => {
    expect(playerClock(0, 4.7, false)).toEqual({ elapsed: '0:00', total: '0:05' });
    expect(playerClock(2.2, 4.7, false)).toEqual({ elapsed: '0:02', total: '0:05' });
    expect(playerClock(9, 4.7, false)).toEqual({ elapsed: '0:05', total: '0:05' });
    expect(playerClock(1.2, 0, false)).toEqual({ elapsed: '0:01', total: '0:00' });
  });
});
