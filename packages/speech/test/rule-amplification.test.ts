import { describe, expect, it } from 'vitest';
import { makePlan, maxAdded, type PlanContext } from '../src/pipeline/plan.ts';
import type { LexiconRule } from '../src/text/lexicon.ts';
import type { MarkupDocument } from '../src/text/markup.ts';
import { DEFAULT_PROFILE, type VoiceInfo } from '../src/core/types.ts';

/**
 * Prices count the text as sent, so what rules put in is bounded: an alias of 500 characters on "a" must not turn
 * 400 priced characters into 200,000 spoken ones, nor `<phoneme ph>` strings minutes of speech for one character each.
 */
const EN: VoiceInfo = {
  id: 'espeak:en-us',
  name: 'en-us',
  gender: 'female',
  languages: ['en-US'],
  model: 'espeak',
  engine: 'espeak',
  variant: 'en-us',
  profile: DEFAULT_PROFILE,
  previewText: 'Hi.',
  phonemes: 'espeak',
};
const ctx: PlanContext = { findVoice: () => undefined, maxTextLength: 5000 };
const alias = (string_to_replace: string, to: string): LexiconRule => ({ type: 'alias', string_to_replace, alias: to });
const doc = (written: string, rules: MarkupDocument['rules']): MarkupDocument => ({
  written,
  characters: written.replace(/\s/g, '').length,
  spans: [],
  rules,
  parts: [{ end: written.length }],
  marks: [],
});

describe('what pronunciation rules may add', () => {
  it('refuses a dictionary whose aliases would multiply the text, naming the bound', () => {
    const text = Array.from({ length: 400 }, () => 'a').join(' ');
    const long = alias('a', 'supercalifragilistic '.repeat(24).trim());
    expect(() => makePlan({ text, voice: EN, lexicon: [long] }, ctx)).toThrow(
      `text: pronunciation rules may add at most ${maxAdded(400)} characters to it (these add ${400 * (long.alias!.replace(/\s/g, '').length - 1)})`,
    );
  });

  it('lets through what dictionaries are for: acronyms spelled out, names respelled, phonemes', () => {
    const rules = [alias('AWS', 'Amazon Web Services'), alias('GCP', 'Google Cloud Platform'), alias('Nguyen', 'Win')];
    const plan = makePlan({ text: 'AWS, GCP and AWS again, said Nguyen.', voice: EN, lexicon: rules }, ctx);
    expect(plan.text).toContain('Amazon Web Services, Google Cloud Platform and Amazon Web Services again, said Win.');
    // Prose dense with them: every sentence two acronyms spelled out, five times over.
    const prose = 'We moved from GCP to AWS last year, and it was cheaper. '.repeat(5);
    expect(makePlan({ text: prose, voice: EN, lexicon: rules }, ctx).sentences.length).toBe(5);
    const phoneme: LexiconRule = { type: 'phoneme', string_to_replace: 'Bo', phoneme: 'həˈloʊ', alphabet: 'ipa' };
    expect(makePlan({ text: 'Say Bo now.', voice: EN, lexicon: [phoneme] }, ctx).text).toMatch(/\[\[.+\]\]/);
  });

  it('counts SSML phoneme strings, but not <say-as> readings (the platform’s own, like normalisation)', () => {
    // <phoneme ph="ʃəʃə…">x</phoneme> forty times: 40 priced characters, 32,000 phoneme characters.
    const written = Array.from({ length: 40 }, () => 'x').join(' ');
    const rules: MarkupDocument['rules'] = [];
    for (let i = 0; i < 40; i++)
      rules.push({
        from: 2 * i,
        to: 2 * i + 1,
        rule: { type: 'phoneme', string_to_replace: 'x', phoneme: 'ʃə'.repeat(400), alphabet: 'ipa' },
      });
    expect(() => makePlan({ text: written, voice: EN, markup: doc(written, rules) }, ctx)).toThrow(
      /^text: pronunciation rules may add at most 180 characters to it \(these add \d+\)$/,
    );
    // A hundred digits read one by one as words are five times as long, and pass.
    const digits = '7'.repeat(100);
    const sayAs = makePlan(
      { text: digits, voice: EN, markup: doc(digits, [{ from: 0, to: 100, sayAs: { kind: 'digits' } }]) },
      ctx,
    );
    expect(sayAs.text.replace(/\s/g, '').length).toBeGreaterThan(100 + maxAdded(100));
  });
});
