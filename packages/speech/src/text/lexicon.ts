/**
 * Pronunciation dictionaries applied to a request's text (ElevenLabs' rules, as its API and PLS files give them).
 *
 * Matching:
 * - a rule matches its `string_to_replace` exactly, case included, unless it says `case_sensitive: false`;
 * - as a whole word unless it says `word_boundaries: false`: the characters around a match must not be letters,
 *   digits or combining marks (a Han, kana or other unspaced script's character is its own word edge);
 * - rules are tried in order (the dictionaries in the order the request names them, each in its own order): where
 *   two matches overlap, the earlier rule wins; a replacement is never matched again (one pass over the text as sent).
 *
 * An alias replaces the words it matches. A phoneme rule is spoken as its phonemes where the engine reads them
 * (eSpeak NG, Flite, GnuSpeech and the sherpa-onnx models eSpeak NG phonemizes for: `[[…]]` in the engine's own
 * alphabet, `engine-phones.ts`); elsewhere, or when its
 * phonemes cannot be converted, by its alias when it has one, else as written, and its words are reported as fallbacks.
 * A rule whose phonemes hold a sound the voice's language has not is spoken with the nearest one it has, and its words
 * are reported as fallbacks too.
 */
import { enginePhonemes, type PhoneSet } from './engine-phones.ts';
import { countCharacters } from './normalize.ts';

export interface LexiconRule {
  type: 'alias' | 'phoneme';
  string_to_replace: string;
  /** Default true. */
  case_sensitive?: boolean;
  /** Default true. */
  word_boundaries?: boolean;
  /** The replacement (alias rules); for a phoneme rule (from a PLS lexeme with both), its fallback. */
  alias?: string;
  phoneme?: string;
  /** `ipa` or `cmu-arpabet`. */
  alphabet?: string;
}

export interface LexiconMatch {
  from: number;
  to: number;
  /** Index of the rule in the list. */
  rule: number;
}

const WORD = /[\p{L}\p{N}\p{M}_]/u;
/** Scripts written without spaces: each character is a word edge of its own. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** Lower case, one UTF-16 unit for one (a character whose lower case changes length is kept): offsets stay. */
function fold(s: string): string {
  let out = '';
  for (const ch of s) {
    const lower = ch.toLowerCase();
    out += lower.length === ch.length ? lower : ch;
  }
  return out;
}

/** The code point that ends just before `i`, and the one that starts at `i`. */
function before(s: string, i: number): string {
  if (i <= 0) return '';
  const lo = s.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) return s.slice(i - 2, i);
  return s[i - 1]!;
}
function at(s: string, i: number): string {
  if (i >= s.length) return '';
  return String.fromCodePoint(s.codePointAt(i)!);
}

function edgeOk(outside: string, inside: string): boolean {
  if (!outside || !WORD.test(outside)) return true;
  return UNSPACED.test(outside) || UNSPACED.test(inside);
}

/** The matches of `rules` in `text`: never overlapping, the earlier rule first where two would, in text order. */
export function findMatches(text: string, rules: readonly LexiconRule[], forced: readonly LexiconMatch[] = []): LexiconMatch[] {
  const taken = new Uint8Array(text.length);
  let folded: string | undefined;
  // Matches fixed in advance (a marked-up run's own rule) stand before any rule is tried.
  const out: LexiconMatch[] = forced.filter((m) => m.to > m.from);
  for (const m of out) taken.fill(1, m.from, m.to);
  rules.forEach((rule, index) => {
    const raw = rule.string_to_replace;
    if (!raw) return;
    const sensitive = rule.case_sensitive !== false;
    const hay = sensitive ? text : (folded ??= fold(text));
    const needle = sensitive ? raw : fold(raw);
    const whole = rule.word_boundaries !== false;
    let from = hay.indexOf(needle);
    while (from >= 0) {
      const to = from + needle.length;
      let free = true;
      for (let k = from; k < to; k++)
        if (taken[k]) {
          free = false;
          break;
        }
      if (free && (!whole || (edgeOk(before(text, from), at(text, from)) && edgeOk(at(text, to), before(text, to))))) {
        taken.fill(1, from, to);
        out.push({ from, to, rule: index });
        from = hay.indexOf(needle, to);
      } else from = hay.indexOf(needle, from + 1);
    }
  });
  return out.sort((a, b) => a.from - b.from);
}

export interface AppliedLexicon {
  /** The text with aliases in place and each phoneme rule's words as one placeholder character (see `restore`). */
  text: string;
  /** Puts the phonemes (`[[…]]`) where their placeholders are, once the text was normalized and segmented. */
  restore(s: string): string;
  /**
   * The words of phoneme rules spoken by their fallback (alias, else as written), or with the nearest sounds the
   * language has, as the text has them.
   */
  fallbacks: string[];
  /** How many rules matched. */
  matches: number;
  /**
   * Characters (whitespace aside, as prices count them) that the dictionary's rules and forced phoneme rules put in
   * beyond the words they replace: what is spoken but not priced. Forced aliases (`<say-as>`'s reading, priced
   * `<sub>`) are not counted.
   */
  added: number;
  /** The text as it is spoken (phonemes as `[[…]]`), and where each replaced span of the request's text went in it. */
  spoken: { text: string; spans: ReplacedSpan[] };
}

/** A span of the request's text [from, to) that became [spokenFrom, spokenTo) of the spoken text. */
export interface ReplacedSpan {
  from: number;
  to: number;
  spokenFrom: number;
  spokenTo: number;
}

/** First of the Private Use Area characters that stand for phonemes while the text is normalized. */
const PLACEHOLDER = 0xe000;
const PLACEHOLDERS = 0x1900;

/**
 * Applies the `dictionary`'s rules to `text`, after the `forced` ones (a marked-up run's: they match where they say).
 * `phonemes`: the phone set the engine reads, so phoneme rules become `[[…]]` in it (through placeholders, which
 * normalization leaves alone); `false`: they fall back. `language`: the voice's, whose eSpeak NG phoneme table the
 * phonemes are written in (`engine-phones.ts` `phonemeLanguageOf`).
 */
export function applyLexicon(
  text: string,
  dictionary: readonly LexiconRule[],
  opts: {
    phonemes: PhoneSet | false;
    language?: string | undefined;
    forced?: readonly { from: number; to: number; rule: LexiconRule }[];
  },
): AppliedLexicon {
  const forced = opts.forced ?? [];
  const rules = [...dictionary, ...forced.map((f) => f.rule)];
  const matches = findMatches(
    text,
    dictionary,
    forced.map((f, k) => ({ from: f.from, to: f.to, rule: dictionary.length + k })),
  );
  const spoken: string[] = [];
  const slots = new Map<string, number>();
  const fallbacks: string[] = [];
  let out = '';
  let last = 0;
  // The text's own characters of the placeholders' range (unprintable) go: none may be taken for phonemes.
  const copy = (from: number, to: number) =>
    opts.phonemes ? text.slice(from, to).replace(/[\ue000-\ue8ff]/g, '') : text.slice(from, to);
  let spokenText = '';
  let added = 0;
  const spans: ReplacedSpan[] = [];
  // `said`: what the rule says, counted for `added` (a phoneme rule's own phonemes, not the engine's longer spelling).
  const put = (m: LexiconMatch, replacement: string, spoken = replacement, said = spoken) => {
    const rule = rules[m.rule]!;
    if (m.rule < dictionary.length || rule.type === 'phoneme')
      added += Math.max(0, countCharacters(said) - countCharacters(text.slice(m.from, m.to)));
    out += replacement;
    spans.push({ from: m.from, to: m.to, spokenFrom: spokenText.length, spokenTo: spokenText.length + spoken.length });
    spokenText += spoken;
  };
  for (const m of matches) {
    const rule = rules[m.rule]!;
    const written = text.slice(m.from, m.to);
    const between = copy(last, m.from);
    out += between;
    spokenText += between;
    last = m.to;
    if (rule.type === 'alias') {
      put(m, rule.alias ?? written);
      continue;
    }
    const converted =
      opts.phonemes && rule.phoneme ? enginePhonemes(opts.phonemes, rule.phoneme, rule.alphabet ?? 'ipa', opts.language) : null;
    const phones = converted?.phones ?? null;
    if (converted?.nearest && !fallbacks.includes(written)) fallbacks.push(written);
    if (phones !== null) {
      let slot = slots.get(phones);
      if (slot === undefined && spoken.length < PLACEHOLDERS) {
        slot = spoken.length;
        spoken.push(phones);
        slots.set(phones, slot);
      }
      if (slot !== undefined) {
        // Spaces keep the phonemes a word of their own whatever touches them.
        put(m, ` ${String.fromCharCode(PLACEHOLDER + slot)} `, ` [[${phones}]] `, rule.phoneme);
        continue;
      }
    }
    if (!fallbacks.includes(written)) fallbacks.push(written);
    put(m, rule.alias ?? written);
  }
  const tail = copy(last, text.length);
  out += tail;
  spokenText += tail;
  const pattern = /[\ue000-\ue8ff]/g;
  return {
    text: out,
    restore: (s) =>
      spoken.length === 0
        ? s
        : s.replace(pattern, (c) => {
            const k = c.charCodeAt(0) - PLACEHOLDER;
            return k < spoken.length ? `[[${spoken[k]}]]` : c;
          }),
    fallbacks,
    matches: matches.length,
    added,
    spoken: { text: spokenText, spans },
  };
}
