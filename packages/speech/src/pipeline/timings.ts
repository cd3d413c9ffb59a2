/**
 * Timings: an alignment of a request's text to its audio, per word and per character (ElevenLabs' shape), built
 * from the word times an engine reports for each sentence and the place each sentence took in the file (after
 * the explicit AI label, sentence joins, speed and pitch changes, resampling: times in seconds survive all of
 * them, and the DSP stage scales them for the speed it applies).
 */
import type { WordTiming } from '../core/types.ts';

/** A word of the text with its interval in the audio and its place in the text (indexes into `characters`). */
export interface TimedWord {
  word: string;
  start: number;
  end: number;
  /** Index of its first character in the alignment's `characters` (code points of the text). */
  charStart: number;
  /** One past its last character. */
  charEnd: number;
}

/** ElevenLabs' character alignment: one entry per character (code point) of the text. */
export interface CharacterAlignment {
  characters: string[];
  character_start_times_seconds: number[];
  character_end_times_seconds: number[];
}

export interface Timings {
  /** The words of the request's own text. */
  words: TimedWord[];
  /** Every character of the request's text as it was sent. */
  alignment: CharacterAlignment;
  /** Every character of the text as the engine read it (numbers, dates … written out). */
  normalizedAlignment: CharacterAlignment;
  durationSec: number;
  /** SSML's `<mark name>`s, each at the time of the text that follows it (absent without marks). */
  marks?: { name: string; time_seconds: number }[];
  /** In a stream: how many characters of each alignment are final (their sentences placed); the rest may still move. */
  known?: { characters: number; normalized: number };
}

/** Where one sentence's audio sits in the file, with its engine's word times relative to that start. */
export interface SentenceTiming {
  text: string;
  start: number;
  duration: number;
  words: readonly WordTiming[];
}

/** Frames of 10 ms below this share of the sentence's loudest frame (−40 dB) are silence. */
const SILENCE_RATIO = 0.01;
const FRAME_SEC = 0.01;
/** Frames of sound at a word's bound that may belong to the next word (or the one before). */
const NUDGE = 3;
/** Frames of silence that make a pause behind such frames. */
const MIN_PAUSE = 5;

/**
 * An engine's word runs to the next word's start, pauses included: each word's end is brought back over the
 * silence that ends it, and its start forward over the silence that opens it, so a pause lies between words.
 */
export function trimWordSilences(samples: Float32Array, rate: number, words: readonly WordTiming[]): WordTiming[] {
  if (!words.length || !samples.length) return [...words];
  const frame = Math.max(1, Math.round(FRAME_SEC * rate));
  const frames = Math.ceil(samples.length / frame);
  const rms = new Float32Array(frames);
  let peak = 0;
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    const end = Math.min(samples.length, (f + 1) * frame);
    for (let i = f * frame; i < end; i++) sum += samples[i]! * samples[i]!;
    rms[f] = Math.sqrt(sum / (end - f * frame));
    if (rms[f]! > peak) peak = rms[f]!;
  }
  const floor = Math.max(peak * SILENCE_RATIO, 1e-5);
  const duration = samples.length / rate;
  const out: WordTiming[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const next = words[i + 1];
    let start = clamp(w.start, 0, duration);
    let end = clamp(Math.min(w.end, next ? next.start : duration), start, duration);
    const a = Math.floor(start / FRAME_SEC);
    const b = Math.min(frames, Math.ceil(end / FRAME_SEC));
    // An event can come a few milliseconds after (or before) the sound it names: a silence that ends within
    // NUDGE frames of the word's bound still counts as the word's edge, when it is long enough to be a pause.
    let k = b - 1;
    while (k > a && b - 1 - k < NUDGE && rms[k]! >= floor) k--;
    let j = k;
    while (j > a && rms[j]! < floor) j--;
    if (k - j >= (k === b - 1 ? 1 : MIN_PAUSE)) end = Math.min(end, (j + 1) * FRAME_SEC);
    let m = a;
    while (m < b - 1 && m - a < NUDGE && rms[m]! >= floor) m++;
    let n = m;
    while (n < b - 1 && rms[n]! < floor) n++;
    if (n - m >= (m === a ? 1 : MIN_PAUSE) && n * FRAME_SEC < end) start = Math.max(start, n * FRAME_SEC);
    out.push({ word: w.word, start, end: Math.max(start, end) });
  }
  return out;
}

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
  // Made only for a sentence with words (one still to come has none).
  const lower = s.words.length ? text.slice(0, to).toLowerCase() : '';
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

/**
 * Maps each UTF-16 unit of `original` to a range of units of `normalized` (the same text cleaned and written out):
 * equal characters (case and whitespace aside) map one to one; where they differ, the next place where both agree
 * again on a few characters ends a replaced span, whose characters map to the whole span they became.
 */
export function mapText(original: string, normalized: string): { from: Int32Array; to: Int32Array } {
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
 * `mapText` through the pronunciation rules' replacements: a replaced span of `original` maps to everything its
 * replacement became in `normalized`; the rest maps as `mapText` maps the spoken text.
 */
export function mapThroughReplacements(
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

/** Timings of a text, built at any moment of its synthesis (see `timingsOf`). */
export interface TimingsBuilder {
  /** The timings with these sentences placed (those still to come at the end, with no length): as `buildTimings`. */
  build(sentences: readonly SentenceTiming[], durationSec: number): Timings;
  /** As `coveredPrefix`: the characters of each alignment the sentences placed so far cover. */
  covered(placed: readonly { text: string }[]): { characters: number; normalized: number };
}

/** A text's code points (a surrogate pair one, a lone surrogate one): each one's text and its first and last UTF-16 unit. */
function codePointsOf(text: string): { characters: string[]; first: Int32Array; last: Int32Array } {
  const characters: string[] = [];
  const first: number[] = [];
  const last: number[] = [];
  for (let i = 0; i < text.length;) {
    const c = charAt(text, i);
    characters.push(c);
    first.push(i);
    last.push(i + c.length - 1);
    i += c.length;
  }
  return { characters, first: Int32Array.from(first), last: Int32Array.from(last) };
}

/** Per UTF-16 offset `i` (0 to the length): how many characters `Array.from(text.slice(0, i))` has. */
function prefixLengths(text: string): Int32Array {
  const out = new Int32Array(text.length + 1);
  for (let i = 0; i < text.length;) {
    const c = text.codePointAt(i)!;
    const step = c > 0xffff ? 2 : 1;
    // A prefix that ends inside a surrogate pair keeps its high half, one character.
    for (let k = 1; k <= step; k++) out[i + k] = out[i]! + 1;
    i += step;
  }
  return out;
}

/**
 * The part of a text's timings that depends on the text alone, made once: its words (tokens), the request's characters
 * mapped onto the normalized text's, their code points. A stream hands on its alignment before each sentence; building
 * all of it again each time redid that work per sentence (the work grew with the square of the text's length, on the
 * event loop), where only the times change. Each placed sentence is timed once (`build` keeps its tokens' times for
 * the same `SentenceTiming` object). The results are those of building them whole, to the bit.
 */
export function timingsOf(
  original: string,
  normalized: string,
  /** With pronunciation rules: the text as spoken and its replaced spans (`Plan.spoken`). */
  spoken?: Parameters<typeof mapThroughReplacements>[1],
  /** `<mark>`s at UTF-16 offsets of `original`. */
  marks?: readonly { name: string; at: number }[],
): TimingsBuilder {
  let made:
    | {
        bounds: Token[];
        map: { from: Int32Array; to: Int32Array };
        normalizedPoints: ReturnType<typeof codePointsOf>;
        originalPoints: ReturnType<typeof codePointsOf>;
        originalWords: { word: string; from: number; to: number }[];
        cpIndex: Int32Array;
      }
    | undefined;
  /** What depends on the texts alone: made at the first `build` (`covered` needs only the map). */
  const textPart = () => {
    if (made) return made;
    // Words of the request's text, in code point indexes.
    const cpIndex = new Int32Array(original.length + 1);
    for (let i = 0, n = 0; i <= original.length; i++) {
      cpIndex[i] = n;
      if (i < original.length && !isLowSurrogate(original, i + 1)) n++;
    }
    made = {
      bounds: tokenize(normalized),
      map: mapOf(),
      normalizedPoints: codePointsOf(normalized),
      originalPoints: codePointsOf(original),
      originalWords: tokenize(original).map((t) => ({ word: original.slice(t.from, t.to), from: t.from, to: t.to })),
      cpIndex,
    };
    return made;
  };
  let mapped: { from: Int32Array; to: Int32Array } | undefined;
  const mapOf = () => (mapped ??= spoken ? mapThroughReplacements(original, spoken, normalized) : mapText(original, normalized));
  let lengths: { original: Int32Array; normalized: Int32Array } | undefined;
  /** Each sentence placed, timed once: its place in the text and its tokens' times. */
  const timed = new WeakMap<SentenceTiming, { at: number; count: number; starts: Float64Array; ends: Float64Array }>();

  return {
    build(sentences, durationSec) {
      const { bounds, map, normalizedPoints, originalPoints, originalWords, cpIndex } = textPart();
      const tokens: Token[] = bounds.map((t) => ({ from: t.from, to: t.to }));
      let cursor = 0;
      for (const s of sentences) {
        const at = normalized.indexOf(s.text, cursor);
        if (at < 0) continue;
        const end = at + s.text.length;
        // The tokens inside [at, end): tokens are ordered and apart, so they are one run.
        let lo = 0;
        let hi = tokens.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (tokens[mid]!.from < at) lo = mid + 1;
          else hi = mid;
        }
        let stop = lo;
        while (stop < tokens.length && tokens[stop]!.to <= end) stop++;
        const inside = tokens.slice(lo, stop);
        const kept = timed.get(s);
        if (kept && kept.at === at && kept.count === inside.length) {
          inside.forEach((t, i) => {
            t.start = kept.starts[i];
            t.end = kept.ends[i];
          });
        } else {
          timeSentence(normalized, inside, at, end, s);
          // Only a sentence with words is worth keeping (one still to come is timed at once).
          if (s.words.length)
            timed.set(s, {
              at,
              count: inside.length,
              starts: Float64Array.from(inside, (t) => t.start!),
              ends: Float64Array.from(inside, (t) => t.end!),
            });
        }
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
      const normalizedAlignment = alignmentFrom(normalizedPoints, norm.starts, norm.ends);

      // The request's own characters take the times of what they became.
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
      const alignment = alignmentFrom(originalPoints, starts, ends);

      const words: TimedWord[] = originalWords.map((t) => {
        let start = Infinity;
        let end = 0;
        for (let i = t.from; i < t.to; i++) {
          start = Math.min(start, starts[i]!);
          end = Math.max(end, ends[i]!);
        }
        return { word: t.word, start: round(start), end: round(end), charStart: cpIndex[t.from]!, charEnd: cpIndex[t.to]! };
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
        ? {
            marks: marks.map((m) => ({
              name: m.name,
              time_seconds: round(m.at < original.length ? starts[m.at]! : durationSec),
            })),
          }
        : {};
      return { words, alignment, normalizedAlignment, durationSec, ...marked };
    },

    covered(placed) {
      let cursor = 0;
      for (const s of placed) {
        const at = normalized.indexOf(s.text, cursor);
        if (at >= 0) cursor = at + s.text.length;
      }
      const map = mapOf();
      let i = 0;
      while (i < original.length && map.to[i]! <= cursor && map.from[i]! < Math.max(cursor, 1)) i++;
      if (cursor >= normalized.length) i = original.length;
      lengths ??= { original: prefixLengths(original), normalized: prefixLengths(normalized) };
      return { characters: lengths.original[i]!, normalized: lengths.normalized[cursor]! };
    },
  };
}

/** The alignment of a text (one entry per code point) from per-unit times. */
function alignmentFrom(
  points: ReturnType<typeof codePointsOf>,
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
): CharacterAlignment {
  const n = points.characters.length;
  const startTimes = new Array<number>(n);
  const endTimes = new Array<number>(n);
  for (let k = 0; k < n; k++) {
    startTimes[k] = round(starts[points.first[k]!]!);
    endTimes[k] = round(ends[points.last[k]!]!);
  }
  return {
    characters: points.characters.slice(),
    character_start_times_seconds: startTimes,
    character_end_times_seconds: endTimes,
  };
}

/**
 * The timings of a whole file: `original` is the request's text, `normalized` the plan's (whose sentences were
 * spoken, in order), each sentence placed where its audio went. Characters before the first word and after the
 * last share the silences at the ends of the speech; a label's audio belongs to no character.
 */
export function buildTimings(
  original: string,
  normalized: string,
  sentences: readonly SentenceTiming[],
  durationSec: number,
  /** With pronunciation rules: the text as spoken and its replaced spans (`Plan.spoken`). */
  spoken?: Parameters<typeof mapThroughReplacements>[1],
  /** `<mark>`s at UTF-16 offsets of `original`. */
  marks?: readonly { name: string; at: number }[],
): Timings {
  return timingsOf(original, normalized, spoken, marks).build(sentences, durationSec);
}

/** The characters of `alignment` whose start falls in [from, to): the piece of a stream's chunk. */
export function sliceAlignment(alignment: CharacterAlignment, from: number, to: number): CharacterAlignment {
  const out: CharacterAlignment = { characters: [], character_start_times_seconds: [], character_end_times_seconds: [] };
  alignment.characters.forEach((c, i) => {
    const t = alignment.character_start_times_seconds[i]!;
    if (t >= from && t < to) {
      out.characters.push(c);
      out.character_start_times_seconds.push(t);
      out.character_end_times_seconds.push(alignment.character_end_times_seconds[i]!);
    }
  });
  return out;
}

/**
 * How much of the texts the sentences placed so far cover, in characters (code points) of each alignment: the normalized
 * text up to the last placed sentence's end, and the request's characters that map inside it.
 */
export function coveredPrefix(
  original: string,
  normalized: string,
  placed: readonly { text: string }[],
  spoken?: Parameters<typeof mapThroughReplacements>[1],
): { characters: number; normalized: number } {
  return timingsOf(original, normalized, spoken).covered(placed);
}
