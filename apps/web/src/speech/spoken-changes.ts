import type { DictionaryDetail } from './pronunciation';

type Rule = DictionaryDetail['rules'][number];

/**
 * What a person reads of a dictionary's work, not what the engine is given: the words a request's rules change (in the
 * order the server tries them: dictionaries in order, each in its own order; an overlap goes to the earlier rule), each
 * with its alias or its phonemes in IPA, and the spoken form with eSpeak's `[[…]]` mnemonics shown as that IPA.
 * No React.
 */

export interface SpokenChange {
  from: number;
  to: number;
  word: string;
  /** `alias`: the words said instead; `phoneme`: the phonemes in IPA. */
  type: 'alias' | 'phoneme';
  said: string;
}

/** CMU ARPAbet phonemes as IPA (a vowel's stress digit: `ˈ` for 1, `ˌ` for 2, before the vowel). */
const ARPA_IPA: Readonly<Record<string, string>> = {
  AA: 'ɑ',
  AE: 'æ',
  AH: 'ʌ',
  AO: 'ɔ',
  AW: 'aʊ',
  AX: 'ə',
  AXR: 'ɚ',
  AY: 'aɪ',
  EH: 'ɛ',
  ER: 'ɝ',
  EY: 'eɪ',
  IH: 'ɪ',
  IX: 'ɨ',
  IY: 'i',
  OW: 'oʊ',
  OY: 'ɔɪ',
  UH: 'ʊ',
  UW: 'u',
  UX: 'ʉ',
  B: 'b',
  CH: 'tʃ',
  D: 'd',
  DH: 'ð',
  DX: 'ɾ',
  EL: 'l̩',
  EM: 'm̩',
  EN: 'n̩',
  F: 'f',
  G: 'ɡ',
  HH: 'h',
  H: 'h',
  JH: 'dʒ',
  K: 'k',
  L: 'l',
  M: 'm',
  N: 'n',
  NG: 'ŋ',
  NX: 'ɾ̃',
  P: 'p',
  Q: 'ʔ',
  R: 'ɹ',
  S: 's',
  SH: 'ʃ',
  T: 't',
  TH: 'θ',
  V: 'v',
  W: 'w',
  WH: 'ʍ',
  Y: 'j',
  Z: 'z',
  ZH: 'ʒ',
};

/**
 * ARPAbet (`T AH0 M EY1 T OW2`) as IPA (`təˈmeɪˌtoʊ`): a stressed vowel's mark goes before the consonant just before
 * it (the syllable's start, near enough); a symbol outside the table is kept as written.
 */
export function arpabetToIpa(arpabet: string): string {
  const out: string[] = [];
  let consonantBefore = false;
  for (const p of arpabet.trim().split(/\s+/).filter(Boolean)) {
    const m = /^([A-Za-z]+)([012])?$/.exec(p);
    const name = m?.[1]?.toUpperCase() ?? '';
    const stress = m?.[2];
    // An unstressed AH is a schwa, as CMU writes it.
    const ipa = name === 'AH' && stress === '0' ? 'ə' : (ARPA_IPA[name] ?? p);
    const mark = stress === '1' ? 'ˈ' : stress === '2' ? 'ˌ' : '';
    if (mark && consonantBefore) out.splice(out.length - 1, 0, mark);
    else if (mark) out.push(mark);
    out.push(ipa);
    consonantBefore = stress === undefined && !!m;
  }
  return out.join('');
}

/** What a rule says, as a person reads it: its alias, or its phonemes in IPA (slashes and brackets aside). */
export function ruleSaid(rule: Rule): string {
  if (rule.type === 'alias') return rule.alias;
  return rule.alphabet === 'cmu-arpabet' ? arpabetToIpa(rule.phoneme) : rule.phoneme.replace(/^[/[]|[/\]]$/g, '');
}

const WORD = /[\p{L}\p{N}\p{M}_]/u;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;
const edge = (outside: string | undefined, inside: string | undefined) =>
  !outside || !WORD.test(outside) || UNSPACED.test(outside) || UNSPACED.test(inside ?? '');

/** The words `rules` change in `text`, in text order. */
export function spokenChanges(text: string, rules: readonly Rule[]): SpokenChange[] {
  const taken = new Uint8Array(text.length);
  const out: SpokenChange[] = [];
  const folded = text.toLowerCase().length === text.length ? text.toLowerCase() : text;
  for (const rule of rules) {
    const raw = rule.string_to_replace;
    if (!raw) continue;
    const sensitive = rule.case_sensitive !== false;
    const hay = sensitive ? text : folded;
    const needle = sensitive ? raw : raw.toLowerCase();
    let from = hay.indexOf(needle);
    while (from >= 0) {
      const to = from + needle.length;
      const free = !taken.subarray(from, to).includes(1);
      const whole = rule.word_boundaries === false || (edge(text[from - 1], text[from]) && edge(text[to], text[to - 1]));
      if (free && whole) {
        taken.fill(1, from, to);
        out.push({ from, to, word: text.slice(from, to), type: rule.type, said: ruleSaid(rule) });
        from = hay.indexOf(needle, to);
      } else from = hay.indexOf(needle, from + 1);
    }
  }
  return out.sort((a, b) => a.from - b.from);
}

/**
 * The spoken form as a person reads it: each `[[…]]` (eSpeak's mnemonics for a phoneme rule, in text order) as the IPA
 * of the phoneme rule it came from, between slashes; one there is no rule for (an SSML `<phoneme>`) as its word's place.
 */
export function readableSpoken(spoken: string, changes: readonly SpokenChange[]): string {
  const phonemes = changes.filter((c) => c.type === 'phoneme');
  let k = 0;
  // The space the server puts after the phonemes (keeping them a word of their own) goes before punctuation.
  return spoken.replace(/\[\[[^\]]*\]\]( (?=[.,;:!?，。！？；：]))?/g, () => {
    const change = phonemes[k++];
    return change ? `/${change.said}/` : '/…/';
  });
}
