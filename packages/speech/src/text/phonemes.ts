/**
 * Phoneme strings of a pronunciation rule (IPA, CMU ARPAbet) as eSpeak NG's own phoneme mnemonics, which it reads
 * between `[[` and `]]`, in the phoneme table of the voice's language.
 *
 * English (and a language without a table of its own below) uses the hand-made English table here. The languages
 * with many voices (French, German, Spanish, Italian, Portuguese, Dutch, Russian, Polish, Mandarin …) use the tables
 * `scripts/espeak-phoneme-tables.ts` read from eSpeak NG itself (`espeak-phoneme-tables.ts`): each IPA sound and the
 * mnemonic eSpeak NG speaks it with in that language, so a French `ʁ` or `ɑ̃`, a German `ç` or `ʏ`, a Polish `ɨ` is
 * spoken as that sound, not an English one. A sound the language's table has not is spoken as the nearest one it has
 * (`NEAREST`), and the conversion says so (`nearest`): the rule's words are then named as a fallback.
 *
 * eSpeak places a stress mark anywhere before the vowel it stresses, so IPA's marks (before the syllable) and
 * ARPAbet's digits (on the vowel) both become a mark just before the syllable or vowel. A symbol outside the tables
 * makes the whole conversion fail (`null`): the rule is then spoken by its fallback, never as a guess.
 */
import { ESPEAK_PHONEME_TABLES, ESPEAK_TABLE_OF, ESPEAK_TONES } from './espeak-phoneme-tables.ts';
import { ipaKey } from './ipa-key.ts';

/** IPA symbols (longest first wins) and the eSpeak mnemonic each becomes. */
const IPA: ReadonlyMap<string, string> = new Map([
  // Affricates, with and without the tie bar.
  ['t͡ʃ', 'tS'],
  ['t͜ʃ', 'tS'],
  ['tʃ', 'tS'],
  ['d͡ʒ', 'dZ'],
  ['d͜ʒ', 'dZ'],
  ['dʒ', 'dZ'],
  // Diphthongs and long vowels.
  ['eɪ', 'eI'],
  ['aɪ', 'aI'],
  ['ɑɪ', 'aI'],
  ['aʊ', 'aU'],
  ['ɔɪ', 'OI'],
  ['oʊ', 'oU'],
  ['əʊ', 'oU'],
  ['ɪə', 'i@'],
  ['ɪɚ', 'i@'],
  ['eə', 'e@'],
  ['ɛə', 'e@'],
  ['ɛɚ', 'e@'],
  ['ʊə', 'U@'],
  ['ʊɚ', 'U@'],
  ['iː', 'i:'],
  ['uː', 'u:'],
  ['ɑː', 'A:'],
  ['ɔː', 'O:'],
  ['ɜː', '3:'],
  ['ɝː', '3:'],
  ['aː', 'a:'],
  ['eː', 'e:'],
  ['oː', 'o:'],
  // Vowels.
  ['i', 'i:'],
  ['ɪ', 'I'],
  ['e', 'e'],
  ['ɛ', 'E'],
  ['æ', 'a'],
  ['a', 'a'],
  ['ɐ', 'a#'],
  ['ɑ', 'A:'],
  ['ɒ', '0'],
  ['ɔ', 'O:'],
  ['o', 'o'],
  ['ʊ', 'U'],
  ['u', 'u:'],
  ['ʌ', 'V'],
  ['ə', '@'],
  ['ɚ', '3'],
  ['ɜ', '3:'],
  ['ɝ', '3:'],
  ['ɨ', 'I2'],
  ['y', 'y'],
  ['ø', 'Y'],
  ['œ', 'W'],
  // Consonants.
  ['p', 'p'],
  ['b', 'b'],
  ['t', 't'],
  ['d', 'd'],
  ['k', 'k'],
  ['g', 'g'],
  ['ɡ', 'g'],
  ['f', 'f'],
  ['v', 'v'],
  ['θ', 'T'],
  ['ð', 'D'],
  ['s', 's'],
  ['z', 'z'],
  ['ʃ', 'S'],
  ['ʒ', 'Z'],
  ['h', 'h'],
  ['x', 'x'],
  ['ç', 'C'],
  ['m', 'm'],
  ['n', 'n'],
  ['ŋ', 'N'],
  ['ɲ', 'n^'],
  ['l', 'l'],
  ['ɫ', 'l'],
  ['r', 'r'],
  ['ɹ', 'r'],
  ['ɾ', 't#'],
  ['ʁ', 'r'],
  ['w', 'w'],
  ['j', 'j'],
  ['ʔ', '?'],
  // Stress and length.
  ['ˈ', "'"],
  ['ˌ', ','],
  ["'", "'"],
  [',', ','],
  ['ː', ':'],
  [' ', ' '],
]);

/** Marks that carry nothing eSpeak reads: syllable breaks, slashes, brackets, diacritics it has no mnemonic for. */
const IPA_SILENT = new Set(['.', '/', '[', ']', '‿', 'ˑ', '\u0329', '\u030d', '\u0303', '\u0361', '\u035c', '\u02b0', '\u031a']);

/** eSpeak vowel mnemonics start with one of these. */
const VOWEL_START = /^[aeiouAEIOUVWY@03y]/;

const IPA_LONGEST = Math.max(...[...IPA.keys()].map((k) => k.length));

/** IPA as eSpeak mnemonics, or null when it holds a symbol the table does not know. */
export function ipaToEspeak(ipa: string): string | null {
  const s = ipa.normalize('NFC').trim();
  let out = '';
  let stress = '';
  let i = 0;
  while (i < s.length) {
    const ch = s[i]!;
    if (IPA_SILENT.has(ch)) {
      i++;
      continue;
    }
    let hit: string | undefined;
    let n = Math.min(IPA_LONGEST, s.length - i);
    for (; n > 0; n--) {
      const piece = s.slice(i, i + n);
      if (IPA.has(piece)) {
        hit = IPA.get(piece);
        break;
      }
    }
    if (hit === undefined) return null;
    i += n;
    // A length mark after a vowel that is long already adds nothing.
    if (hit === ':' && out.endsWith(':')) continue;
    // IPA marks stress before the syllable, eSpeak just before its vowel (where its own transcriptions put it).
    if (hit === "'" || hit === ',') {
      stress = hit;
      continue;
    }
    if (hit === ' ') {
      out += stress + ' ';
      stress = '';
      continue;
    }
    if (stress && VOWEL_START.test(hit)) {
      out += stress;
      stress = '';
    }
    out += hit;
  }
  const clean = (out + stress).replace(/\s+/g, ' ').trim();
  return /[a-zA-Z@03]/.test(clean) ? clean : null;
}

/** CMU ARPAbet phonemes (the digits 0, 1, 2 on vowels are stress) and their eSpeak mnemonics. */
const ARPABET: ReadonlyMap<string, string> = new Map([
  ['AA', 'A:'],
  ['AE', 'a'],
  ['AH', 'V'],
  ['AO', 'O:'],
  ['AW', 'aU'],
  ['AX', '@'],
  ['AXR', '3'],
  ['AY', 'aI'],
  ['EH', 'E'],
  ['ER', '3:'],
  ['EY', 'eI'],
  ['IH', 'I'],
  ['IX', 'I2'],
  ['IY', 'i:'],
  ['OW', 'oU'],
  ['OY', 'OI'],
  ['UH', 'U'],
  ['UW', 'u:'],
  ['UX', 'u:'],
  ['B', 'b'],
  ['CH', 'tS'],
  ['D', 'd'],
  ['DH', 'D'],
  ['DX', 't#'],
  ['EL', '@L'],
  ['EM', '@m'],
  ['EN', '@n'],
  ['F', 'f'],
  ['G', 'g'],
  ['HH', 'h'],
  ['JH', 'dZ'],
  ['K', 'k'],
  ['L', 'l'],
  ['M', 'm'],
  ['N', 'n'],
  ['NG', 'N'],
  ['P', 'p'],
  ['Q', '?'],
  ['R', 'r'],
  ['S', 's'],
  ['SH', 'S'],
  ['T', 't'],
  ['TH', 'T'],
  ['V', 'v'],
  ['W', 'w'],
  ['Y', 'j'],
  ['Z', 'z'],
  ['ZH', 'Z'],
]);

/** Unstressed forms that differ from the stressed ones (ARPAbet's AH0 is a schwa, ER0 an r-coloured one). */
const ARPABET_UNSTRESSED: ReadonlyMap<string, string> = new Map([
  ['AH', '@'],
  ['ER', '3'],
]);

/** ARPAbet (phonemes separated by spaces) as eSpeak mnemonics, or null when a phoneme is unknown. */
export function arpabetToEspeak(arpabet: string): string | null {
  const parts = arpabet.trim().toUpperCase().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return null;
  let out = '';
  for (const part of parts) {
    const m = /^([A-Z]+)([012])?$/.exec(part);
    if (!m) return null;
    const [, base, stress] = m as unknown as [string, string, string | undefined];
    const sound = stress === '0' ? (ARPABET_UNSTRESSED.get(base) ?? ARPABET.get(base)) : ARPABET.get(base);
    if (sound === undefined) return null;
    out += (stress === '1' ? "'" : stress === '2' ? ',' : '') + sound;
  }
  return out;
}

export type PhonemeAlphabet = 'ipa' | 'cmu-arpabet';

/** A rule's phonemes in eSpeak's alphabet, and whether a sound was replaced by the nearest one the language has. */
export interface EspeakPhones {
  phones: string;
  nearest: boolean;
}

/**
 * A rule's phonemes in eSpeak's alphabet for a voice of `language` (a language tag or eSpeak NG identifier), or null
 * when they cannot be read. CMU ARPAbet is English's phone set and keeps the English table whatever the voice.
 */
export function toEspeakPhonemes(phoneme: string, alphabet: string, language?: string): EspeakPhones | null {
  const a = alphabet.toLowerCase();
  if (a === 'cmu-arpabet' || a === 'x-cmu' || a === 'cmu') return exact(arpabetToEspeak(phoneme));
  if (a !== 'ipa') return null;
  const table = espeakTableOf(language);
  return table ? ipaToEspeakIn(phoneme, table) : exact(ipaToEspeak(phoneme));
}

const exact = (phones: string | null): EspeakPhones | null => (phones === null ? null : { phones, nearest: false });

/** The eSpeak NG phoneme table read for a language tag or identifier (`fr-FR`, `roa/fr`, `fr`), if there is one. */
export function espeakTableOf(language: string | undefined): string | undefined {
  if (!language) return undefined;
  const tag = language.toLowerCase().replace(/_/g, '-');
  if (Object.hasOwn(ESPEAK_TABLE_OF, tag)) return ESPEAK_TABLE_OF[tag];
  const primary = tag.split('/').pop()!.split('-')[0]!;
  return Object.hasOwn(ESPEAK_TABLE_OF, primary) ? ESPEAK_TABLE_OF[primary] : undefined;
}

interface Table {
  sounds: Map<string, string>;
  longest: number;
}
const tables = new Map<string, Table>();

function tableNamed(name: string): Table {
  let t = tables.get(name);
  if (!t) {
    const sounds = new Map<string, string>();
    for (const pair of ESPEAK_PHONEME_TABLES[name]!.split('|')) {
      const space = pair.indexOf(' ');
      sounds.set(pair.slice(0, space), pair.slice(space + 1));
    }
    t = { sounds, longest: Math.max(...[...sounds.keys()].map((k) => k.length)) };
    tables.set(name, t);
  }
  return t;
}

/**
 * For a sound a language's table has not, the nearest ones, best first (by place and manner for consonants, height,
 * backness and rounding for vowels): what a speaker of that language would say for it.
 */
const NEAREST: ReadonlyMap<string, readonly string[]> = new Map([
  ['r', ['ʀ', 'ɾ', 'ʁ', 'ɹ']],
  ['ɾ', ['r', 'ɹ', 'ʀ']],
  ['ɹ', ['r', 'ɾ', 'ʁ']],
  ['ɻ', ['ɹ', 'r', 'ɾ']],
  ['ʁ', ['ʀ', 'χ', 'r', 'ɣ', 'ɾ']],
  ['ʀ', ['ʁ', 'r']],
  ['l', ['ɫ', 'ɭ', 'ʎ']],
  ['ɫ', ['l', 'ɭ']],
  ['ɭ', ['l', 'ɫ']],
  ['ʎ', ['lʲ', 'l']],
  ['ɲ', ['nʲ', 'n']],
  ['ŋ', ['n']],
  ['x', ['χ', 'h', 'k']],
  ['χ', ['x', 'h']],
  ['ç', ['x', 'ʃ', 'h']],
  ['ɣ', ['ʁ', 'x', 'ɡ']],
  ['h', ['x', 'χ']],
  ['ɦ', ['h', 'x']],
  ['θ', ['t', 's', 'f']],
  ['ð', ['d', 'z', 'v']],
  ['β', ['b', 'v']],
  ['ʋ', ['v', 'w']],
  ['w', ['ʋ', 'v', 'u']],
  ['ʃ', ['ɕ', 'ʂ', 's']],
  ['ʒ', ['ʑ', 'ʐ', 'z']],
  ['ɕ', ['ʃ', 'sʲ', 's']],
  ['ʑ', ['ʒ', 'zʲ', 'z']],
  ['ʂ', ['ʃ', 's']],
  ['ʐ', ['ʒ', 'z']],
  ['c', ['k']],
  ['ɟ', ['ɡ']],
  ['ʔ', ['']],
  ['y', ['ʏ', 'i']],
  ['ʏ', ['y', 'ɪ', 'i']],
  ['ø', ['œ', 'e']],
  ['œ', ['ø', 'ɛ']],
  ['ɵ', ['ø', 'ə', 'o']],
  ['ɨ', ['ɪ', 'i']],
  ['ɯ', ['u', 'ɨ']],
  ['i', ['ɪ', 'e']],
  ['ɪ', ['i', 'e']],
  ['e', ['ɛ', 'i']],
  ['ɛ', ['e', 'æ']],
  ['æ', ['a', 'ɛ']],
  ['a', ['ɑ', 'æ', 'ɐ']],
  ['ɑ', ['a', 'ɒ']],
  ['ɐ', ['ɜ', 'a', 'ə']],
  ['ɒ', ['ɔ', 'ɑ']],
  ['ʌ', ['ɐ', 'a', 'ə']],
  ['ə', ['ɐ', 'ɛ', 'e']],
  ['ɜ', ['ə', 'ɛ']],
  ['ɘ', ['ə', 'e']],
  ['o', ['ɔ', 'u']],
  ['ɔ', ['o', 'ɒ']],
  ['u', ['ʊ', 'o']],
  ['ʊ', ['u', 'o']],
  // Affricates, tried before their first letter alone.
  ['tɕ', ['tʃʲ', 'tʃ', 'ts']],
  ['dʑ', ['dʒʲ', 'dʒ', 'dz']],
  ['tʂ', ['tʃ', 'ts']],
  ['dʐ', ['dʒ', 'dz']],
  ['tʃ', ['tɕ', 'ts']],
  ['dʒ', ['dʑ', 'dz']],
  ['ts', ['tʃ']],
  ['dz', ['dʒ']],
  ['pf', ['f']],
]);

/** IPA's vowels (a sound whose key starts with one is a vowel, and takes the stress mark before it). */
const IPA_VOWEL = /^[aeiouyæøœɐɑɒɔəɘɛɜɞɤɨɪɯɵʉʊʌʏɚɝ]/;
/** Marks that carry nothing eSpeak reads and change no sound: syllable breaks, slashes, brackets, linking. */
const IPA_SEPARATORS = new Set(['.', '/', '[', ']', '‿', '|', '‖', '-']);
/** Tone letters, high to low. */
const TONE_LETTERS: Readonly<Record<string, string>> = { '˥': '5', '˦': '4', '˧': '3', '˨': '2', '˩': '1' };

/** IPA in one language's eSpeak NG table (see the module's comment), or null when a sound has nothing near it there. */
function ipaToEspeakIn(ipa: string, name: string): EspeakPhones | null {
  const { sounds, longest } = tableNamed(name);
  const tones = ESPEAK_TONES[name] ?? [];
  // The rule's IPA written as the table's keys are, its stress marks kept.
  const s = ipa
    .normalize('NFD')
    .trim()
    .replace(/[\u0361\u035c]/g, '')
    .replace(/g/g, 'ɡ');
  let out = '';
  let stress = '';
  let nearest = false;
  const put = (key: string, mnemonic: string) => {
    if (stress && IPA_VOWEL.test(key)) {
      out += stress;
      stress = '';
    }
    // eSpeak NG reads the longest mnemonic it knows: \`|\` keeps two (\`t\` \`s.\`) from reading as another (\`ts.\`).
    // A modifier of the sound before it (`;`, palatalized) is not a phoneme of its own: it takes no separator.
    if (/[^\s',|]$/.test(out) && !mnemonic.startsWith(';')) out += '|';
    out += mnemonic;
  };
  let i = 0;
  while (i < s.length) {
    const ch = s[i]!;
    if (IPA_SEPARATORS.has(ch)) {
      i++;
      continue;
    }
    if (ch === 'ˈ' || ch === "'" || ch === 'ˌ' || ch === ',') {
      stress = ch === 'ˈ' || ch === "'" ? "'" : ',';
      i++;
      continue;
    }
    if (/\s/.test(ch)) {
      out += `${stress} `;
      stress = '';
      i++;
      continue;
    }
    if (Object.hasOwn(TONE_LETTERS, ch)) {
      let contour = '';
      while (i < s.length && Object.hasOwn(TONE_LETTERS, s[i]!)) contour += TONE_LETTERS[s[i++]!];
      // A level tone's single letter is its two digits (˥ 55); a language without tones, or this one, loses it.
      const tone = contour.length === 1 ? contour + contour : contour;
      if (tones.includes(tone)) out += tone;
      else nearest = true;
      continue;
    }
    // An aspirated consonant: eSpeak NG names it with an `h` (Mandarin's `ph`) where its table has one.
    let hit: [string, string] | undefined;
    for (let n = Math.min(longest + 1, s.length - i); n > 0 && !hit; n--) {
      const piece = s.slice(i, i + n);
      const key = sounds.has(piece) ? piece : piece.replace(/ʰ/g, 'h');
      if (sounds.has(key)) hit = [piece, key];
    }
    if (hit) {
      i += hit[0].length;
      if (s[i] === 'ː' && !hit[1].endsWith('ː')) {
        // A long sound the table has only short: the nearest long one it has (German's long a is eSpeak NG's ɑː),
        // else the short one with eSpeak NG's length mark, which not every language lengthens with.
        const long = [hit[1], ...(NEAREST.get(hit[1]) ?? [])].map((k) => `${ipaKey(k)}ː`).find((k) => sounds.has(k));
        put(long ?? hit[1], long ? sounds.get(long)! : `${sounds.get(hit[1])!}:`);
        nearest = true;
        i++;
        continue;
      }
      put(hit[1], sounds.get(hit[1])!);
      continue;
    }
    if (ch === 'ː') {
      if (!out.endsWith(':')) out += ':';
      nearest = true;
      i++;
      continue;
    }
    if (/[\u0300-\u036fʰʲʷˠˤⁿˡ]/.test(ch)) {
      // A diacritic the table has no sound with (a nasal vowel in a language without them): the sound without it.
      nearest = true;
      i++;
      continue;
    }
    const pair = s.slice(i, i + 2);
    const width = NEAREST.has(pair) ? 2 : 1;
    const near = (NEAREST.get(width === 2 ? pair : ch) ?? []).map(ipaKey).find((k) => k === '' || sounds.has(k));
    if (near === undefined) return null;
    nearest = true;
    if (near) put(near, sounds.get(near)!);
    i += width;
  }
  const phones = (out + stress).replace(/\s+/g, ' ').trim();
  return /[a-zA-Z@0-9]/.test(phones) ? { phones, nearest } : null;
}
