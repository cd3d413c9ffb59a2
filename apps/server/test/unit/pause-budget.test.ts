import { describe, expect, it } from 'vitest';
import { errorMessage } from '@polyvox/contracts';
import { PAUSE_MS } from '@polyvox/speech';
import {
  PAUSE_BUDGET,
  pauseBudgetMs,
  pausedMs,
  spendPauses,
  withinPauseBudget,
  type PauseTally,
} from '../../src/pronunciation/pause-budget.js';
import { readMarkup } from '../../src/pronunciation/ssml.js';
import { AppError } from '../../src/platform/errors.js';

/** The error a text gets from the markup reader, or undefined when it is read. */
function refusal(text: string, textType?: 'ssml'): AppError | undefined {
  try {
    readMarkup(text, textType);
    return undefined;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
}

const breaks = (n: number, time: string) => Array.from({ length: n }, () => `<break time="${time}"/>`).join('');

describe('the pause budget', () => {
  it('grows by half a second a character from a base of 3 s, up to 60 s; nothing without a character', () => {
    expect(pauseBudgetMs(0)).toBe(0);
    expect(pauseBudgetMs(1)).toBe(3_500);
    expect(pauseBudgetMs(10)).toBe(8_000);
    expect(pauseBudgetMs(114)).toBe(60_000);
    expect(pauseBudgetMs(5_000)).toBe(PAUSE_BUDGET.maxMs);
    for (let c = 0; c < 300; c++) expect(pauseBudgetMs(c + 1)).toBeGreaterThanOrEqual(pauseBudgetMs(c));
  });

  it('counts every pause: breaks, strengths, paragraph ends and a break at the very start', () => {
    const doc = readMarkup('<speak><break time="1s"/><p>ab</p><p>cd<break strength="x-strong"/>ef</p></speak>')!;
    expect(pausedMs(doc)).toBe(1_000 + PAUSE_MS.paragraph + 1_200 + PAUSE_MS.paragraph);
  });

  it('refuses 300 breaks of 10 s around two words, naming the limit, in every language', () => {
    const e = refusal(`<speak>Hi ${breaks(300, '10s')} there</speak>`);
    expect(e?.code).toBe('VALIDATION_FAILED');
    expect(e?.params['field']).toBe('text');
    expect(e?.params['rule']).toBe(
      'pauses may last at most 6.5 s in all for 7 characters (3 s and 0.5 s per character, 60 s at most); these last 3000 s',
    );
    expect(errorMessage('VALIDATION_FAILED', 'en', e!.params)).toBe(
      'Pauses may last at most 6.5 s in all for 7 characters (3 s and 0.5 s per character, 60 s at most); these last 3000 s',
    );
    expect(errorMessage('VALIDATION_FAILED', 'zh-CN', e!.params)).toBe(
      '停顿总长最多 6.5 秒（7 个字符：3 秒，另加每个字符 0.5 秒，最多 60 秒）；这些停顿共 3000 秒',
    );
    expect(errorMessage('VALIDATION_FAILED', 'zh-TW', e!.params)).toContain('停頓總長最多 6.5 秒');
  });

  it("holds ElevenLabs' breaks in plain text, empty paragraphs and many short breaks to the same rule", () => {
    expect(refusal(`Hello there ${'<break time="3s" />'.repeat(300)} friend`)?.params['rule']).toMatch(
      /^pauses may last at most 11 s in all for 16 characters .*; these last 900 s$/,
    );
    // Empty paragraphs add no pause; short ones add a paragraph's pause each.
    expect(refusal(`<speak>a${'<p></p>'.repeat(20)}</speak>`, 'ssml')).toBeUndefined();
    expect(refusal(`<speak>${'<p>a</p>'.repeat(20)}</speak>`, 'ssml')?.params['rule']).toMatch(/these last 13.6 s$/);
    expect(refusal(`<speak>a${breaks(1000, '100ms')}</speak>`)?.params['rule']).toMatch(/these last 100 s$/);
    // A break with nothing priced around it makes silence for nothing.
    expect(refusal('<speak><break time="1s"/></speak>')?.params['rule']).toMatch(/^pauses may last at most 0 s/);
  });

  it('accepts a document at its limit, and the largest one at 60 s', () => {
    // 10 characters: 8 s.
    expect(refusal(`<speak>abcde ${breaks(4, '2s')} fghij</speak>`)).toBeUndefined();
    expect(refusal(`<speak>abcde ${breaks(4, '2s')}<break time="1ms"/> fghij</speak>`)).toBeDefined();
    const words = 'word '.repeat(30); // 120 characters
    const largest = readMarkup(`<speak>${words}${breaks(6, '10s')}</speak>`)!;
    expect(pausedMs(largest)).toBe(60_000);
    expect(refusal(`<speak>${words}${breaks(6, '10s')}<break time="1ms"/></speak>`)).toBeDefined();
    expect(refusal(`<speak>${'word '.repeat(2_000)}${breaks(7, '10s')}</speak>`)?.params['rule']).toMatch(
      /^pauses may last at most 60 s in all for 8000 characters/,
    );
  });

  it("holds a stream's pieces to the budget as a whole: breaks alone pass after the words that paid for them", () => {
    const tally: PauseTally = { characters: 0, pausedMs: 0 };
    const piece = (text: string) => {
      const doc = readMarkup(text, undefined, undefined, tally);
      spendPauses(tally, doc?.characters ?? text.replace(/\s/g, '').length, doc);
    };
    // 100 characters of words, then breaks of 3 s in pieces of their own: 53 s earned.
    piece('word '.repeat(25));
    for (let i = 0; i < 17; i++) piece('<break time="3s" />');
    expect(tally).toEqual({ characters: 100, pausedMs: 51_000 });
    expect(() => piece('<break time="3s" />')).toThrow(/^VALIDATION_FAILED$/);
    try {
      piece('<break time="3s" />');
    } catch (e) {
      expect((e as AppError).params['rule']).toBe(
        'pauses may last at most 2 s in all for 100 characters (3 s and 0.5 s per character, 60 s at most); these last 3 s',
      );
    }
    // More words earn more; one piece never asks for more than the ceiling.
    piece('more '.repeat(40));
    expect(() => readMarkup(`x ${'<break time="3s" />'.repeat(21)}`, undefined, undefined, tally)).toThrow();
    expect(readMarkup(`x ${'<break time="3s" />'.repeat(20)}`, undefined, undefined, tally)).toBeDefined();
  });

  it('passes a document with no pause, and plain text without breaks is not markup', () => {
    const doc = { parts: [{ end: 3 }], characters: 3 };
    expect(withinPauseBudget(doc)).toBe(doc);
    expect(readMarkup('no breaks here')).toBeUndefined();
  });
});
