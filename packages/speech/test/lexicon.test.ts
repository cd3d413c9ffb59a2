import { describe, expect, it } from 'vitest';
import { applyLexicon, findMatches, type LexiconRule } from '../src/text/lexicon.ts';
import { arpabetToEspeak, ipaToEspeak, toEspeakPhonemes } from '../src/text/phonemes.ts';
import { normalizeText } from '../src/text/normalize.ts';
import { splitSentences } from '../src/text/segment.ts';
import { espeakSynthesize } from '../src/engines/espeak-runtime.ts';

const alias = (string_to_replace: string, a: string, more: Partial<LexiconRule> = {}): LexiconRule => ({
  type: 'alias',
  string_to_replace,
  alias: a,
  ...more,
});

describe('the matcher', () => {
  it('is case-sensitive unless the rule says otherwise', () => {
    expect(applyLexicon('UN and un', [alias('UN', 'United Nations')], { phonemes: false }).text).toBe('United Nations and un');
    expect(applyLexicon('UN and un', [alias('UN', 'United Nations', { case_sensitive: false })], { phonemes: false }).text).toBe(
      'United Nations and United Nations',
    );
  });

  it('matches whole words unless the rule says otherwise', () => {
    const rules = [alias('cat', 'dog')];
    expect(applyLexicon('cat catalog concat cat.', rules, { phonemes: false }).text).toBe('dog catalog concat dog.');
    expect(applyLexicon('cat catalog', [alias('cat', 'dog', { word_boundaries: false })], { phonemes: false }).text).toBe(
      'dog dogalog',
    );
    // An apostrophe, a hyphen and punctuation are word edges; digits and letters are not.
    expect(applyLexicon("UN's UN-led UN2 ÜN", [alias('UN', 'U N')], { phonemes: false }).text).toBe("U N's U N-led UN2 ÜN");
  });

  it('treats each character of an unspaced script as a word edge', () => {
    expect(applyLexicon('我在北京工作', [alias('北京', 'Beijing')], { phonemes: false }).text).toBe('我在Beijing工作');
  });

  it('lets the first rule win where matches overlap, and never matches a replacement again', () => {
    const rules = [alias('York City', 'Y C'), alias('New York', 'N Y'), alias('Y', 'why')];
    expect(findMatches('New York City', rules)).toEqual([{ from: 4, to: 13, rule: 0 }]);
    expect(applyLexicon('New York City', rules, { phonemes: false }).text).toBe('New Y C');
    expect(applyLexicon('a b', [alias('a', 'b'), alias('b', 'c')], { phonemes: false }).text).toBe('b c');
  });

  it('keeps phonemes through normalization and restores them as eSpeak input', () => {
    const rules: LexiconRule[] = [{ type: 'phoneme', string_to_replace: 'tomato', phoneme: 'təˈmɑːtoʊ', alphabet: 'ipa' }];
    const applied = applyLexicon('I have 2 tomato plants.', rules, { phonemes: 'espeak' });
    const normalized = normalizeText(applied.text, 'en');
    const sentences = splitSentences(normalized).map(applied.restore);
    expect(sentences.join(' ')).toContain("[[t@m'A:toU]]");
    expect(sentences.join(' ')).toContain('two');
    expect(applied.fallbacks).toEqual([]);
  });

  it('falls back to the alias, else the word as written, where phonemes cannot be spoken', () => {
    const rules: LexiconRule[] = [
      { type: 'phoneme', string_to_replace: 'tomato', phoneme: 'təˈmɑːtoʊ', alphabet: 'ipa', alias: 'tomahto' },
      { type: 'phoneme', string_to_replace: 'GIF', phoneme: 'JH IH1 F', alphabet: 'cmu-arpabet' },
    ];
    const applied = applyLexicon('tomato GIF', rules, { phonemes: false });
    expect(applied.text).toBe('tomahto GIF');
    expect(applied.fallbacks).toEqual(['tomato', 'GIF']);
    // Unreadable phonemes fall back even on eSpeak.
    const bad = applyLexicon('xyz', [{ type: 'phoneme', string_to_replace: 'xyz', phoneme: '☃', alphabet: 'ipa' }], {
      phonemes: 'espeak',
    });
    expect(bad.text).toBe('xyz');
    expect(bad.fallbacks).toEqual(['xyz']);
  });
});

describe('phonemes as eSpeak mnemonics', () => {
  it('converts IPA', () => {
    expect(ipaToEspeak('həˈloʊ')).toBe("h@l'oU");
    expect(ipaToEspeak('/ˈθɪŋk/')).toBe("T'INk");
    expect(ipaToEspeak('ˈtʃɜːtʃ')).toBe("tS'3:tS");
    expect(ipaToEspeak('ˈdʒʌdʒ')).toBe("dZ'VdZ");
    expect(ipaToEspeak('ˈæpl̩')).toBe("'apl");
    expect(ipaToEspeak('ˌkuːbərˈneɪtiːz')).toBe("k,u:b@rn'eIti:z");
    expect(ipaToEspeak('ˈʃʊə.ʒə')).toBe("S'U@Z@");
    expect(ipaToEspeak('☃')).toBeNull();
    expect(ipaToEspeak('')).toBeNull();
  });

  it('converts CMU ARPAbet with its stress digits', () => {
    expect(arpabetToEspeak('T AH0 M EY1 T OW2')).toBe("t@m'eIt,oU");
    expect(arpabetToEspeak('HH AH0 L OW1')).toBe("h@l'oU");
    expect(arpabetToEspeak('B ER1 D')).toBe("b'3:d");
    expect(arpabetToEspeak('S IY1 K W AH0 L')).toBe("s'i:kw@l");
    expect(arpabetToEspeak('CH JH SH ZH TH DH NG')).toBe('tSdZSZTDN');
    expect(arpabetToEspeak('XX1')).toBeNull();
    expect(toEspeakPhonemes('HH AH0 L OW1', 'cmu-arpabet')).toEqual({ phones: "h@l'oU", nearest: false });
    expect(toEspeakPhonemes('x', 'klingon')).toBeNull();
  });

  it('speaks converted phonemes as eSpeak speaks the word itself', async () => {
    const opts = { voice: 'en-us', rate: 175, pitch: 50, range: 50 };
    const word = await espeakSynthesize('hello', opts);
    const fromIpa = await espeakSynthesize(`[[${ipaToEspeak('həˈloʊ')}]]`, opts);
    const fromCmu = await espeakSynthesize(`[[${arpabetToEspeak('HH AH0 L OW1')}]]`, opts);
    // The same phonemes, give or take eSpeak's own secondary marks: within 2 % of the word's length.
    expect(Math.abs(fromIpa.samples.length / word.samples.length - 1)).toBeLessThan(0.02);
    expect(Math.abs(fromCmu.samples.length / word.samples.length - 1)).toBeLessThan(0.02);
    // Read as text instead, the mnemonics would be spelled out: far longer.
    const spelled = await espeakSynthesize("h@l'oU", opts);
    expect(spelled.samples.length).toBeGreaterThan(word.samples.length * 1.3);
  });
});

describe('timings through the replacements', () => {
  it('maps a replaced word to everything it became, and the rest as before', async () => {
    const { mapThroughReplacements } = await import('../src/pipeline/timings.ts');
    const text = 'The UN met Bob.';
    const applied = applyLexicon(
      text,
      [alias('UN', 'United Nations'), { type: 'phoneme', string_to_replace: 'Bob', phoneme: 'bɑb', alphabet: 'ipa' }],
      { phonemes: 'espeak' },
    );
    expect(applied.spoken.text).toBe('The United Nations met  [[bA:b]] .');
    const normalized = applied.restore(normalizeText(applied.text, 'en'));
    const map = mapThroughReplacements(text, applied.spoken, normalized);
    const span = (i: number) => normalized.slice(map.from[i]!, map.to[i]!);
    expect(span(4)).toBe('United Nations');
    expect(span(5)).toBe('United Nations');
    expect(span(11)).toContain('[[bA:b]]');
    expect(span(0)).toBe('T');
    expect(span(7)).toBe('m');
  });
});
