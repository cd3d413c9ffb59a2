import { describe, expect, it } from 'vitest';
import { copyText } from './clipboard';
import { dayBound, dayLabel, formatDateTime, pageCount, recordQuery, EMPTY_FILTERS } from './usage';

describe('dayBound', () => {
  it('turns a local day into its first and last instant', () => {
    const start = new Date(dayBound('2026-03-05', false)!);
    const end = new Date(dayBound('2026-03-05', true)!);
    expect([start.getFullYear(), start.getMonth(), start.getDate(), start.getHours()]).toEqual([2026, 2, 5, 0]);
    expect([end.getDate(), end.getHours(), end.getMinutes(), end.getMilliseconds()]).toEqual([5, 23, 59, 999]);
  });

  it('refuses what is not a calendar day', () => {
    expect(dayBound('2026-02-30', false)).toBeNull();
    expect(dayBound('2026-2-3', false)).toBeNull();
    expect(dayBound('', true)).toBeNull();
    expect(dayBound('2026-01-01T00:00:00Z', true)).toBeNull();
  });
});

describe('recordQuery', () => {
  it('sends nothing for empty filters', () => {
    expect(recordQuery(EMPTY_FILTERS)).toEqual({ type: undefined, from: undefined, to: undefined, api_key: undefined });
  });

  it('sends the type, the key and the range, a reversed range put right', () => {
    const q = recordQuery({ type: 'purchase', from: '2026-03-09', to: '2026-03-01', apiKey: 'key_1' });
    expect(q.type).toBe('purchase');
    expect(q.api_key).toBe('key_1');
    expect(q.from).toBe(dayBound('2026-03-01', false));
    expect(q.to).toBe(dayBound('2026-03-09', true));
  });
});

describe('dayLabel and formatDateTime', () => {
  it('label the day itself, not the day of the local time zone', () => {
    expect(dayLabel('2026-11-25', 'en')).toBe('Nov 25');
    expect(dayLabel('2026-11-25', 'zh-CN')).toBe('11月25日');
    expect(dayLabel('garbage', 'en')).toBe('garbage');
    expect(formatDateTime('nope', 'en')).toBeNull();
    expect(formatDateTime('2026-11-25T10:00:00Z', 'en')).toContain('2026');
  });
});

describe('pageCount', () => {
  it('has one page at least', () => {
    expect(pageCount(0, 20)).toBe(1);
    expect(pageCount(20, 20)).toBe(1);
    expect(pageCount(21, 20)).toBe(2);
  });
});

describe('copyText', () => {
  it('says copied when the clipboard took the text', async () => {
    const got: string[] = [];
    expect(await copyText('pvx_secret', { writeText: async (t: string) => void got.push(t) })).toBe('copied');
    expect(got).toEqual(['pvx_secret']);
  });

  it('says denied when the browser refuses or has no clipboard', async () => {
    const refuse = { writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) };
    expect(await copyText('x', refuse)).toBe('denied');
    expect(await copyText('x', null)).toBe('denied');
  });
});
