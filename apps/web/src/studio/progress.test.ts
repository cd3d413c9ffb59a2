import { describe, expect, it } from 'vitest';
import { attachmentName } from './attachment';
import { chapterCounts, chapterPercent } from './progress';

const stats = (done: number, left: number) => ({
  paragraphs_converted: done,
  paragraphs_unconverted: left,
  characters_converted: 0,
  characters_unconverted: 0,
});

describe('chapter progress', () => {
  it('follows the server while the chapter converts (a fraction or a percent)', () => {
    expect(chapterPercent({ state: 'converting', conversion_progress: 0.25, statistics: stats(0, 4) })).toBe(25);
    expect(chapterPercent({ state: 'converting', conversion_progress: 60, statistics: stats(0, 4) })).toBe(60);
  });

  it('is the share of paragraphs converted otherwise, 0 for an empty chapter', () => {
    expect(chapterPercent({ state: 'default', statistics: stats(1, 3) })).toBe(25);
    expect(chapterPercent({ state: 'default', conversion_progress: 0.5, statistics: stats(4, 0) })).toBe(100);
    expect(chapterPercent({ state: 'default', statistics: stats(0, 0) })).toBe(0);
    expect(chapterCounts({ statistics: stats(2, 3) })).toEqual({ done: 2, total: 5 });
  });
});

describe('attachmentName', () => {
  it('reads the UTF-8 name first, then the plain one', () => {
    expect(attachmentName(`attachment; filename="book.m4b"; filename*=UTF-8''%E4%B9%A6.m4b`)).toBe('书.m4b');
    expect(attachmentName('attachment; filename="book.zip"')).toBe('book.zip');
    expect(attachmentName('attachment')).toBeNull();
    expect(attachmentName(null)).toBeNull();
  });
});
