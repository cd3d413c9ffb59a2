/**
 * Word times from an engine's own phone timing (Flite's segments, GnuSpeech's postures): the timed phones the engine
 * spoke are matched, in order, with the phones each word of the text should have (an edit-distance alignment, so a
 * phone the engine added, dropped or changed moves no boundary), and each word spans its first phone's start to its
 * last phone's end. Pauses are phones of no word: they fall between words.
 */
import type { WordTiming } from '../core/types.ts';

export interface TimedPhone {
  name: string;
  start: number;
  end: number;
}

/**
 * A word of the text and the phones it should be spoken with ('?' stands for a phone not known); `null`: a word whose
 * phones are not known at all, which takes whatever the engine spoke between the words around it (a run of such words
 * shares it by `weight`, its guessed length in phones, each boundary moved onto a pause close to it).
 */
export interface WordPhones {
  word: string;
  phones: readonly string[] | null;
  weight?: number;
}

export const UNKNOWN_PHONE = '?';

/**
 * The words of a sentence as an engine sees them: runs between spaces with the punctuation around them taken off
 * (inner marks stay: "Smith's", "3.5"), those with a letter or a digit.
 */
export function textTokens(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split(/\s+/u)) {
    const word = piece.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (word) out.push(word);
  }
  return out;
}

/**
 * Phones timed by an engine's own clock (`total` seconds in all) brought to its audio's length: engines end their
 * wave within a few per cent of their last phone; a clock further off than a fifth is taken as it is.
 */
export function fitToAudio(phones: readonly TimedPhone[], total: number, durationSec: number): TimedPhone[] {
  const scale = total > 0 && Math.abs(durationSec / total - 1) < 0.2 ? durationSec / total : 1;
  return phones.map((p) => ({ name: p.name, start: p.start * scale, end: p.end * scale }));
}

const GAP = 1;
const MISMATCH = 1.5;
const GUESS = 0.5;
/**
 * A phone taken by a run of unknown words: less than an insertion, so what lies between known words goes to the run;
 * more than half of one, so a changed phone next to the run is read as changed (1.5) rather than taken by the run with
 * the known phone dropped (1 + this), and more than nothing, so a phone that matches a known one stays with it.
 */
const TAKEN = 0.6;

/** What the alignment matches the spoken phones with: a phone of word `word`, or a run of unknown words from `word`. */
interface Slot {
  name: string | null;
  word: number;
}

/**
 * Each word's interval: the timed phones aligned with the words' phones (an insertion or a deletion costs 1, a
 * substitution 1.5, so an added phone is not read as two changed ones; a guessed phone 0.5; a run of unknown words
 * takes each phone for 0.6), within a band around the diagonal wide enough for the difference in length. A phone of
 * the engine's that matched none of the words' goes to the word before it (else after it); a word matched by no phone
 * is left out (the caller's mapping shares the gap between its neighbours).
 */
export function wordsFromPhones(spoken: readonly TimedPhone[], words: readonly WordPhones[]): WordTiming[] {
  const expected: Slot[] = [];
  words.forEach((w, i) => {
    if (w.phones) w.phones.forEach((name) => expected.push({ name, word: i }));
    else if (words[i - 1]?.phones !== null) expected.push({ name: null, word: i });
  });
  const n = spoken.length;
  const m = expected.length;
  // The slot each spoken phone went to (-1: none).
  const owner = new Int32Array(n).fill(-1);
  if (n && m) {
    const band = Math.abs(n - m) + 32;
    const width = m + 1;
    const cost = new Float64Array((n + 1) * width).fill(Infinity);
    const sub = (i: number, j: number) => {
      const e = expected[j - 1]!.name;
      if (e === null) return TAKEN;
      return e === spoken[i - 1]!.name ? 0 : e === UNKNOWN_PHONE ? GUESS : MISMATCH;
    };
    const down = (j: number) => (expected[j - 1]!.name === null ? TAKEN : GAP);
    for (let j = 0; j <= m; j++) cost[j] = j * GAP;
    for (let i = 1; i <= n; i++) {
      cost[i * width] = i * GAP;
      // Only the band around the diagonal: the cells outside it stay out of reach.
      const centre = Math.round((i * m) / n);
      for (let j = Math.max(1, centre - band); j <= Math.min(m, centre + band); j++)
        cost[i * width + j] = Math.min(
          cost[(i - 1) * width + j - 1]! + sub(i, j),
          cost[(i - 1) * width + j]! + down(j),
          cost[i * width + j - 1]! + GAP,
        );
    }
    let i = n;
    let j = m;
    while (i > 0 && j > 0) {
      const here = cost[i * width + j]!;
      if (here === cost[(i - 1) * width + j - 1]! + sub(i, j)) {
        owner[--i] = --j;
      } else if (here === cost[(i - 1) * width + j]! + down(j)) {
        i--;
        if (expected[j - 1]!.name === null) owner[i] = j - 1;
      } else j--;
    }
    // Phones of the engine's own: the slot before them, else the one after.
    let last = -1;
    for (let k = 0; k < n; k++) {
      if (owner[k]! < 0) owner[k] = last;
      else last = owner[k]!;
    }
    let next = -1;
    for (let k = n - 1; k >= 0; k--) {
      if (owner[k]! < 0) owner[k] = next;
      else next = owner[k]!;
    }
  }
  // Each word's first and last phone (-1: none): a run of unknown words shares its phones.
  const first = new Int32Array(words.length).fill(-1);
  const lastOf = new Int32Array(words.length).fill(-1);
  for (let k = 0; k < n;) {
    const slot = owner[k]!;
    let end = k;
    while (end + 1 < n && owner[end + 1] === slot) end++;
    if (slot >= 0) {
      const w = expected[slot]!.word;
      if (expected[slot]!.name !== null) {
        if (first[w]! < 0) first[w] = k;
        lastOf[w] = end;
      } else {
        let to = w + 1;
        while (to < words.length && words[to]!.phones === null) to++;
        shareRun(spoken, k, end + 1, words, w, to).forEach(([a, b], d) => {
          if (b > a) [first[w + d], lastOf[w + d]] = [a, b - 1];
        });
      }
    }
    k = end + 1;
  }
  const out: WordTiming[] = [];
  words.forEach((w, index) => {
    if (first[index]! < 0) return;
    out.push({ word: w.word, start: spoken[first[index]!]!.start, end: spoken[lastOf[index]!]!.end });
  });
  return out;
}

/**
 * Phones `from`..`to` shared by words `a`..`b` (unknown words, in order) in proportion to their weights; each boundary
 * moved onto the nearest pause (a gap between two phones) within half its neighbours' share, so no word straddles
 * one. The phone ranges, one per word (empty when there were fewer phones than words).
 */
function shareRun(
  spoken: readonly TimedPhone[],
  from: number,
  to: number,
  words: readonly WordPhones[],
  a: number,
  b: number,
): [number, number][] {
  const weights = words.slice(a, b).map((w) => Math.max(1, w.weight ?? 1));
  const total = weights.reduce((x, y) => x + y, 0);
  const count = to - from;
  const gaps: number[] = [];
  for (let k = from + 1; k < to; k++) if (spoken[k]!.start - spoken[k - 1]!.end > 0.01) gaps.push(k);
  // Where the shares end, then each pause given to the boundary nearest it if within half its neighbours' share.
  const cuts: number[] = [];
  const reach: number[] = [];
  let sum = 0;
  for (let d = 0; d < weights.length - 1; d++) {
    sum += weights[d]!;
    cuts.push(from + Math.round((sum / total) * count));
    reach.push(Math.max(1, Math.round(((weights[d]! + weights[d + 1]!) / total) * count * 0.5)));
  }
  const snapped = cuts.map(() => Infinity);
  for (const g of gaps) {
    let d = -1;
    cuts.forEach((c, e) => {
      if (d < 0 || Math.abs(c - g) < Math.abs(cuts[d]! - g)) d = e;
    });
    if (d < 0) break;
    const far = Math.abs(cuts[d]! - g);
    if (far <= reach[d]! && far < Math.abs(snapped[d]! - cuts[d]!)) snapped[d] = g;
  }
  const bounds = [from];
  cuts.forEach((c, d) => bounds.push(Math.min(to, Math.max(bounds.at(-1)!, Number.isFinite(snapped[d]) ? snapped[d]! : c))));
  bounds.push(to);
  return weights.map((_, d) => [bounds[d]!, bounds[d + 1]!]);
}
