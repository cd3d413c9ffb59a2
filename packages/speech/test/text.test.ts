import { describe, expect, it } from 'vitest';
import { cacheKey, MemoryAudioCache } from '../src/pipeline/cache.ts';
import { checkLanguage, detectLanguage } from '../src/text/detect-language.ts';
import { countCharacters, normalizeText } from '../src/text/normalize.ts';
import { chineseCardinal, englishCardinal } from '../src/text/numbers.ts';
import { splitSentences } from '../src/text/segment.ts';
import { DEFAULT_PROFILE } from '../src/core/types.ts';

describe('normalization: English', () => {
  const en = (s: string): string => normalizeText(s, 'en-US');
  it('reads numbers, money, dates, times, units and percentages', () => {
    expect(englishCardinal('1234567')).toBe('one million two hundred thirty-four thousand five hundred sixty-seven');
    expect(en('I paid $1,234.56')).toBe('I paid one thousand two hundred thirty-four dollars and fifty-six cents');
    expect(en('It costs €1.')).toBe('It costs one euro.');
    expect(en('a $2.5 million deal')).toBe('a two point five million dollars deal');
    expect(en('on 2024-03-05')).toBe('on March fifth, twenty twenty-four');
    expect(en('at 7:05 pm')).toBe('at seven oh five p m');
    expect(en('run 5km at 25°C')).toBe('run five kilometers at twenty-five degrees Celsius');
    expect(en('50% off')).toBe('fifty percent off');
    expect(en('the 21st time in 1999')).toBe('the twenty-first time in nineteen ninety-nine');
    expect(en('Dr. Smith has -3.5 points')).toBe('Doctor Smith has minus three point five points');
  });
  it('does not read a word as a unit', () => {
    expect(en('Put 5 in the box')).toBe('Put five in the box');
  });
});

describe('normalization: Chinese', () => {
  const zh = (s: string): string => normalizeText(s, 'zh-CN');
  it('reads numbers the Chinese way', () => {
    expect(chineseCardinal('10010')).toBe('一万零一十');
    expect(chineseCardinal('1411778724')).toBe('十四亿一千一百七十七万八千七百二十四');
    expect(chineseCardinal('12')).toBe('十二');
  });
  it('reads dates, times, money, percentages, units and phone numbers', () => {
    expect(zh('2024年3月5日')).toBe('二零二四年三月五日');
    expect(zh('2024-03-05')).toBe('二零二四年三月五日');
    expect(zh('下午3:05到')).toBe('下午三点零五分到');
    expect(zh('花了¥12.50')).toBe('花了十二元五角');
    expect(zh('增长了50%')).toBe('增长了百分之五十');
    expect(zh('距离12.5km')).toBe('距离十二点五公里');
    expect(zh('温度25℃')).toBe('温度二十五摄氏度');
    expect(zh('电话13812345678')).toBe('电话一三八一二三四五六七八');
    expect(zh('买了2个苹果')).toBe('买了两个苹果');
  });
});

describe('segmentation', () => {
  it('splits on Western and CJK sentence punctuation, keeping quotes and abbreviations', () => {
    expect(splitSentences('Hello Mr. Smith. It is 3.14 today! Really?! "Yes." Next.')).toEqual([
      'Hello Mr. Smith.',
      'It is 3.14 today!',
      'Really?!',
      '"Yes."',
      'Next.',
    ]);
    expect(splitSentences('你好。今天天气很好！真的吗？「是的。」好的…再见')).toEqual([
      '你好。',
      '今天天气很好！',
      '真的吗？',
      '「是的。」',
      '好的…',
      '再见',
    ]);
    expect(splitSentences('第一句。Second one. 第三句！')).toEqual(['第一句。', 'Second one.', '第三句！']);
  });
  it('breaks over-long sentences at clause punctuation', () => {
    const long = Array.from({ length: 30 }, (_, i) => `clause number ${i}`).join(', ') + '.';
    const parts = splitSentences(long, { maxChars: 100 });
    expect(parts.length).toBeGreaterThan(3);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(100);
    expect(parts.join(' ').replace(/\s+/g, ' ')).toBe(long);
  });
});

describe('language detection', () => {
  it('names the language of a text from its scripts and words', () => {
    expect(detectLanguage('Hello, this is a test of the voice.').language).toBe('en');
    expect(detectLanguage('你好，世界，今天天气很好').language).toBe('zh-CN');
    expect(detectLanguage('這個說明很好').language).toBe('zh-TW');
    expect(detectLanguage('你好嘅世界係咁').language).toBe('yue');
    expect(detectLanguage('こんにちは世界').language).toBe('ja');
    expect(detectLanguage('안녕하세요 여러분').language).toBe('ko');
    expect(detectLanguage('Bonjour, je suis une voix et vous êtes là').language).toBe('fr');
    expect(detectLanguage('Привет, это мой голос').language).toBe('ru');
    expect(detectLanguage('12345').language).toBe('und');
  });
  it('checks a text against a voice: refuses a confident mismatch, passes a guess', () => {
    expect(checkLanguage('你好，世界，今天天气很好', ['en-US', 'en']).ok).toBe(false);
    expect(checkLanguage('你好，世界，今天天气很好', ['zh-CN', 'zh']).ok).toBe(true);
    expect(checkLanguage('你好嘅世界係咁', ['yue', 'zh-HK']).ok).toBe(true);
    expect(checkLanguage('Hello, this is a test of the voice.', ['zh-CN']).ok).toBe(false);
    expect(checkLanguage('OK 123', ['zh-CN']).ok).toBe(true);
  });
  it('does not take short English for Portuguese because of an article', () => {
    expect(checkLanguage('A streamed text. '.repeat(50), ['en-US', 'en']).ok).toBe(true);
    expect(checkLanguage('A cat sat on a mat by the door, and a dog was at the gate.', ['en-US', 'en']).ok).toBe(true);
    expect(detectLanguage('O gato está em casa e a menina não quer sair com você.').language).toBe('pt');
  });
  it('does not read the letters of a code as words', () => {
    // Each of these once read as Portuguese, Polish, Spanish or Italian: the code's letters, cut at its digits, are articles.
    for (const code of [
      'vfwot1k5o4e',
      'rdw19z1w6ml',
      '4o2e45o8a8n',
      'w6po28dp1xo',
      'gq6y08y79oi',
      'y3rt04el7yj',
      'un2uwgrw51e',
    ]) {
      expect(checkLanguage(`Metrics are counted here ${code}.`, ['en-US', 'en']).ok, code).toBe(true);
    }
    expect(detectLanguage('Pedido 4o2e45o8a8n: o gato está em casa e a menina não quer sair.').language).toBe('pt');
  });
});

describe('characters and cache key', () => {
  it('counts characters without whitespace', () => {
    expect(countCharacters(' a b\nc ')).toBe(3);
    expect(countCharacters('你好 世界')).toBe(4);
  });
  it('hashes everything that changes the audio, and nothing else', () => {
    const base = {
      text: 'hi',
      voiceId: 'espeak:en-us',
      profile: DEFAULT_PROFILE,
      speed: 1,
      pitch: 0,
      format: 'mp3' as const,
      sampleRate: 24000,
    };
    const k = cacheKey(base);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey({ ...base, profile: { ...DEFAULT_PROFILE } })).toBe(k);
    expect(
      cacheKey({
        sampleRate: 24000,
        format: 'mp3',
        pitch: 0,
        speed: 1,
        profile: DEFAULT_PROFILE,
        voiceId: 'espeak:en-us',
        text: 'hi',
      }),
    ).toBe(k);
    for (const change of [
      { text: 'hi!' },
      { voiceId: 'espeak:en-us+f3' },
      { speed: 1.1 },
      { pitch: 1 },
      { format: 'wav' as const },
      { profile: { ...DEFAULT_PROFILE, pitchHz: 121 } },
    ]) {
      expect(cacheKey({ ...base, ...change })).not.toBe(k);
    }
  });
  it('keeps the memory cache under its byte limit, least recently used out first', () => {
    const c = new MemoryAudioCache(250);
    const v = (n: number) => ({ audio: Buffer.alloc(n), durationSec: 1, sampleRate: 24000 });
    c.set('a', v(100));
    c.set('b', v(100));
    c.get('a');
    c.set('c', v(100));
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBeDefined();
    expect(c.get('c')).toBeDefined();
  });
  it('counts a replaced entry once and leaves out one larger than the whole cache', () => {
    const c = new MemoryAudioCache(250);
    const v = (n: number) => ({ audio: Buffer.alloc(n), durationSec: 1, sampleRate: 24000 });
    c.set('a', v(100));
    c.set('a', v(120));
    c.set('b', v(120));
    expect(c.size).toBe(2);
    c.set('c', v(251));
    expect(c.get('c')).toBeUndefined();
    expect(c.get('a')?.audio.length).toBe(120);
    expect(c.get('b')).toBeDefined();
  });
});
