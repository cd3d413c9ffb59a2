/**
 * The first implementation of `buildTimings` and `coveredPrefix`, kept as the reference the one that makes the text's
 * part once (`timingsOf`, src/pipeline/timings.ts) must match, call for call (timings.test.ts). Not used by the package.
 */
import type { CharacterAlignment, SentenceTiming, TimedWord, Timings } from '../../src/pipeline/timings.ts';

/** Words of a text: runs of letters, marks and digits (with inner apostrophes and hyphens); each CJK character alone. */
interface Token {
  from: number;
  to: number;
  start?: number;
  end?: number;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const WORD = /[\p{L}\p{M}\p{N}]/u;
const JOINER = /['’\-‐]/u;

function tokenize(text: string, from = 0, to = text.length): Token[] {
  const tokens: Token[] = [];
  let i = from;
  while (i < to) {
    const c = charAt(text, i);
    if (CJK.test(c)) {
      tokens.push({ from: i, to: i + c.length });
      i += c.length;
      continue;
    }
    if (!WORD.test(c)) {
      i += c.length;
      continue;
    }
    const begin = i;
    while (i < to) {
      const d = charAt(text, i);
      if (CJK.test(d)) break;
      if (WORD.test(d)) i += d.length;
      else if (JOINER.test(d) && i + 1 < to && WORD.test(charAt(text, i + 1)) && !CJK.test(charAt(text, i + 1))) i += d.length;
      else break;
    }
    tokens.push({ from: begin, to: i });
  }
  return tokens;
}

function charAt(text: string, i: number): string {
  return String.fromCodePoint(text.codePointAt(i)!);
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/**
 * Times the tokens of one sentence (found at `from` in the text) from its engine's words: each engine word is looked
 * for in the sentence from where the previous one was found, and gives its interval to the tokens it covers (split
 * by their length); tokens it missed share the gap between their timed neighbours. A sentence with no word found
 * spreads its tokens over its audio.
 */
function timeSentence(text: string, tokens: Token[], from: number, to: number, s: SentenceTiming): void {
  const lower = text.slice(0, to).toLowerCase();
  let cursor = from;
  let k = 0;
  for (const w of s.words) {
    const needle = w.word.trim().toLowerCase();
    if (!needle) continue;
    const at = lower.indexOf(needle, cursor);
    if (at < 0) continue;
    const end = at + needle.length;
    const covered: Token[] = [];
    while (k < tokens.length && tokens[k]!.to <= at) k++;
    for (let j = k; j < tokens.length && tokens[j]!.from < end; j++) covered.push(tokens[j]!);
    if (!covered.length) continue;
    cursor = end;
    const length = covered.reduce((n, t) => n + (t.to - t.from), 0);
    let t0 = s.start + w.start;
    const span = Math.max(0, w.end - w.start);
    for (const t of covered) {
      const t1 = t0 + (span * (t.to - t.from)) / length;
      t.start = t.start === undefined ? t0 : Math.min(t.start, t0);
      t.end = t.end === undefined ? t1 : Math.max(t.end, t1);
      t0 = t1;
    }
  }
  // Tokens left untimed share the gap between their neighbours (or the sentence's bounds).
  let i = 0;
  while (i < tokens.length) {
    if (tokens[i]!.start !== undefined) {
      i++;
      continue;
    }
    let j = i;
    while (j < tokens.length && tokens[j]!.start === undefined) j++;
    const lo = i > 0 ? tokens[i - 1]!.end! : s.start;
    const hi = j < tokens.length ? tokens[j]!.start! : s.start + s.duration;
    spread(tokens.slice(i, j), lo, Math.max(lo, hi));
    i = j;
  }
}

function spread(tokens: Token[], lo: number, hi: number): void {
  const length = tokens.reduce((n, t) => n + (t.to - t.from), 0);
  let at = lo;
  for (const t of tokens) {
    t.start = at;
    at += ((hi - lo) * (t.to - t.from)) / length;
    t.end = at;
  }
}

/** Per UTF-16 unit of `text`: its interval, from its tokens; the characters between tokens share the gaps. */
function unitTimes(text: string, tokens: Token[], first: number, last: number): { starts: Float64Array; ends: Float64Array } {
  const starts = new Float64Array(text.length);
  const ends = new Float64Array(text.length);
  let prevEnd = first;
  let gapFrom = 0;
  const fillGap = (to: number, until: number): void => {
    const count = codePoints(text, gapFrom, to);
    let n = 0;
    for (let i = gapFrom; i < to; i++) {
      const step = count ? (until - prevEnd) / count : 0;
      starts[i] = prevEnd + step * n;
      ends[i] = prevEnd + step * (n + 1);
      if (!isLowSurrogate(text, i + 1)) n++;
    }
  };
  for (const t of tokens) {
    fillGap(t.from, Math.max(prevEnd, t.start!));
    const count = codePoints(text, t.from, t.to);
    let n = 0;
    for (let i = t.from; i < t.to; i++) {
      const step = (t.end! - t.start!) / count;
      starts[i] = t.start! + step * n;
      ends[i] = t.start! + step * (n + 1);
      if (!isLowSurrogate(text, i + 1)) n++;
    }
    prevEnd = t.end!;
    gapFrom = t.to;
  }
  fillGap(text.length, Math.max(prevEnd, last));
  return { starts, ends };
}

function isLowSurrogate(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff;
}

function codePoints(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (!isLowSurrogate(text, i)) n++;
  return n;
}

const round = (t: number): number => Math.round(t * 1000) / 1000;

/** The alignment of `text` (one entry per code point) from per-unit times. */
function alignmentOf(text: string, starts: ArrayLike<number>, ends: ArrayLike<number>): CharacterAlignment {
  const out: CharacterAlignment = { characters: [], character_start_times_seconds: [], character_end_times_seconds: [] };
  for (let i = 0; i < text.length;) {
    const c = charAt(text, i);
    out.characters.push(c);
    out.character_start_times_seconds.push(round(starts[i]!));
    out.character_end_times_seconds.push(round(ends[i + c.length - 1]!));
    i += c.length;
  }
  return out;
}

/**
 * Maps each UTF-16 unit of `original` to a range of units of `normalized` (the same text cleaned and written out):
 * equal characters (case and whitespace aside) map one to one; where they differ, the next place where both agree
 * again on a few characters ends a replaced span, whose characters map to the whole span they became.
 */
function mapText(original: string, normalized: string): { from: Int32Array; to: Int32Array } {
  const from = new Int32Array(original.length);
  const to = new Int32Array(original.length);
  const same = (a: string | undefined, b: string | undefined): boolean =>
    a !== undefined && b !== undefined && (a === b || a.toLowerCase() === b.toLowerCase() || (/\s/.test(a) && /\s/.test(b)));
  const agree = (i: number, j: number): boolean => {
    const n = Math.min(3, original.length - i, normalized.length - j);
    if (n <= 0) return original.length - i === 0 && normalized.length - j === 0;
    for (let k = 0; k < n; k++) if (!same(original[i + k], normalized[j + k])) return false;
    return n === 3 || (original.length - i === n && normalized.length - j === n);
  };
  let i = 0;
  let j = 0;
  while (i < original.length) {
    if (j < normalized.length && same(original[i], normalized[j])) {
      from[i] = j;
      to[i] = j + 1;
      i++;
      j++;
      continue;
    }
    // Characters the cleaning dropped (extra spaces, zero-width ones) take the point where they were.
    if (/[\s\u200b-\u200d\ufeff]/.test(original[i]!) && !(j < normalized.length && /\s/.test(normalized[j]!))) {
      from[i] = j;
      to[i] = j;
      i++;
      continue;
    }
    let found: [number, number] | undefined;
    search: for (let d = 1; d <= 400; d++) {
      for (let di = 0; di <= Math.min(d, 60); di++) {
        const dj = d - di;
        if (i + di > original.length || j + dj > normalized.length) continue;
        if (agree(i + di, j + dj)) {
          found = [di, dj];
          break search;
        }
      }
    }
    const [di, dj] = found ?? [original.length - i, normalized.length - j];
    for (let k = 0; k < Math.max(1, di) && i + k < original.length; k++) {
      from[i + k] = j;
      to[i + k] = j + dj;
    }
    i += Math.max(1, di);
    j += dj;
  }
  return { from, to };
}

/**
 * The timings of a whole file: `original` is the request's text, `normalized` the plan's (whose sentences were
 * spoken, in order), each sentence placed where its audio went. Characters before the first word and after the
 * last share the silences at the ends of the speech; a label's audio belongs to no character.
 */
/**
 * `mapText` through the pronunciation rules' replacements: a replaced span of `original` maps to everything its
 * replacement became in `normalized`; the rest maps as `mapText` maps the spoken text.
 */
function mapThroughReplacements(
  original: string,
  spoken: { text: string; spans: readonly { from: number; to: number; spokenFrom: number; spokenTo: number }[] },
  normalized: string,
): { from: Int32Array; to: Int32Array } {
  const inner = mapText(spoken.text, normalized);
  const from = new Int32Array(original.length);
  const to = new Int32Array(original.length);
  const spans = [...spoken.spans].sort((a, b) => a.from - b.from);
  let s = 0;
  let shift = 0;
  for (let i = 0; i < original.length; i++) {
    while (s < spans.length && spans[s]!.to <= i) {
      shift += spans[s]!.spokenTo - spans[s]!.spokenFrom - (spans[s]!.to - spans[s]!.from);
      s++;
    }
    const span = spans[s];
    if (span && i >= span.from) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let k = span.spokenFrom; k < span.spokenTo; k++) {
        if (inner.to[k]! > inner.from[k]!) {
          lo = Math.min(lo, inner.from[k]!);
          hi = Math.max(hi, inner.to[k]!);
        }
      }
      if (lo === Infinity) {
        const at = span.spokenFrom < spoken.text.length ? inner.from[span.spokenFrom]! : normalized.length;
        lo = at;
        hi = at;
      }
      from[i] = lo;
      to[i] = hi;
      continue;
    }
    const k = i + shift;
    from[i] = k < spoken.text.length ? inner.from[k]! : normalized.length;
    to[i] = k < spoken.text.length ? inner.to[k]! : normalized.length;
  }
  return { from, to };
}

export function referenceBuildTimings(
  original: string,
  normalized: string,
  sentences: readonly SentenceTiming[],
  durationSec: number,
  /** With pronunciation rules: the text as spoken and its replaced spans (`Plan.spoken`). */
  spoken?: Parameters<typeof mapThroughReplacements>[1],
  /** `<mark>`s at UTF-16 offsets of `original`. */
  marks?: readonly { name: string; at: number }[],
): Timings {
  const tokens = tokenize(normalized);
  let cursor = 0;
  for (const s of sentences) {
    const at = normalized.indexOf(s.text, cursor);
    if (at < 0) continue;
    const end = at + s.text.length;
    const inside = tokens.filter((t) => t.from >= at && t.to <= end);
    timeSentence(normalized, inside, at, end, s);
    cursor = end;
  }
  const speechStart = sentences.length ? sentences[0]!.start : 0;
  const speechEnd = sentences.length ? sentences.at(-1)!.start + sentences.at(-1)!.duration : durationSec;
  // Tokens outside every located sentence (none, in practice) share what is left around them.
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i]!.start !== undefined) continue;
    let j = i;
    while (j < tokens.length && tokens[j]!.start === undefined) j++;
    spread(tokens.slice(i, j), i > 0 ? tokens[i - 1]!.end! : speechStart, j < tokens.length ? tokens[j]!.start! : speechEnd);
    i = j;
  }
  // Intervals stay ordered and inside the audio whatever an engine reported.
  let floor = 0;
  for (const t of tokens) {
    t.start = clamp(Math.max(t.start!, floor), 0, durationSec);
    t.end = clamp(Math.max(t.end!, t.start), t.start, durationSec);
    floor = t.end;
  }
  const norm = unitTimes(normalized, tokens, speechStart, Math.min(durationSec, speechEnd));
  const normalizedAlignment = alignmentOf(normalized, norm.starts, norm.ends);

  // The request's own characters take the times of what they became.
  const map = spoken ? mapThroughReplacements(original, spoken, normalized) : mapText(original, normalized);
  const starts = new Float64Array(original.length);
  const ends = new Float64Array(original.length);
  for (let i = 0; i < original.length; i++) {
    const a = map.from[i]!;
    const b = map.to[i]!;
    if (b > a) {
      starts[i] = norm.starts[a]!;
      ends[i] = norm.ends[b - 1]!;
    } else {
      const t = a < normalized.length ? norm.starts[a]! : a > 0 ? norm.ends[a - 1]! : speechStart;
      starts[i] = t;
      ends[i] = t;
    }
  }
  // Monotone, whatever the mapping did.
  for (let i = 1; i < original.length; i++) {
    if (starts[i]! < starts[i - 1]!) starts[i] = starts[i - 1]!;
    if (ends[i]! < starts[i]!) ends[i] = starts[i]!;
  }
  const alignment = alignmentOf(original, starts, ends);

  // Words of the request's text, in code point indexes.
  const cpIndex = new Int32Array(original.length + 1);
  for (let i = 0, n = 0; i <= original.length; i++) {
    cpIndex[i] = n;
    if (i < original.length && !isLowSurrogate(original, i + 1)) n++;
  }
  const words: TimedWord[] = tokenize(original).map((t) => {
    let start = Infinity;
    let end = 0;
    for (let i = t.from; i < t.to; i++) {
      start = Math.min(start, starts[i]!);
      end = Math.max(end, ends[i]!);
    }
    return {
      word: original.slice(t.from, t.to),
      start: round(start),
      end: round(end),
      charStart: cpIndex[t.from]!,
      charEnd: cpIndex[t.to]!,
    };
  });
  // Two words of the request can become one span of the normalized text (a replaced number): split what they share.
  for (let i = 1; i < words.length; i++) {
    const a = words[i - 1]!;
    const b = words[i]!;
    if (b.start < a.end) {
      const mid = round(Math.max(a.start, Math.min(b.end, (a.start + b.end) / 2)));
      a.end = mid;
      b.start = Math.max(b.start, mid);
      if (b.end < b.start) b.end = b.start;
    }
  }
  const marked = marks?.length
    ? { marks: marks.map((m) => ({ name: m.name, time_seconds: round(m.at < original.length ? starts[m.at]! : durationSec) })) }
    : {};
  return { words, alignment, normalizedAlignment, durationSec, ...marked };
}

/**
 * How much of the texts the sentences placed so far cover, in characters (code points) of each alignment: the normalized
 * text up to the last placed sentence's end, and the request's characters that map inside it.
 */
export function referenceCoveredPrefix(
  original: string,
  normalized: string,
  placed: readonly { text: string }[],
  spoken?: Parameters<typeof mapThroughReplacements>[1],
): { characters: number; normalized: number } {
  let cursor = 0;
  for (const s of placed) {
    const at = normalized.indexOf(s.text, cursor);
    if (at >= 0) cursor = at + s.text.length;
  }
  const map = spoken ? mapThroughReplacements(original, spoken, normalized) : mapText(original, normalized);
  let i = 0;
  while (i < original.length && map.to[i]! <= cursor && map.from[i]! < Math.max(cursor, 1)) i++;
  if (cursor >= normalized.length) i = original.length;
  return { characters: Array.from(original.slice(0, i)).length, normalized: Array.from(normalized.slice(0, cursor)).length };
}
