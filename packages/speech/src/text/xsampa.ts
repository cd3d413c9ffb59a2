/**
 * X-SAMPA (SSML's `alphabet="x-sampa"`, a PLS lexicon's too) as IPA, which the rest of the pronunciation path reads.
 * X-SAMPA writes IPA in ASCII: most lower-case letters are themselves, the others are capitals, digits and marks, and
 * a backslash, a backtick or `_` and a letter make further symbols and diacritics. The longest symbol wins (`r\``
 * before `r\` before `r`); a symbol outside the table is reported, never guessed at.
 */

/** X-SAMPA symbols and the IPA each stands for (Wells' X-SAMPA chart: consonants, vowels, suprasegmentals, diacritics). */
const TABLE: ReadonlyMap<string, string> = new Map([
  // Lower-case letters that are IPA as written (g is IPA's script g).
  ...[...'abcdefhijklmnopqrstuvwxyz'].map((c) => [c, c] as [string, string]),
  ['g', 'ɡ'],
  // Capitals.
  ['A', 'ɑ'],
  ['B', 'β'],
  ['C', 'ç'],
  ['D', 'ð'],
  ['E', 'ɛ'],
  ['F', 'ɱ'],
  ['G', 'ɣ'],
  ['H', 'ɥ'],
  ['I', 'ɪ'],
  ['J', 'ɲ'],
  ['K', 'ɬ'],
  ['L', 'ʎ'],
  ['M', 'ɯ'],
  ['N', 'ŋ'],
  ['O', 'ɔ'],
  ['P', 'ʋ'],
  ['Q', 'ɒ'],
  ['R', 'ʁ'],
  ['S', 'ʃ'],
  ['T', 'θ'],
  ['U', 'ʊ'],
  ['V', 'ʌ'],
  ['W', 'ʍ'],
  ['X', 'χ'],
  ['Y', 'ʏ'],
  ['Z', 'ʒ'],
  // With a backslash.
  ['B\\', 'ʙ'],
  ['G\\', 'ɢ'],
  ['H\\', 'ʜ'],
  ['I\\', 'ᵻ'],
  ['J\\', 'ɟ'],
  ['K\\', 'ɮ'],
  ['L\\', 'ʟ'],
  ['M\\', 'ɰ'],
  ['N\\', 'ɴ'],
  ['O\\', 'ʘ'],
  ['R\\', 'ʀ'],
  ['U\\', 'ᵿ'],
  ['X\\', 'ħ'],
  ['h\\', 'ɦ'],
  ['j\\', 'ʝ'],
  ['l\\', 'ɺ'],
  ['p\\', 'ɸ'],
  ['r\\', 'ɹ'],
  ['s\\', 'ɕ'],
  ['v\\', 'ʋ'],
  ['x\\', 'ɧ'],
  ['z\\', 'ʑ'],
  ['?\\', 'ʕ'],
  ['<\\', 'ʢ'],
  ['>\\', 'ʡ'],
  ['@\\', 'ɘ'],
  ['3\\', 'ɞ'],
  ['!\\', 'ǃ'],
  ['|\\', 'ǀ'],
  ['=\\', 'ǂ'],
  ['|\\|\\', 'ǁ'],
  ['-\\', '‿'],
  ['G\\_<', 'ʛ'],
  ['J\\_<', 'ʄ'],
  // Retroflexes (a backtick) and implosives (`_<`).
  ['d`', 'ɖ'],
  ['l`', 'ɭ'],
  ['n`', 'ɳ'],
  ['r`', 'ɽ'],
  ['r\\`', 'ɻ'],
  ['s`', 'ʂ'],
  ['t`', 'ʈ'],
  ['z`', 'ʐ'],
  ['@`', 'ɚ'],
  ['b_<', 'ɓ'],
  ['d_<', 'ɗ'],
  ['g_<', 'ɠ'],
  // Digits and marks.
  ['1', 'ɨ'],
  ['2', 'ø'],
  ['3', 'ɜ'],
  ['4', 'ɾ'],
  ['5', 'ɫ'],
  ['6', 'ɐ'],
  ['7', 'ɤ'],
  ['8', 'ɵ'],
  ['9', 'œ'],
  ['&', 'ɶ'],
  ['@', 'ə'],
  ['{', 'æ'],
  ['}', 'ʉ'],
  ['?', 'ʔ'],
  // Suprasegmentals.
  ['"', 'ˈ'],
  ['%', 'ˌ'],
  [':', 'ː'],
  [':\\', 'ˑ'],
  ['.', '.'],
  ['|', '|'],
  ['||', '‖'],
  ['^', 'ꜛ'],
  ['!', 'ꜜ'],
  // Diacritics.
  ["'", 'ʲ'],
  ['`', '˞'],
  ['~', '\u0303'],
  ['=', '\u0329'],
  ['_h', 'ʰ'],
  ['_w', 'ʷ'],
  ['_j', 'ʲ'],
  ['_G', 'ˠ'],
  ['_?\\', 'ˤ'],
  ['_n', 'ⁿ'],
  ['_l', 'ˡ'],
  ['_0', '\u0325'],
  ['_v', '\u032c'],
  ['_t', '\u0324'],
  ['_k', '\u0330'],
  ['_N', '\u033c'],
  ['_d', '\u032a'],
  ['_a', '\u033a'],
  ['_m', '\u033b'],
  ['_~', '\u0303'],
  ['_=', '\u0329'],
  ['_^', '\u032f'],
  ['_}', '\u031a'],
  ['_"', '\u0308'],
  ['_+', '\u031f'],
  ['_-', '\u0320'],
  ['_r', '\u031d'],
  ['_o', '\u031e'],
  ['_A', '\u0318'],
  ['_q', '\u0319'],
  ['_x', '\u033d'],
  ['_X', '\u0306'],
  ['_e', '\u0334'],
  ['_c', '\u031c'],
  ['_O', '\u0339'],
  ['_', '\u0361'],
  // Separators: a space stays, a hyphen (X-SAMPA's segment separator) is nothing.
  [' ', ' '],
  ['-', ''],
]);

const LONGEST = Math.max(...[...TABLE.keys()].map((k) => k.length));

/** X-SAMPA as IPA, or the symbols it holds that X-SAMPA has not (`unknown`, each once, in order). */
export function xsampaToIpa(xsampa: string): { ipa: string; unknown: string[] } {
  const s = xsampa.trim();
  const unknown: string[] = [];
  let ipa = '';
  let i = 0;
  while (i < s.length) {
    let n = Math.min(LONGEST, s.length - i);
    let hit: string | undefined;
    for (; n > 0; n--) {
      hit = TABLE.get(s.slice(i, i + n));
      if (hit !== undefined) break;
    }
    if (hit === undefined) {
      const ch = String.fromCodePoint(s.codePointAt(i)!);
      if (!unknown.includes(ch)) unknown.push(ch);
      i += ch.length;
      continue;
    }
    ipa += hit;
    i += n;
  }
  return { ipa: ipa.normalize('NFC'), unknown };
}
