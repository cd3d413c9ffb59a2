/** A cloned or designed voice is listed in the language it was made in, not in its stand-in base voice's dialect. */
import { describe, expect, it } from 'vitest';
import { languageName } from '@polyvox/contracts';
import { ownVoiceLanguages } from '../../src/design/own-voices.ts';

describe('ownVoiceLanguages', () => {
  it('lists a clone made in English as English, though its base voice is eSpeak’s British one', () => {
    const languages = ownVoiceLanguages('en', ['en-GB', 'en']);
    expect(languages).toEqual(['en', 'en-GB']);
    expect(languageName(languages[0]!, 'en')).toBe('English');
  });

  it('keeps a stated dialect first, once', () => {
    expect(ownVoiceLanguages('en-US', ['en-US', 'en'])).toEqual(['en-US', 'en']);
    expect(ownVoiceLanguages('EN-us', ['en-US', 'en'])).toEqual(['EN-us', 'en']);
  });

  it('falls back to the base voice’s languages when the preview has none', () => {
    expect(ownVoiceLanguages('', ['fr-FR', 'fr'])).toEqual(['fr-FR', 'fr']);
  });
});
