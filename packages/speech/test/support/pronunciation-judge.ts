/**
 * The pronunciation test set (fixtures/pronunciation/set.json) and how it is judged: the phonemes an engine reports
 * it spoke against the phonemes the entry expects, both folded to a key that keeps what tells the readings apart and
 * drops what eSpeak NG writes one way or another for the same sound.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { toFlitePhones, toGnuspeechPhones } from '../../src/text/engine-phones.ts';
import { ipaKey } from '../../src/text/ipa-key.ts';
import type { LexiconRule } from '../../src/text/lexicon.ts';

export interface PronunciationEntry {
  /** `other-language`: a word of another language's eSpeak NG voice (French, German …) with an IPA rule. */
  category: 'name' | 'brand' | 'acronym' | 'heteronym' | 'zh-polyphone' | 'other-language';
  /** What the user writes (the rule's string). */
  text: string;
  /** The voice it is judged on: eSpeak NG English (US), Mandarin, or the other language's. */
  voice: string;
  rule: LexiconRule;
  /** English (General American) and the other languages: the IPA the rule should produce. */
  expected?: string;
  /** Chinese: the pinyin, tones as digits. */
  expected_pinyin?: string;
}

export const PRONUNCIATION_SET = path.resolve(import.meta.dirname, '../../../../fixtures/pronunciation/set.json');

export function loadPronunciationSet(): PronunciationEntry[] {
  return (JSON.parse(readFileSync(PRONUNCIATION_SET, 'utf8')) as { entries: PronunciationEntry[] }).entries;
}

/** IPA symbols that name one English sound in two spellings (eSpeak's output and a dictionary's), as one. */
const ENGLISH_FOLD: readonly [RegExp, string][] = [
  [/[ˈˌː.\s_‿ˑ]/g, ''],
  [/\p{M}/gu, ''],
  [/ɹ/g, 'r'],
  [/ɡ/g, 'g'],
  // A flapped t (eSpeak's American allophone, even of phoneme input) is the t the rule wrote.
  [/ɾ/g, 't'],
  [/ɐ/g, 'ə'],
  [/ᵻ/g, 'ɪ'],
  [/ɝ|ɜr|ɜ/g, 'ɜ'],
  [/ɒ/g, 'ɑ'],
];

/** English IPA as the key it is compared by: stress, length and syllable marks dropped, allophones as one. */
export function englishKey(ipa: string): string {
  let s = ipa.normalize('NFD');
  for (const [from, to] of ENGLISH_FOLD) s = s.replace(from, to);
  return s;
}

const PINYIN_INITIALS = [
  'zh',
  'ch',
  'sh',
  'b',
  'p',
  'm',
  'f',
  'd',
  't',
  'n',
  'l',
  'g',
  'k',
  'h',
  'j',
  'q',
  'x',
  'r',
  'z',
  'c',
  's',
];
/** Initials as one letter each (aspiration kept: capital for the aspirated or retroflex one). */
const INITIAL_KEY: ReadonlyMap<string, string> = new Map([
  ['zh', 'Z'],
  ['ch', 'C'],
  ['sh', 'S'],
  ['r', 'R'],
  ['j', 'J'],
  ['q', 'Q'],
  ['x', 'X'],
  ['b', 'p'],
  ['p', 'P'],
  ['d', 't'],
  ['t', 'T'],
  ['g', 'k'],
  ['k', 'K'],
]);

/** Glides and high vowels: eSpeak writes them as `j`/`w` or `i`/`u`/`y` by turns, so neither side keeps them. */
const GLIDES = /[iuüywj]/g;

/** One pinyin syllable (tone digit optional) as its key. */
function syllableKey(syllable: string): string {
  let s = syllable
    .toLowerCase()
    .replace(/[0-5]$/, '')
    .replace(/v/g, 'ü');
  const initial = PINYIN_INITIALS.find((i) => s.startsWith(i)) ?? '';
  let final = s.slice(initial.length);
  if (initial === '' && s.startsWith('yu')) final = 'ü' + s.slice(2);
  if ((initial === 'j' || initial === 'q' || initial === 'x') && final.startsWith('u')) final = 'ü' + final.slice(1);
  final = final
    .replace(/^ao$|ao$/, 'au')
    .replace(/iu$/, 'iou')
    .replace(/ui$/, 'uei')
    .replace(/^ün$/, 'üen')
    .replace(/^un$/, 'uen')
    .replace(/ian$/, 'ien');
  s = (INITIAL_KEY.get(initial) ?? initial) + final;
  return s.replace(GLIDES, '');
}

/** Pinyin (syllables separated by spaces) as the key eSpeak NG's Mandarin phonemes are compared by. Tones are not. */
export function pinyinKey(pinyin: string): string {
  return pinyin.trim().split(/\s+/).map(syllableKey).join('');
}

/** eSpeak NG's Mandarin phoneme names (its IPA) and the pinyin keys they become. */
const MANDARIN_FOLD: readonly [RegExp, string][] = [
  [/\((?:en|cmn)\)|[ˈˌː\s\d]/g, ''],
  [/ts\.h/g, 'C'],
  [/ts\./g, 'Z'],
  [/s\./g, 'S'],
  [/tɕh/g, 'Q'],
  [/tɕ/g, 'J'],
  [/tsh/g, 'c'],
  [/ts/g, 'z'],
  [/kh/g, 'K'],
  [/ph/g, 'P'],
  [/th/g, 'T'],
  [/[χx]/g, 'h'],
  [/ɕ/g, 'X'],
  [/ʐ/g, 'R'],
  [/o-|ə|ɛ/g, 'e'],
  [/[ɑæ]/g, 'a'],
  [/ŋ/g, 'ng'],
  [/ɡ/g, 'g'],
  [/\.|\p{M}/gu, ''],
  [GLIDES, ''],
];

export function mandarinKey(phonemes: readonly string[]): string {
  let s = phonemes.join(' ');
  for (const [from, to] of MANDARIN_FOLD) s = s.replace(from, to);
  return s;
}

/**
 * Another language's IPA as the key it is compared by: stress and syllable marks dropped, nothing else folded (its
 * sounds, length and nasal vowels included, are what the rule is judged on).
 */
export function ipaSoundKey(ipa: string): string {
  return ipaKey(ipa).replace(/[.\s_‿]/g, '');
}

/** The key an entry expects, and the key of the phonemes an engine spoke. */
export function judgeEntry(entry: PronunciationEntry, spoken: readonly string[]): { expected: string; got: string; ok: boolean } {
  if (entry.expected_pinyin !== undefined) {
    const expected = pinyinKey(entry.expected_pinyin);
    return { expected, got: mandarinKey(spoken), ok: expected !== '' && expected === mandarinKey(spoken) };
  }
  const key = entry.category === 'other-language' ? ipaSoundKey : englishKey;
  const expected = key(entry.expected ?? '');
  const got = key(spoken.join(''));
  return { expected, got, ok: expected !== '' && expected === got };
}

/** The entries Flite and GnuSpeech are judged on: the English ones (the only language they speak). */
export const isEnglishEntry = (e: PronunciationEntry): boolean => e.expected !== undefined && e.category !== 'other-language';

/**
 * Flite's and GnuSpeech's own phones (Flite's `-ps`, GnuSpeech's postures) judged against an English entry: the
 * expected IPA is written in the engine's phone set by the same tables a rule is (text/engine-phones.ts), and both
 * sides are folded where the engine writes one sound two ways by stress alone (Flite's schwa `ax` and `ah`;
 * GnuSpeech's `a`/`uh`, `ee`/`i`, `er`/`uh` before its r). Null: the expected IPA has a sound the engine lacks.
 */
export function judgeEnginePhones(
  engine: 'flite' | 'gnuspeech',
  entry: PronunciationEntry,
  spoken: readonly string[],
): { expected: string; got: string; ok: boolean } | null {
  const written =
    engine === 'flite' ? toFlitePhones(entry.expected ?? '', 'ipa') : toGnuspeechPhones(entry.expected ?? '', 'ipa');
  if (written === null) return null;
  const phones = written.split(/[\s._]+/).map((p) => p.replace(/^["']|[01]$/g, ''));
  const fold = (p: string) =>
    engine === 'flite' ? p.replace(/^ax$/, 'ah') : p.replace(/^a$/, 'uh').replace(/^ee$/, 'i').replace(/^er$/, 'uh');
  const expected = phones.filter(Boolean).map(fold).join(' ');
  // GnuSpeech's transition postures (`qs`, `qz`, `qc`, `qk`, `qp`, `qt`: a closure or release between two phones) are
  // its own, no phone of a word.
  const got = spoken
    .filter((p) => engine === 'flite' || !/^q[a-z]$/.test(p))
    .map(fold)
    .join(' ');
  return { expected, got, ok: expected === got };
}
