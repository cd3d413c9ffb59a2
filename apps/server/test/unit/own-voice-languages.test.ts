/** A cloned or designed voice is listed in the language it was made in, not in its stand-in base voice's dialect. */
import { describe, expect, it } from 'vitest';
import { languageName } from '@polyvox/contracts';
import { ownVoiceLanguages } from '../../src/design/own-voices.ts';

describe('ownVoiceLanguages', () => {
  it('lists a clone made in English as English, never as its base voice’s British dialect', () => {
    const languages = ownVoiceLanguages('en', ['en-GB', 'en']);
    expect(languages).toEqual(['en']);
    expect(languages.map((l) => languageName(l, 'en'))).toEqual(['English']);
    expect(ownVoiceLanguages('en-US', ['en-GB-x-rp', 'en-GB', 'en'])).toEqual(['en-US', 'en']);
  });

  it('keeps the base voice’s other languages', () => {
    expect(ownVoiceLanguages('en', ['en-GB', 'de', 'fr-FR'])).toEqual(['en', 'de', 'fr-FR']);
    expect(ownVoiceLanguages('zh-CN', ['cmn', 'zh-TW', 'en'])).toEqual(['zh-CN', 'cmn', 'en']);
  });

  it('keeps a stated dialect first, once', () => {
    expect(ownVoiceLanguages('en-US', ['en-US', 'en'])).toEqual(['en-US', 'en']);
    expect(ownVoiceLanguages('EN-us', ['en-US', 'en'])).toEqual(['EN-us', 'en']);
  });

  it('falls back to the base voice’s languages when the preview has none', () => {
    expect(ownVoiceLanguages('', ['fr-FR', 'fr'])).toEqual(['fr-FR', 'fr']);
  });
});
