/**
 * Phoneme strings of a pronunciation rule (IPA, CMU ARPAbet) as eSpeak NG's own phoneme mnemonics, which it reads
 * between `[[` and `]]` (its Kirshenbaum-like alphabet; the English set, which most of its languages share).
 *
 * eSpeak places a stress mark anywhere before the vowel it stresses, so IPA's marks (before the syllable) and
 * ARPAbet's digits (on the vowel) both become a mark just before the syllable or vowel. A symbol outside the tables
 * makes the whole conversion fail (`null`): the rule is then spoken by its fallback, never as a guess.
 */

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

/** A rule's phonemes in eSpeak's alphabet, or null when they cannot be read. */
export function toEspeakPhonemes(phoneme: string, alphabet: string): string | null {
  const a = alphabet.toLowerCase();
  if (a === 'ipa') return ipaToEspeak(phoneme);
  if (a === 'cmu-arpabet' || a === 'x-cmu' || a === 'cmu') return arpabetToEspeak(phoneme);
  return null;
}
