import { describe, expect, it } from 'vitest';
import { LOCALE_FLAGS } from '@polyvox/contracts';
import { isTranslated, localeInfo, resolveChoice } from './locale';

const SEED = [
  'af',
  'ar',
  'bg',
  'ca',
  'cs',
  'da',
  'de',
  'el',
  'en-US',
  'es',
  'fa',
  'fi',
  'fil',
  'fr',
  'he',
  'hi',
  'hr',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'ms',
  'nl',
  'nn',
  'no',
  'pl',
  'pt',
  'ro',
  'ru',
  'sk',
  'sl',
  'sv',
  'ta',
  'th',
  'tr',
  'uk',
  'vi',
  'zh-CN',
  'zh-HK',
];

describe('the locale list', () => {
  it("is the seed's 40 codes", () => {
    expect(LOCALE_FLAGS.map((l) => l.code)).toEqual(SEED);
  });
});

describe('resolveChoice', () => {
  it('defaults to zh-CN', () => {
    expect(resolveChoice(null)).toEqual({ choice: 'zh-CN', ui: 'zh-CN' });
    expect(resolveChoice('klingon')).toEqual({ choice: 'zh-CN', ui: 'zh-CN' });
    expect(resolveChoice('constructor')).toEqual({ choice: 'zh-CN', ui: 'zh-CN' });
  });

  it('shows the three translations for en-US, zh-CN and zh-HK, and takes the old stored codes', () => {
    expect(resolveChoice('en-US')).toEqual({ choice: 'en-US', ui: 'en' });
    expect(resolveChoice('zh-CN')).toEqual({ choice: 'zh-CN', ui: 'zh-CN' });
    expect(resolveChoice('zh-HK')).toEqual({ choice: 'zh-HK', ui: 'zh-TW' });
    expect(resolveChoice('en')).toEqual({ choice: 'en-US', ui: 'en' });
    expect(resolveChoice('zh-TW')).toEqual({ choice: 'zh-HK', ui: 'zh-TW' });
  });

  it('shows English for the other 37 locales while remembering the choice', () => {
    const others = LOCALE_FLAGS.filter((l) => !isTranslated(l.code));
    expect(others).toHaveLength(37);
    for (const { code } of others) expect(resolveChoice(code)).toEqual({ choice: code, ui: 'en' });
  });

  it("follows the browser's language when nothing is stored, and the default only for other languages", () => {
    expect(resolveChoice(null, ['en-US', 'zh-CN'])).toEqual({ choice: 'en-US', ui: 'en' });
    expect(resolveChoice(null, ['en-GB'])).toEqual({ choice: 'en-US', ui: 'en' });
    expect(resolveChoice(null, ['zh-TW'])).toEqual({ choice: 'zh-HK', ui: 'zh-TW' });
    expect(resolveChoice(null, ['zh-Hant-HK'])).toEqual({ choice: 'zh-HK', ui: 'zh-TW' });
    expect(resolveChoice(null, ['zh'])).toEqual({ choice: 'zh-CN', ui: 'zh-CN' });
    expect(resolveChoice(null, ['fr-FR', 'de', 'zh-TW'])).toEqual({ choice: 'zh-HK', ui: 'zh-TW' });
    expect(resolveChoice(null, ['fr-FR', 'ja'])).toEqual({ choice: 'zh-CN', ui: 'zh-CN' });
    expect(resolveChoice(null, [])).toEqual({ choice: 'zh-CN', ui: 'zh-CN' });
    // A stored choice wins over the browser.
    expect(resolveChoice('zh-CN', ['en-US'])).toEqual({ choice: 'zh-CN', ui: 'zh-CN' });
  });

  it('finds flags by country', () => {
    expect(localeInfo('ja').flag).toBe('jp');
    expect(localeInfo('zz').code).toBe('zz');
  });
});
