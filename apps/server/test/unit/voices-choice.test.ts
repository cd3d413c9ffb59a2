import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { VoiceInfo } from '@polyvox/speech';
import { randomTextLanguage, randomTextTable, type RandomText } from '../../src/voices/random-text.js';
import { rankVoices } from '../../src/voices/ranking.js';
import { OPENAI_VOICE_DEFAULTS, openAiVoiceId } from '../../src/synthesis/openai-voices.js';

const texts = randomTextTable(
  JSON.parse(fs.readFileSync(new URL('../../content/random-texts.json', import.meta.url), 'utf8')) as Record<
    string,
    RandomText[]
  >,
);

describe('random texts follow the voice language', () => {
  it('answers the exact language, the same language in another region, and Chinese by script', () => {
    expect(randomTextLanguage(texts, 'en-US')).toBe('en');
    expect(randomTextLanguage(texts, 'en-029')).toBe('en');
    expect(randomTextLanguage(texts, 'fr-CA')).toBe('fr');
    expect(randomTextLanguage(texts, 'zh-CN')).toBe('zh-CN');
    expect(randomTextLanguage(texts, 'cmn')).toBe('zh-CN');
    expect(randomTextLanguage(texts, 'zh-HK')).toBe('zh-TW');
    expect(randomTextLanguage(texts, 'yue')).toBe('zh-TW');
  });

  it('falls back to English for a language without texts, never to another one', () => {
    expect(randomTextLanguage(texts, 'smj')).toBe('en');
    expect(randomTextLanguage(texts, 'tlh')).toBe('en');
    expect(randomTextLanguage(texts, undefined)).toBe('en');
  });

  it('treats prototype names as unknown languages', () => {
    for (const lang of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const key = randomTextLanguage(texts, lang);
      expect(key).toBe('en');
      expect(texts.get(key)!.length).toBeGreaterThan(0);
    }
  });
});

function voice(engine: string, variant: string, languages: string[], id = `${engine}:${variant}`): { info: VoiceInfo } {
  return { info: { id, name: id, gender: 'female', languages, model: engine, engine, variant } as unknown as VoiceInfo };
}

describe('the library lists the most intelligible voices first', () => {
  it('puts Flite slt before eSpeak and GnuSpeech for English', () => {
    const ranked = rankVoices([
      voice('espeak', 'gmw/en-029', ['en-029', 'en'], 'espeak:en-029'),
      voice('gnuspeech', 'default', ['en-US', 'en']),
      voice('flite', 'kal', ['en-US', 'en']),
      voice('espeak', 'gmw/en-US', ['en-US', 'en'], 'espeak:en-us'),
      voice('flite', 'slt', ['en-US', 'en']),
      voice('flite', 'awb', ['en-GB', 'en']),
    ]).map((v) => v.info.id);
    expect(ranked).toEqual(['flite:slt', 'flite:awb', 'flite:kal', 'espeak:en-us', 'espeak:en-029', 'gnuspeech:default']);
  });

  it("among eSpeak's English voices, the American plain voice comes before Caribbean and variants", () => {
    const ranked = rankVoices([
      voice('espeak', 'gmw/en-029', ['en-029', 'en'], 'espeak:en-029'),
      voice('espeak', 'gmw/en-US+f2', ['en-US', 'en'], 'espeak:en-us+f2'),
      voice('espeak', 'gmw/en-GB-scotland', ['en-GB-scotland', 'en'], 'espeak:en-gb-scotland'),
      voice('espeak', 'gmw/en-US', ['en-US', 'en'], 'espeak:en-us'),
    ]).map((v) => v.info.id);
    expect(ranked[0]).toBe('espeak:en-us');
    expect(ranked.indexOf('espeak:en-029')).toBeGreaterThan(0);
    expect(ranked.at(-1)).toBe('espeak:en-us+f2');
  });
});

describe('OpenAI voice names', () => {
  it('map to Flite voices and ignore prototype names', () => {
    for (const id of Object.values(OPENAI_VOICE_DEFAULTS)) expect(id).toMatch(/^voice_flite\./);
    expect(openAiVoiceId('Alloy')).toBe('voice_flite.slt');
    expect(openAiVoiceId('constructor')).toBeUndefined();
    expect(openAiVoiceId('__proto__')).toBeUndefined();
  });
});
