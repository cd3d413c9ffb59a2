import { describe, expect, it } from 'vitest';
import { countCharacters, runsAsJob, textState } from './text';

describe('countCharacters', () => {
  it('skips every kind of whitespace', () => {
    expect(countCharacters('Hello world')).toBe(10);
    expect(countCharacters(' a\tb\nc\u3000d\u00a0 ')).toBe(4);
    expect(countCharacters('')).toBe(0);
  });

  it('counts CJK text and punctuation one per character', () => {
    expect(countCharacters('你好，世界')).toBe(5);
  });

  it('counts by code point, not UTF-16 unit', () => {
    expect('😀𠀋'.length).toBe(4);
    expect(countCharacters('😀𠀋')).toBe(2);
  });
});

describe('textState', () => {
  it('is over the limit only past the maximum', () => {
    expect(textState('a'.repeat(5), 5)).toMatchObject({ characters: 5, over: false, empty: false, percent: 100 });
    expect(textState('a'.repeat(6), 5)).toMatchObject({ characters: 6, over: true, percent: 100 });
    expect(textState('   ', 5)).toMatchObject({ characters: 0, empty: true, percent: 0 });
  });

  it('does not count spaces against the limit', () => {
    expect(textState('a b c d e', 5).over).toBe(false);
  });
});

describe('runsAsJob', () => {
  it('uses a job only above a known threshold', () => {
    expect(runsAsJob(3000, 2000)).toBe(true);
    expect(runsAsJob(2000, 2000)).toBe(false);
    expect(runsAsJob(3000, undefined)).toBe(false);
    expect(runsAsJob(3000, 0)).toBe(false);
  });
});
