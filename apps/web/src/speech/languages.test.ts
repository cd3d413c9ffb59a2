import { describe, expect, it } from 'vitest';
import { languageName, languageOptions, languageSummary, preferredVoiceLanguage } from './languages';

describe('language names', () => {
  it('names codes in the UI language and keeps unknown ones as they are', () => {
    expect(languageName('fr', 'en')).toBe('French');
    expect(languageName('fr', 'zh-CN')).toBe('法语');
    expect(languageName('qqq', 'en')).toBe('qqq');
    expect(languageName('not a tag!', 'en')).toBe('not a tag!');
  });

  it('builds unique, sorted options with the code in brackets', () => {
    const options = languageOptions(['fr', 'en', 'fr', 'qqq', 'de'], 'en');
    expect(options.map((o) => o.value)).toEqual(
      ['en', 'fr', 'de', 'qqq'].sort((a, b) => {
        const label = (c: string) => options.find((o) => o.value === c)!.label;
        return label(a).localeCompare(label(b));
      }),
    );
    expect(options.find((o) => o.value === 'fr')?.label).toBe('French (fr)');
    expect(options.find((o) => o.value === 'qqq')?.label).toBe('qqq');
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
