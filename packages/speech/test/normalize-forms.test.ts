/**
 * Written forms against the spoken forms a person would say, in English and Chinese: numbers, ordinals, years,
 * decimals, negatives, percentages, money, times, dates, units, abbreviations, fractions, addresses and phone numbers
 * (the cases in support/normalize-forms.json). Each is also checked to be what `POST /tts/normalize` answers: the
 * plan's sentences, joined.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeText } from '../src/text/normalize.ts';
import { spokenText } from '../src/pipeline/plan.ts';
import { splitSentences } from '../src/text/segment.ts';

const forms = JSON.parse(readFileSync(new URL('./support/normalize-forms.json', import.meta.url), 'utf8')) as Record<
  'en-US' | 'zh-CN',
  [string, string][]
>;

describe('normalisation of written forms', () => {
  it('has at least 300 forms, roughly half in each language, none twice', () => {
    const en = forms['en-US'];
    const zh = forms['zh-CN'];
    expect(en.length + zh.length).toBeGreaterThanOrEqual(300);
    expect(Math.min(en.length, zh.length)).toBeGreaterThanOrEqual(140);
    for (const list of [en, zh]) expect(new Set(list.map(([w]) => w)).size).toBe(list.length);
  });

  for (const language of ['en-US', 'zh-CN'] as const) {
    describe(language, () => {
      it.each(forms[language])('%s → %s', (written, spoken) => {
        expect(normalizeText(written, language)).toBe(spoken);
        // Segmented and joined again (what /tts/normalize shows), the text is the same.
        expect(spokenText(splitSentences(normalizeText(written, language)))).toBe(spoken);
      });
    });
  }
});
