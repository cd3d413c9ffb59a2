import fs from 'node:fs';
import { Converter } from 'opencc-js/t2cn';

/**
 * The sensitive-word filter. The words are operator data (SENSITIVE_WORDS_FILES), read again when a file changes.
 *
 * Matching, on text and words alike, first folds away what does not change how a word reads: NFKC (full-width,
 * ligatures), Traditional Chinese characters to Simplified ones (OpenCC's tables, so 習近平 and 法輪功 match the
 * Simplified entries), diacritics, case, zero-width and other format characters, one or two Latin letters put
 * between Chinese characters as filler (法a轮a功), Cyrillic and Greek letters that look like
 * Latin ones, leetspeak digits and symbols (4dm1n, $h!t), l/1/| as i, and a Latin letter repeated in a row (fuuuck;
 * a listed word whose own letters double, "boob", keeps two: it matches "booob", never "Bob").
 * The folded text is then cut into tokens at spaces, punctuation and symbols; every CJK character is a token of
 * its own. A word matches a run of consecutive tokens that spells it exactly, so letters spread out ("f u c k",
 * "kill-yourself", "POLYVOX_STAFF") still match, while a Latin word inside a longer word does not ("Scunthorpe",
 * "Dickens", "Adminah" pass). Since each CJK character is a token, a CJK word matches anywhere in the text. A word
 * written `fuck*` also matches at the start of a longer word (fucking), `*word` at its end, `*word*` anywhere.
 */

export type WordScope = 'names' | 'all';
export interface SensitiveMatch {
  /** The word as the list writes it. */
  word: string;
  category: string;
}
export interface SensitiveWords {
  /** The first listed word in `text`; `names` (the default) also checks the words listed for names only. */
  find(text: string, scope?: WordScope): SensitiveMatch | null;
}

// Letters of other scripts that readers take for Latin ones; uppercase Greek is mapped before lowercasing,
// because Η (eta, looks like H) and η (looks like n) fold to one lowercase letter.
const UPPER_LOOKALIKES: Record<string, string> = {
  Α: 'a', Β: 'b', Ε: 'e', Ζ: 'z', Η: 'h', Ι: 'i', Κ: 'k', Μ: 'm', Ν: 'n', Ο: 'o', Ρ: 'p', Τ: 't', Υ: 'y', Χ: 'x',
}; // prettier-ignore
const LOWER_LOOKALIKES: Record<string, string> = {
  // Cyrillic
  а: 'a', в: 'b', г: 'r', е: 'e', к: 'k', м: 'm', н: 'h', о: 'o', п: 'n', р: 'p', с: 'c', т: 't', у: 'y',
  х: 'x', ь: 'b', ѕ: 's', і: 'i', ј: 'j', ԁ: 'd', ԛ: 'q', ԝ: 'w', һ: 'h', ӏ: 'i', ү: 'y', ɡ: 'g',
  // Greek
  α: 'a', β: 'b', γ: 'y', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ω: 'w',
  // Latin letters that are not a base letter with a mark
  ı: 'i', ȷ: 'j', ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ħ: 'h', ł: 'l', ŀ: 'l', ɑ: 'a', ƒ: 'f',
  // leetspeak digits (8964 folds the same way in the list, so numbers still match numbers)
  '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g',
}; // prettier-ignore
// Symbols read as letters where they touch a non-CJK letter or digit ($hit, sh!t, 4dm|n, @dmin); elsewhere they separate.
const SYMBOL_LETTERS: Record<string, string> = { '@': 'a', $: 's', '!': 'i', '|': 'i', '€': 'e', '£': 'l' };
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]/u;

/** Replaces each character the table lists, in one native pass (the server runs this on every request's text). */
function charMapper(table: Record<string, string>): (text: string) => string {
  const escaped = Object.keys(table).map((ch) => ch.replace(/[\\^$.*+?()[\]{}|-]/g, '\\$&'));
  const re = new RegExp(`[${escaped.join('')}]`, 'gu');
  return (text) => text.replace(re, (ch) => table[ch]!);
}
const foldUpper = charMapper(UPPER_LOOKALIKES);
const foldLower = charMapper(LOWER_LOOKALIKES);
const foldL = charMapper({ l: 'i', ŀ: 'i' });

const HAN = /\p{Script=Han}/u;
/** One or two ASCII letters between two CJK characters (spaces and punctuation around them allowed). */
const FILLER = new RegExp(`(?<=${CJK.source}[^\\p{L}\\p{N}]*)[A-Za-z]{1,2}(?=[^\\p{L}\\p{N}]*${CJK.source})`, 'gu');
let toSimplified: ((text: string) => string) | undefined;

/** Traditional (and Hong Kong and Taiwan variant) characters as Simplified ones; text without Han characters as is. */
function simplified(text: string): string {
  if (!HAN.test(text)) return text;
  toSimplified ??= Converter({ from: 't', to: 'cn' });
  return toSimplified(text);
}

/** Text folded for matching (see the top of this file), still with its separators. */
export function foldForMatch(text: string): string {
  let s = simplified(text.normalize('NFKC')).normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');
  s = s.replace(/\p{Cf}/gu, '');
  // One or two Latin letters put between Chinese characters as filler (法a轮a功, 习xx近平) are dropped, as separators
  // are; digits stay (5月1日 is not 5月35日).
  s = s.replace(FILLER, '');
  s = s.replace(/[@$!|€£]/gu, (ch, offset: number, all: string) => {
    const near = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c) && !CJK.test(c);
    const before = near(all[offset - 1]);
    const after = near(all[offset + 1]);
    // ! and | read as i only inside a word (fuck! stays fuck); @ and $ also at a word's edge.
    return (ch === '!' || ch === '|' ? before && after : before || after) ? (SYMBOL_LETTERS[ch] ?? ch) : ch;
  });
  s = foldUpper(s).toLowerCase();
  // ł and l read as i too, as 1 does (ki11 is kill), so they fold after the other letters.
  return foldL(foldLower(s));
}

interface Tokens {
  /** The tokens joined, each run of one Latin letter kept at most `maxRun` long. */
  text: string;
  starts: Set<number>;
  ends: Set<number>;
}

/**
 * `maxRun` 1: "fuuuck" reads as "fuck". A listed word whose own letters double after folding ("boob", "nigger",
 * "kill" as "kiii") is matched against the text with runs cut to 2 instead, so it still catches "booob" but never
 * "Bob", "Niger" or "Nigeria".
 */
/** A character's class for tokens: CJK (a token of its own), another letter, or a digit; ASCII without a regular expression. */
const CJK_CHAR = 1;
const LETTER = 2;
const DIGIT = 3;
function classOf(ch: string): number {
  const code = ch.charCodeAt(0);
  if (code < 0x80) return code >= 0x30 && code <= 0x39 ? DIGIT : LETTER;
  return CJK.test(ch) ? CJK_CHAR : /\p{L}/u.test(ch) ? LETTER : DIGIT;
}

function tokenize(text: string, maxRun: 1 | 2 = 1): Tokens {
  const parts: string[] = [];
  let length = 0;
  const starts = new Set<number>();
  const ends = new Set<number>();
  // The same letter's run in the output so far (a CJK character or a digit ends it).
  let last = '';
  let run = 0;
  for (const word of foldForMatch(text).split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    let inToken = false;
    for (const ch of word) {
      const kind = classOf(ch);
      const cjk = kind === CJK_CHAR;
      if (cjk || !inToken) {
        if (inToken) ends.add(length);
        starts.add(length);
      }
      // A Latin (or other non-CJK) letter repeated: kept at most `maxRun` times in a row, across tokens as before.
      const repeats = kind === LETTER && ch === last && run >= maxRun;
      if (!repeats) {
        parts.push(ch);
        length += ch.length;
        run = ch === last ? run + 1 : 1;
        last = ch;
      }
      if (cjk) {
        ends.add(length);
        inToken = false;
      } else {
        inToken = true;
      }
    }
    if (inToken) ends.add(length);
  }
  return { text: parts.join(''), starts, ends };
}

/** Normalizes text as the filter sees it: folded and with every separator removed. */
export function normalizeForMatch(text: string): string {
  return tokenize(text).text;
}

interface Entry {
  word: string;
  category: string;
  scope: WordScope;
  folded: string;
  /** Its folded letters double ("boob"): matched against the text with runs cut to 2, not 1. */
  doubled: boolean;
  anyStart: boolean;
  anyEnd: boolean;
}

function matches(entry: Entry, tokens: Tokens): boolean {
  for (let at = tokens.text.indexOf(entry.folded); at !== -1; at = tokens.text.indexOf(entry.folded, at + 1)) {
    if ((entry.anyStart || tokens.starts.has(at)) && (entry.anyEnd || tokens.ends.has(at + entry.folded.length))) {
      return true;
    }
  }
  return false;
}

/**
 * Reads one list: a word or phrase per line, `#` comments, `[category]` sections; `[category: names]` lists
 * words refused only in names (impersonation: "admin" is fine inside a sentence to speak).
 */
export function parseWordList(source: string, file = 'list'): Entry[] {
  const entries: Entry[] = [];
  let category = 'general';
  let scope: WordScope = 'all';
  source.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const section = /^\[\s*([\p{L}\p{N}_-]+)\s*(?::\s*([a-z]+)\s*)?\]$/u.exec(line);
    if (section) {
      if (section[2] !== undefined && section[2] !== 'names' && section[2] !== 'all') {
        throw new Error(`${file}:${index + 1}: a section's scope is "names" or "all", not "${section[2]}"`);
      }
      category = section[1]!.toLowerCase();
      scope = (section[2] as WordScope | undefined) ?? 'all';
      return;
    }
    const anyStart = line.startsWith('*');
    const anyEnd = line.length > 1 && line.endsWith('*');
    const bare = line.slice(anyStart ? 1 : 0, anyEnd ? -1 : undefined);
    const single = normalizeForMatch(bare);
    const twice = tokenize(bare, 2).text;
    const doubled = twice !== single;
    // A line that folds to nothing (punctuation only) would match every text.
    if (single) entries.push({ word: line, category, scope, folded: doubled ? twice : single, doubled, anyStart, anyEnd });
  });
  return entries;
}

export interface SensitiveWordsReload {
  /** How often, at most, `find` looks whether a file changed (ms); 0: on every call. */
  recheckMs?: number;
  /** Told when a changed file cannot be read again; the words read before stay in force. Read at each reload. */
  onReloadError?: (error: unknown) => void;
}

function stamp(files: string[]): string {
  return files
    .map((f) => {
      const st = fs.statSync(f);
      return `${st.ino}:${st.size}:${st.mtimeMs}`;
    })
    .join('|');
}

function readAll(files: string[]): Entry[] {
  return files.flatMap((f) => parseWordList(fs.readFileSync(f, 'utf8'), f));
}

/** Loads the lists (an unreadable one throws at start-up) and reads them again when one changes. */
export function loadSensitiveWords(files: string | string[], options: SensitiveWordsReload = {}): SensitiveWords {
  const list = typeof files === 'string' ? [files] : files;
  const recheckMs = options.recheckMs ?? 2000;
  let current = stamp(list);
  let entries = readAll(list);
  let checkedAt = Date.now();

  const refresh = () => {
    const now = Date.now();
    if (now - checkedAt < recheckMs) return;
    checkedAt = now;
    try {
      const next = stamp(list);
      if (next === current) return;
      entries = readAll(list);
      current = next;
    } catch (error) {
      options.onReloadError?.(error);
    }
  };

  return {
    find(text, scope = 'names') {
      refresh();
      return findIn(entries, text, scope);
    },
  };
}

/**
 * The last texts tokenized: one text is looked up in the built-in lists and then the operator's, one after the other,
 * and is read once.
 */
const recent: { text: string; maxRun: 1 | 2; tokens: Tokens }[] = [];
function tokensOf(text: string, maxRun: 1 | 2): Tokens {
  const hit = recent.find((r) => r.maxRun === maxRun && r.text === text);
  if (hit) return hit.tokens;
  const tokens = tokenize(text, maxRun);
  recent.unshift({ text, maxRun, tokens });
  recent.length = Math.min(recent.length, 2);
  return tokens;
}

function findIn(entries: Entry[], text: string, scope: WordScope): SensitiveMatch | null {
  if (entries.length === 0) return null;
  const tokens = tokensOf(text, 1);
  if (!tokens.text) return null;
  let paired: Tokens | undefined;
  const hit = entries.find(
    (e) => (scope === 'names' || e.scope === 'all') && matches(e, e.doubled ? (paired ??= tokensOf(text, 2)) : tokens),
  );
  return hit ? { word: hit.word, category: hit.category } : null;
}

/**
 * A fixed list of words, matched exactly as the files' are (the operator's own moderation list, kept in the
 * database): each term in its category, refused in every text (`all`). A term that folds to nothing is left out.
 */
export function wordListOf(terms: readonly { term: string; category: string }[]): SensitiveWords {
  const entries = terms.flatMap((t) => parseWordList(`[${t.category}]\n${t.term.replace(/[\r\n]+/g, ' ')}`, 'operator list'));
  return { find: (text, scope = 'names') => findIn(entries, text, scope) };
}
