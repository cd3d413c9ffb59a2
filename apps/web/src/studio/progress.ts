import type { Chapter } from './api';

/** A chapter's conversion in percent: the server's progress while it converts, else its paragraphs converted. */
export function chapterPercent(chapter: Pick<Chapter, 'state' | 'conversion_progress' | 'statistics'>): number {
  if (chapter.state === 'converting' && chapter.conversion_progress !== undefined) {
    const p = chapter.conversion_progress;
    return Math.round(Math.min(100, Math.max(0, p <= 1 ? p * 100 : p)));
  }
  const { paragraphs_converted: done, paragraphs_unconverted: left } = chapter.statistics;
  return done + left === 0 ? 0 : Math.round((done / (done + left)) * 100);
}

/** Paragraphs converted and in all, for the chapter's line. */
export function chapterCounts(chapter: Pick<Chapter, 'statistics'>): { done: number; total: number } {
  const { paragraphs_converted: done, paragraphs_unconverted: left } = chapter.statistics;
  return { done, total: done + left };
}
