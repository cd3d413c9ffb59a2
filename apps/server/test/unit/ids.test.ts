import { afterEach, describe, expect, it, vi } from 'vitest';
import { ID_PREFIX, newId, randomToken, type IdKind } from '../../src/platform/ids.js';

describe('newId', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts every id with the prefix of its kind', () => {
    expect(ID_PREFIX).toMatchObject({
      account: 'acc',
      voice: 'voice',
      order: 'ord',
      apiKey: 'key',
      file: 'file',
      preview: 'prv',
      record: 'rec',
      request: 'req',
    });
    for (const [kind, prefix] of Object.entries(ID_PREFIX)) {
      expect(newId(kind as IdKind)).toMatch(new RegExp(`^${prefix}_[0-9a-z]{24}$`));
    }
  });

  it('sorts by creation, within one millisecond and across milliseconds', () => {
    vi.useFakeTimers({ now: new Date('2025-06-01T00:00:00Z'), toFake: ['Date'] });
    const ids: string[] = [];
    for (let i = 0; i < 2000; i++) {
      ids.push(newId('record'));
      if (i % 500 === 499) vi.advanceTimersByTime(1);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps sorting by creation when the clock steps back', () => {
    vi.useFakeTimers({ now: new Date('2025-06-01T00:00:10Z'), toFake: ['Date'] });
    const first = newId('record');
    vi.setSystemTime(new Date('2025-06-01T00:00:05Z'));
    const second = newId('record');
    const third = newId('record');
    expect([first, second, third].sort()).toEqual([first, second, third]);
  });

  it('keeps its length and order past 46656 ids in one millisecond', () => {
    vi.useFakeTimers({ now: new Date('2025-06-01T00:00:20Z'), toFake: ['Date'] });
    const ids = Array.from({ length: 50_000 }, () => newId('request'));
    expect(ids.every((id) => id.length === 28)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });

  it('is unique and unguessable in its tail', () => {
    const tails = new Set(Array.from({ length: 5000 }, () => newId('account').slice(-12)));
    expect(tails.size).toBe(5000);
  });
});

describe('randomToken', () => {
  it('gives url-safe tokens of the asked entropy', () => {
    expect(randomToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken(6)).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(randomToken()).not.toBe(randomToken());
  });
});
