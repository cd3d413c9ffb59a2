import { describe, expect, it } from 'vitest';
import { espeakSynthesize } from '../src/engines/espeak-runtime.ts';
import { planningSpeech } from './support/planning-speech.ts';
import {
  englishKey,
  judgeEntry,
  loadPronunciationSet,
  pinyinKey,
  type PronunciationEntry,
} from './support/pronunciation-judge.ts';

/**
 * A part of the pronunciation test set (every eighth entry: all six categories, alias, IPA and ARPAbet rules) through
 * eSpeak NG, judged by the phonemes it reports speaking, so the set and the rule path cannot drift apart unnoticed.
 * The whole set is measured by `npx tsx bench/run.ts --only pronunciation`.
 */
const set = loadPronunciationSet();
const part = set.filter((_, i) => i % 8 === 0);

const speech = planningSpeech();

async function spoken(e: PronunciationEntry, withRule: boolean): Promise<string[]> {
  const plan = speech().prepare({
    text: e.text,
    voiceId: e.voice,
    format: 'pcm',
    checkLanguage: false,
    ...(withRule ? { lexicon: [e.rule] } : {}),
  });
  return (await espeakSynthesize(plan.text, { voice: plan.voice.variant ?? '', rate: 175, pitch: 50, range: 50 })).phonemes;
}

describe('the pronunciation test set', () => {
  it('holds at least 100 entries of every kind, each with a rule and expected phonemes', () => {
    expect(set.length).toBeGreaterThanOrEqual(100);
    for (const cat of ['name', 'brand', 'acronym', 'heteronym', 'zh-polyphone'])
      expect(set.filter((e) => e.category === cat).length).toBeGreaterThanOrEqual(15);
    for (const e of set) {
      expect(e.rule.string_to_replace).toBe(e.text);
      expect((e.expected ?? e.expected_pinyin ?? '').length).toBeGreaterThan(0);
    }
    expect(new Set(set.map((e) => (e.rule.type === 'phoneme' ? e.rule.alphabet : 'alias')))).toEqual(
      new Set(['alias', 'ipa', 'cmu-arpabet']),
    );
    expect(part.length).toBeGreaterThanOrEqual(15);
    expect(new Set(part.map((e) => e.category)).size).toBe(6);
    // Words of other languages, judged on their own voices by their own sounds.
    const others = set.filter((e) => e.category === 'other-language');
    expect(new Set(others.map((e) => e.voice)).size).toBeGreaterThanOrEqual(8);
  });

  it('folds spellings of one sound together and keeps different sounds apart', () => {
    expect(englishKey('təˈmɑːɾoʊ')).toBe(englishKey('təmɑtoʊ'));
    expect(englishKey('ɹiːd')).not.toBe(englishKey('rɛd'));
    expect(pinyinKey('yin2 hang2')).not.toBe(pinyinKey('yin2 xing2'));
    expect(pinyinKey('zhong4 yao4')).not.toBe(pinyinKey('chong2 yao4'));
    expect(pinyinKey('jue2 de5')).toBe(pinyinKey('jue4 de'));
  });

  it('is spoken by eSpeak NG as its rules say', async () => {
    const misses: string[] = [];
    for (const e of part) {
      const j = judgeEntry(e, await spoken(e, true));
      if (!j.ok) misses.push(`${e.text}: ${j.got} ≠ ${j.expected}`);
    }
    expect(misses).toEqual([]);
  }, 120_000);

  it('tells a rule from none: without the rules, eSpeak reads some of these words otherwise', async () => {
    const heteronyms = part.filter((e) => e.category === 'heteronym' || e.category === 'brand');
    let differ = 0;
    for (const e of heteronyms) if (!judgeEntry(e, await spoken(e, false)).ok) differ++;
    expect(differ).toBeGreaterThan(0);
  }, 120_000);
});
