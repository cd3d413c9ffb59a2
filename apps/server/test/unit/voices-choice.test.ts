import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUALITY, type VoiceInfo } from '@polyvox/speech';
import { randomTextLanguage, randomTextTable, type RandomText } from '../../src/voices/random-text.js';
import { rankVoices } from '../../src/voices/ranking.js';
import { OPENAI_VOICES, openAiVoiceId } from '../../src/voices/openai-voices.js';

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

/** Each engine's declared rank, as createSpeech gives its voices. */
const RANK = new Map<string, number>([
  ['sherpa', QUALITY.neural],
  ['flite', QUALITY.flite],
  ['espeak', QUALITY.espeak],
  ['gnuspeech', QUALITY.gnuspeech],
]);

function voice(
  engine: string,
  variant: string,
  languages: string[],
  id = `${engine}:${variant}`,
  gender = 'female',
): { info: VoiceInfo } {
  return {
    info: { id, name: id, gender, languages, model: engine, engine, variant, quality: RANK.get(engine) } as unknown as VoiceInfo,
  };
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

/** The built-in English voices, as the library ranks them. */
const BUILT_IN = [
  voice('flite', 'slt', ['en-US', 'en'], 'flite:slt', 'female'),
  voice('flite', 'awb', ['en-GB', 'en'], 'flite:awb', 'male'),
  voice('flite', 'rms', ['en-US', 'en'], 'flite:rms', 'male'),
  voice('flite', 'kal16', ['en-US', 'en'], 'flite:kal16', 'male'),
  voice('espeak', 'gmw/en-US', ['en-US', 'en'], 'espeak:en-us', 'male'),
];

describe('the best installed voice comes first', () => {
  it('ranks a neural voice before Flite, eSpeak NG and GnuSpeech, whatever the engines’ order', () => {
    const ranked = rankVoices([
      voice('gnuspeech', 'default', ['en-US', 'en']),
      ...BUILT_IN,
      voice('sherpa', '0', ['en-US', 'en'], 'sherpa:kokoro:0'),
    ]).map((v) => v.info.id);
    expect(ranked[0]).toBe('sherpa:kokoro:0');
    expect(ranked.slice(1)).toEqual(['flite:slt', 'flite:awb', 'flite:rms', 'flite:kal16', 'espeak:en-us', 'gnuspeech:default']);
  });

  it('lets a model declare a lower rank than its engine', () => {
    const weak = voice('sherpa', '0', ['en'], 'sherpa:weak:0');
    weak.info.quality = QUALITY.espeak - 1;
    expect(
      rankVoices([weak, ...BUILT_IN])
        .map((v) => v.info.id)
        .at(-1),
    ).toBe('sherpa:weak:0');
  });
});

describe('OpenAI voice names', () => {
  const ids = (ranked: { info: VoiceInfo }[]) =>
    new Map(
      [...OPENAI_VOICES.keys()].map((n) => [
        n,
        openAiVoiceId(
          n,
          rankVoices(ranked).map((v) => v.info),
        ),
      ]),
    );

  it('map to the Flite voices when no neural model is installed, spread by gender', () => {
    const map = ids(BUILT_IN);
    expect(map.get('alloy')).toBe('voice_flite.slt');
    expect(map.get('nova')).toBe('voice_flite.slt');
    expect(map.get('ballad')).toBe('voice_flite.awb');
    expect(map.get('echo')).toBe('voice_flite.rms');
    expect(map.get('onyx')).toBe('voice_flite.kal16');
    expect(
      openAiVoiceId(
        'Alloy',
        BUILT_IN.map((v) => v.info),
      ),
    ).toBe('voice_flite.slt');
  });

  it('map to the installed neural voices once a model speaks English, by gender, else to its neutral voices', () => {
    const kokoro = [
      voice('sherpa', '0', ['en-US', 'en'], 'sherpa:kokoro:0', 'female'),
      voice('sherpa', '1', ['en-GB', 'en'], 'sherpa:kokoro:1', 'male'),
      voice('sherpa', '2', ['en-US', 'en'], 'sherpa:kokoro:2', 'male'),
    ];
    const map = ids([...BUILT_IN, ...kokoro]);
    expect(map.get('alloy')).toBe('voice_sherpa.kokoro.0');
    expect(map.get('ballad')).toBe('voice_sherpa.kokoro.1');
    expect(map.get('echo')).toBe('voice_sherpa.kokoro.2');
    // Slot 2 of two male voices comes round to the first.
    expect(map.get('onyx')).toBe('voice_sherpa.kokoro.1');
    // A Piper voice says no gender: every name maps to it.
    const piper = ids([...BUILT_IN, voice('sherpa', '0', ['en-US', 'en'], 'sherpa:lessac:0', 'neutral')]);
    expect(new Set(piper.values())).toEqual(new Set(['voice_sherpa.lessac.0']));
    // A neural model of another language changes nothing for English.
    expect(ids([...BUILT_IN, voice('sherpa', '0', ['zh-CN', 'zh'], 'sherpa:zh:0')])).toEqual(ids(BUILT_IN));
  });

  it('ignore other names, prototype names included', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'rachel'])
      expect(
        openAiVoiceId(
          name,
          BUILT_IN.map((v) => v.info),
        ),
      ).toBeUndefined();
  });
});
