import { describe, expect, it } from 'vitest';
import { languageName, languageOptions, languageSummary, libraryLanguage, preferredVoiceLanguage } from './languages';

describe('language names', () => {
  it('names codes in the UI language and keeps unknown ones as they are', () => {
    expect(languageName('fr', 'en')).toBe('French');
    expect(languageName('fr', 'zh-CN')).toBe('法语');
    expect(languageName('qqq', 'en')).toBe('qqq');
    expect(languageName('not a tag!', 'en')).toBe('not a tag!');
  });

  it('names every library code in the three UI languages even where the browser knows none of them', () => {
    const knowsNothing = { language: () => undefined, region: () => undefined };
    expect(languageName('smj', 'zh-CN', knowsNothing)).toBe('律勒萨米语');
    expect(languageName('tlh', 'zh-TW', knowsNothing)).toBe('克林貢語');
    expect(languageName('xex', 'en', knowsNothing)).toBe('Xextan');
    expect(languageName('yue', 'zh-CN', knowsNothing)).toBe('粤语');
    // Bashkir was once shown as its raw code "ba" (Chromium's locale data lacks it).
    expect(['en', 'zh-CN', 'zh-TW'].map((ui) => languageName('ba', ui, knowsNothing))).toEqual([
      'Bashkir',
      '巴什基尔语',
      '巴什基爾文',
    ]);
    // A known language with a region the browser lacks: spelled out from the tables.
    const knowsEnglish = { language: (c: string) => (c === 'en' ? '英语' : undefined), region: () => undefined };
    expect(languageName('en-029', 'zh-CN', knowsEnglish)).toBe('英语（加勒比地区）');
    expect(languageName('en-GB-x-rp', 'zh-CN', knowsEnglish)).toBe('英语（GB，标准发音）');
  });

  it('never shows a library code raw in a Chinese UI', () => {
    const codes = [
      'ba',
      'en-029',
      'smj',
      'tlh',
      'xex',
      'qdb',
      'py',
      'sjn',
      'ca-x-va',
      'en-US-x-nyc',
      'es-419',
      'hyw',
      'tlh-Piqd',
    ];
    for (const ui of ['zh-CN', 'zh-TW', 'en']) {
      for (const code of codes) expect(languageName(code, ui), `${code} in ${ui}`).not.toBe(code);
    }
  });

  it('builds unique options labelled with the code, sorted by label', () => {
    const options = languageOptions(['fr', 'en', 'fr', 'qqq', 'de'], 'en');
    expect(options).toEqual([
      { value: 'en', label: 'English (en)' },
      { value: 'fr', label: 'French (fr)' },
      { value: 'de', label: 'German (de)' },
      { value: 'qqq', label: 'qqq' },
    ]);
  });

  it('summarizes a voice’s languages without repeating a name', () => {
    expect(languageSummary(['en-US', 'en'], 'en')).toEqual({ text: 'American English, English', more: 0 });
    expect(languageSummary(['fr', 'de', 'es', 'it'], 'en', 2)).toEqual({ text: 'French, German', more: 2 });
  });

  it('starts Chinese UIs on a Chinese voice and the rest on US English', () => {
    expect(preferredVoiceLanguage('zh-TW')).toBe('zh-TW');
    expect(preferredVoiceLanguage('en')).toBe('en-US');
  });
});

describe('libraryLanguage', () => {
  it('uses the detected code, or its primary subtag, if the library has it', () => {
    expect(libraryLanguage('zh-CN', ['zh', 'zh-CN'])).toBe('zh-CN');
    expect(libraryLanguage('fr-CA', ['fr', 'en'])).toBe('fr');
    expect(libraryLanguage('xx', ['fr'])).toBeUndefined();
    expect(libraryLanguage(undefined, ['fr'])).toBeUndefined();
  });
});
