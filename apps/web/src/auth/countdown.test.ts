import { describe, expect, it } from 'vitest';
import { CooldownBook, secondsLeft } from './countdown';

describe('secondsLeft', () => {
  it('rounds up and never goes below zero', () => {
    expect(secondsLeft(undefined, 0)).toBe(0);
    expect(secondsLeft(60_000, 0)).toBe(60);
    expect(secondsLeft(60_000, 100)).toBe(60);
    expect(secondsLeft(60_000, 59_001)).toBe(1);
    expect(secondsLeft(60_000, 60_000)).toBe(0);
    expect(secondsLeft(60_000, 90_000)).toBe(0);
  });
});

describe('CooldownBook', () => {
  it('blocks sending for the given seconds, per email', () => {
    const book = new CooldownBook();
    book.start('a@x.com', 60, 0);
    expect(book.canSend('a@x.com', 0)).toBe(false);
    expect(book.left('a@x.com', 30_000)).toBe(30);
    expect(book.canSend('b@x.com', 0)).toBe(true);
    expect(book.canSend('a@x.com', 60_000)).toBe(true);
  });

  it('treats addresses case- and space-insensitively', () => {
    const book = new CooldownBook();
    book.start(' A@X.com ', 60, 0);
    expect(book.left('a@x.com', 1000)).toBe(59);
  });

  it("takes the server's retry-after over a running countdown", () => {
    const book = new CooldownBook();
    book.start('a@x.com', 60, 0);
    book.start('a@x.com', 17, 10_000);
    expect(book.left('a@x.com', 10_000)).toBe(17);
  });

  it('ignores zero or invalid durations', () => {
    const book = new CooldownBook();
    book.start('a@x.com', 0, 0);
    book.start('a@x.com', Number.NaN, 0);
    expect(book.canSend('a@x.com', 0)).toBe(true);
  });
});
