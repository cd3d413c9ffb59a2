/**
 * A rule's phonemes (IPA, CMU ARPAbet) in the phone sets of the engines that take phones other than eSpeak NG:
 *
 * - **Flite**: its CMU lexicon's phones (ARPAbet in lower case, a vowel's stress `1` or `0`), given to it as a lexicon
 *   addendum (`-add_lex`) for a word of the engine's own making (`engines/flite.ts`);
 * - **GnuSpeech**: its dictionary's phones (`t_uh.'m_ar.t_uu`: phones joined by `_`, syllables by `.`, `'` before the
 *   stressed syllable, `"` before one of secondary stress), given to it as a user dictionary
 *   (`dictionary_1_file`) entry for such a word (`engines/gnuspeech.ts`).
 *
 * Both go through ARPAbet: IPA is read into ARPAbet phonemes first (General American English, the only language both
 * engines speak), with stress marks moved onto the vowel after them. A symbol outside the tables (a sound English has
 * not, `x`, `ç`, `y`, `ɲ` …) makes the conversion fail (`null`): the rule then falls back, never a guess.
 */
import { toEspeakPhonemes, type EspeakPhones } from './phonemes.ts';

/** One ARPAbet phoneme: its name, upper case, and for a vowel its stress (0, 1, 2), else null. */
export interface Arpa {
  phone: string;
  stress: 0 | 1 | 2 | null;
}

const VOWELS = new Set([
  'AA',
  'AE',
  'AH',
  'AO',
  'AW',
  'AX',
  'AXR',
  'AY',
  'EH',
  'ER',
  'EY',
  'IH',
  'IX',
  'IY',
  'OW',
  'OY',
  'UH',
  'UW',
  'UX',
  'EL',
  'EM',
  'EN',
]);
const CONSONANTS = new Set([
  'B',
  'CH',
  'D',
  'DH',
  'DX',
  'F',
  'G',
  'HH',
  'JH',
  'K',
  'L',
  'M',
  'N',
  'NG',
  'P',
  'Q',
  'R',
  'S',
  'SH',
  'T',
  'TH',
  'V',
  'W',
  'Y',
  'Z',
  'ZH',
]);

/** IPA symbols (longest first wins) as ARPAbet phonemes: English's sounds only. */
const IPA_ARPA: ReadonlyMap<string, readonly string[]> = new Map<string, string[]>([
  ['t͡ʃ', ['CH']],
  ['t͜ʃ', ['CH']],
  ['tʃ', ['CH']],
  ['d͡ʒ', ['JH']],
  ['d͜ʒ', ['JH']],
  ['dʒ', ['JH']],
  ['eɪ', ['EY']],
  ['aɪ', ['AY']],
  ['ɑɪ', ['AY']],
  ['aʊ', ['AW']],
  ['ɔɪ', ['OY']],
  ['oʊ', ['OW']],
  ['əʊ', ['OW']],
  // Centring diphthongs: General American says them with its r.
  ['ɪə', ['IH', 'R']],
  ['ɪɚ', ['IH', 'R']],
  ['eə', ['EH', 'R']],
  ['ɛə', ['EH', 'R']],
  ['ɛɚ', ['EH', 'R']],
  ['ʊə', ['UH', 'R']],
  ['ʊɚ', ['UH', 'R']],
  ['i', ['IY']],
  ['ɪ', ['IH']],
  ['ɨ', ['IH']],
  ['ᵻ', ['IH']],
  ['e', ['EH']],
  ['ɛ', ['EH']],
  ['æ', ['AE']],
  ['a', ['AE']],
  ['ɐ', ['AH']],
  ['ɑ', ['AA']],
  ['ɒ', ['AA']],
  ['ɔ', ['AO']],
  ['o', ['OW']],
  ['ʊ', ['UH']],
  ['u', ['UW']],
  ['ʌ', ['AH']],
  ['ə', ['AX']],
  ['ɚ', ['AXR']],
  ['ɜ', ['ER']],
  ['ɝ', ['ER']],
  ['p', ['P']],
  ['b', ['B']],
  ['t', ['T']],
  ['d', ['D']],
  ['k', ['K']],
  ['g', ['G']],
  ['ɡ', ['G']],
  ['f', ['F']],
  ['v', ['V']],
  ['θ', ['TH']],
  ['ð', ['DH']],
  ['s', ['S']],
  ['z', ['Z']],
  ['ʃ', ['SH']],
  ['ʒ', ['ZH']],
  ['h', ['HH']],
  ['m', ['M']],
  ['n', ['N']],
  ['ŋ', ['NG']],
  ['l', ['L']],
  ['ɫ', ['L']],
  ['r', ['R']],
  ['ɹ', ['R']],
  ['ɾ', ['DX']],
  ['w', ['W']],
  ['j', ['Y']],
  ['ʔ', ['Q']],
]);
const IPA_LONGEST = Math.max(...[...IPA_ARPA.keys()].map((k) => k.length));
/** Marks that carry nothing here: length, syllable breaks, word spaces, slashes, brackets, diacritics. */
const IPA_SILENT = new Set([
  'ː',
  'ˑ',
  '.',
  ' ',
  '/',
  '[',
  ']',
  '‿',
  '\u0329',
  '\u030d',
  '\u0303',
  '\u0361',
  '\u035c',
  '\u02b0',
  '\u031a',
]);

/** A word's stress where the rule gives none: its first full vowel (not a schwa) is stressed, as a dictionary would. */
function stressSomewhere(out: Arpa[]): Arpa[] {
  if (out.some((p) => p.stress === 1 || p.stress === 2)) return out;
  const first = out.find((p) => p.stress !== null && p.phone !== 'AX' && p.phone !== 'AXR') ?? out.find((p) => p.stress !== null);
  if (first) first.stress = 1;
  return out;
}

/** IPA as ARPAbet phonemes (stress on the vowel after the mark), or null when it holds a symbol the table lacks. */
export function ipaToArpabet(ipa: string): Arpa[] | null {
  const s = ipa.normalize('NFC').trim();
  const out: Arpa[] = [];
  let stress: 1 | 2 | null = null;
  let i = 0;
  while (i < s.length) {
    const ch = s[i]!;
    if (ch === 'ˈ' || ch === "'") {
      stress = 1;
      i++;
      continue;
    }
    if (ch === 'ˌ' || ch === ',') {
      stress = 2;
      i++;
      continue;
    }
    if (IPA_SILENT.has(ch)) {
      i++;
      continue;
    }
    let hit: readonly string[] | undefined;
    let n = Math.min(IPA_LONGEST, s.length - i);
    for (; n > 0; n--) {
      hit = IPA_ARPA.get(s.slice(i, i + n));
      if (hit) break;
    }
    if (!hit) return null;
    i += n;
    for (const phone of hit) {
      if (VOWELS.has(phone)) {
        out.push({ phone, stress: stress ?? 0 });
        stress = null;
      } else out.push({ phone, stress: null });
    }
  }
  return out.some((p) => p.stress !== null) ? stressSomewhere(out) : null;
}

/** ARPAbet (phonemes separated by spaces, vowels with or without a stress digit), or null when one is unknown. */
export function parseArpabet(arpabet: string): Arpa[] | null {
  const parts = arpabet.trim().toUpperCase().split(/\s+/).filter(Boolean);
  const out: Arpa[] = [];
  for (const part of parts) {
    const m = /^([A-Z]+)([012])?$/.exec(part);
    if (!m) return null;
    const phone = m[1]!;
    if (VOWELS.has(phone)) out.push({ phone, stress: m[2] ? (Number(m[2]) as 0 | 1 | 2) : 0 });
    else if (CONSONANTS.has(phone) && !m[2]) out.push({ phone, stress: null });
    else return null;
  }
  return out.some((p) => p.stress !== null) ? stressSomewhere(out) : null;
}

/** A rule's phonemes as ARPAbet, from either alphabet a rule may use; null when they cannot be read. */
export function toArpabet(phoneme: string, alphabet: string): Arpa[] | null {
  const a = alphabet.toLowerCase();
  if (a === 'ipa') return ipaToArpabet(phoneme);
  if (a === 'cmu-arpabet' || a === 'x-cmu' || a === 'cmu' || a === 'arpabet') return parseArpabet(phoneme);
  return null;
}

/** ARPAbet phonemes Flite's lexicon lacks, as the ones it has (its vowels carry stress 0 or 1 only). */
const FLITE_SPLIT: ReadonlyMap<string, readonly string[]> = new Map([
  ['AX', ['AH']],
  ['AXR', ['ER']],
  ['IX', ['IH']],
  ['UX', ['UW']],
  ['EL', ['AH', 'L']],
  ['EM', ['AH', 'M']],
  ['EN', ['AH', 'N']],
  ['DX', ['T']],
  ['Q', []],
]);

/** Flite's lexicon phones: consonants, and vowels with stress 0 or 1 (what `-add_lex` accepts). */
export const FLITE_PHONES: ReadonlySet<string> = new Set([
  ...[...CONSONANTS].filter((c) => !FLITE_SPLIT.has(c)).map((c) => c.toLowerCase()),
  ...[...VOWELS].filter((v) => !FLITE_SPLIT.has(v)).flatMap((v) => [`${v.toLowerCase()}0`, `${v.toLowerCase()}1`]),
]);

/** Flite's lexicon phones (`t ah0 m ey1 t ow0`), or null. Secondary stress is stress (Flite's lexicon has 0 and 1). */
export function toFlitePhones(phoneme: string, alphabet: string): string | null {
  const arpa = toArpabet(phoneme, alphabet);
  if (!arpa) return null;
  const out: string[] = [];
  for (const p of arpa) {
    const parts = FLITE_SPLIT.get(p.phone) ?? [p.phone];
    parts.forEach((name, k) => {
      const vowel = VOWELS.has(name);
      const stress = vowel && k === 0 && p.stress !== null && p.stress > 0 ? 1 : 0;
      out.push(name.toLowerCase() + (vowel ? String(stress) : ''));
    });
  }
  return out.length ? out.join(' ') : null;
}

/** ARPAbet as GnuSpeech's phones; `[stressed, unstressed]` where they differ (AH1 is its `a`, AH0 its schwa `uh`). */
const GNU: ReadonlyMap<string, readonly [string[], string[]?]> = new Map<string, [string[], string[]?]>([
  ['AA', [['ar']]],
  ['AE', [['aa']]],
  ['AH', [['a'], ['uh']]],
  ['AO', [['aw']]],
  ['AW', [['ah', 'uu']]],
  ['AX', [['uh']]],
  ['AXR', [['uh', 'r']]],
  ['AY', [['ah', 'i']]],
  ['EH', [['e']]],
  [
    'ER',
    [
      ['er', 'r'],
      ['uh', 'r'],
    ],
  ],
  ['EY', [['e', 'i']]],
  ['IH', [['i']]],
  ['IX', [['i']]],
  ['IY', [['ee'], ['i']]],
  ['OW', [['uh', 'uu']]],
  ['OY', [['o', 'i']]],
  ['UH', [['u']]],
  ['UW', [['uu']]],
  ['UX', [['uu']]],
  ['EL', [['uh', 'l']]],
  ['EM', [['uh', 'm']]],
  ['EN', [['uh', 'n']]],
  ['B', [['b']]],
  ['CH', [['ch']]],
  ['D', [['d']]],
  ['DH', [['dh']]],
  ['DX', [['t']]],
  ['F', [['f']]],
  ['G', [['g']]],
  ['HH', [['h']]],
  ['JH', [['j']]],
  ['K', [['k']]],
  ['L', [['l']]],
  ['M', [['m']]],
  ['N', [['n']]],
  ['NG', [['ng']]],
  ['P', [['p']]],
  ['Q', [['q']]],
  ['R', [['r']]],
  ['S', [['s']]],
  ['SH', [['sh']]],
  ['T', [['t']]],
  ['TH', [['th']]],
  ['V', [['v']]],
  ['W', [['w']]],
  ['Y', [['y']]],
  ['Z', [['z']]],
  ['ZH', [['zh']]],
]);

/** GnuSpeech's phones (its postures' names) that the table gives. */
export const GNUSPEECH_PHONES: ReadonlySet<string> = new Set([...GNU.values()].flatMap(([a, b]) => [...a, ...(b ?? [])]));

/** Two consonants that may open an English syllable together (the rest of a cluster closes the syllable before). */
const ONSETS = new Set(
  'PR BR TR DR KR GR FR THR SHR PL BL KL GL FL SL SP ST SK SM SN SW KW TW DW GW PY BY KY FY MY HHY VY SPR STR SKR SPL SKW SKY'.split(
    ' ',
  ),
);

/**
 * GnuSpeech's phones (`t_uh.'m_ar.t_uu`), or null: one syllable per vowel, the consonants between two vowels opening
 * the second as far as English lets a syllable begin, `'` or `"` before a stressed one.
 */
export function toGnuspeechPhones(phoneme: string, alphabet: string): string | null {
  const arpa = toArpabet(phoneme, alphabet);
  if (!arpa) return null;
  const nuclei = arpa.flatMap((p, k) => (p.stress !== null ? [k] : []));
  // Where each syllable after the first begins: the longest legal onset before its vowel.
  const starts = [0];
  for (let v = 1; v < nuclei.length; v++) {
    const prev = nuclei[v - 1]!;
    const vowel = nuclei[v]!;
    let start = vowel - 1 > prev ? vowel - 1 : vowel;
    const onset = (from: number) =>
      arpa
        .slice(from, vowel)
        .map((p) => p.phone)
        .join('');
    while (start - 1 > prev && ONSETS.has(onset(start - 1))) start--;
    starts.push(start);
  }
  const syllables: string[] = [];
  starts.forEach((from, s) => {
    const to = starts[s + 1] ?? arpa.length;
    const nucleus = arpa[nuclei[s]!]!;
    const phones = arpa.slice(from, to).flatMap((p) => {
      const forms = GNU.get(p.phone)!;
      return p.stress === 0 && forms[1] ? forms[1] : forms[0];
    });
    const mark = nucleus.stress === 1 ? "'" : nucleus.stress === 2 ? '"' : '';
    syllables.push(mark + phones.join('_'));
  });
  return syllables.join('.');
}

/** The engines that take phonemes, each in its own alphabet. */
export type PhoneSet = 'espeak' | 'flite' | 'gnuspeech';

/**
 * The phone set a voice takes, or undefined for one that takes none (a phoneme rule falls back there): its engine's
 * (eSpeak NG, Flite, GnuSpeech), or eSpeak NG's for a sherpa-onnx model whose frontend is eSpeak NG (`phonemes` on
 * the voice, see `engines/sherpa-frontend.ts`).
 */
export function phoneSetOf(voice: { engine: string; phonemes?: 'espeak' }): PhoneSet | undefined {
  const { engine } = voice;
  if (engine === 'espeak' || engine === 'flite' || engine === 'gnuspeech') return engine;
  return engine === 'sherpa' && voice.phonemes === 'espeak' ? 'espeak' : undefined;
}

/**
 * The language whose eSpeak NG phoneme table a voice's phonemes are written in: an eSpeak NG voice's own identifier
 * (`roa/fr` of `roa/fr+m3`), a sherpa-onnx model's eSpeak NG voice (`phonemeLanguage`), else its first language.
 */
export function phonemeLanguageOf(voice: {
  engine: string;
  variant?: string;
  languages?: readonly string[];
  phonemeLanguage?: string;
}): string | undefined {
  if (voice.engine === 'espeak' && voice.variant) return voice.variant.split('+')[0];
  return voice.phonemeLanguage ?? voice.languages?.[0];
}

/**
 * A rule's phonemes as the engine receives them between `[[` and `]]`, or null: eSpeak NG's mnemonics in the
 * `language`'s phoneme table (with `nearest` when a sound was replaced by the nearest one it has); Flite's and
 * GnuSpeech's phones as one word (Flite's joined by `_`), which their engines turn into a word of their lexicon.
 */
export function enginePhonemes(set: PhoneSet, phoneme: string, alphabet: string, language?: string): EspeakPhones | null {
  if (set === 'espeak') return toEspeakPhonemes(phoneme, alphabet, language);
  const phones =
    set === 'flite' ? (toFlitePhones(phoneme, alphabet)?.replace(/ /g, '_') ?? null) : toGnuspeechPhones(phoneme, alphabet);
  return phones === null ? null : { phones, nearest: false };
}

/** `enginePhonemes`' phones alone. */
export function toEnginePhonemes(set: PhoneSet, phoneme: string, alphabet: string, language?: string): string | null {
  return enginePhonemes(set, phoneme, alphabet, language)?.phones ?? null;
}

/**
 * The words an engine's call makes for its rules' phones, one after another (`polyvoxa`, `polyvoxb` … `polyvoxba`):
 * letters only, shaped like a word, so Flite reads it as one rather than spelling it, and GnuSpeech looks it up; none
 * that the call's `text` holds itself, which would otherwise be read with a rule's phones.
 */
export function madeWords(text: string): () => string {
  const lower = text.toLowerCase();
  let n = 0;
  return () => {
    for (;;) {
      let s = '';
      let k = n++;
      do {
        s = String.fromCharCode(97 + (k % 26)) + s;
        k = Math.floor(k / 26);
      } while (k > 0);
      const word = `polyvox${s}`;
      if (!lower.includes(word)) return word;
    }
  };
}
