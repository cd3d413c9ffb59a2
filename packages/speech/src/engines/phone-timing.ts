/**
 * Word times from an engine's own phone timing (Flite's segments, GnuSpeech's postures): the timed phones the engine
 * spoke are matched, in order, with the phones each word of the text should have (an edit-distance alignment, so a
 * phone the engine added, dropped or changed moves no boundary), and each word spans its first phone's start to its
 * last phone's end. Pauses are phones of no word: they fall between words.
 */
import type { WordTiming } from '../types.ts';

export interface TimedPhone {
  name: string;
  start: number;
  end: number;
}

/** A word of the text and the phones it should be spoken with ('?' stands for a phone not known). */
export interface WordPhones {
  word: string;
  phones: readonly string[];
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
 * Each word's interval: the timed phones aligned with the words' phones (an insertion or a deletion costs 1, a
 * substitution 1.5, so an added phone is not read as two changed ones; a guessed phone 0.5), within a band around the diagonal wide enough for the difference in length. A phone of
 * the engine's that matched none of the words' goes to the word before it (else after it); a word matched by no phone
 * is left out (the caller's mapping shares the gap between its neighbours).
 */
export function wordsFromPhones(spoken: readonly TimedPhone[], words: readonly WordPhones[]): WordTiming[] {
  const expected: { name: string; word: number }[] = [];
  words.forEach((w, i) => w.phones.forEach((name) => expected.push({ name, word: i })));
  const n = spoken.length;
  const m = expected.length;
  const owner = new Int32Array(n).fill(-1);
  if (n && m) {
    const band = Math.abs(n - m) + 32;
    const width = m + 1;
    const cost = new Float64Array((n + 1) * width).fill(Infinity);
    const inBand = (i: number, j: number) => Math.abs(j - Math.round((i * m) / n)) <= band;
    for (let i = 0; i <= n; i++)
      for (let j = 0; j <= m; j++) {
        if (!inBand(i, j) && i && j) continue;
        if (!i) {
          cost[j] = j * GAP;
          continue;
        }
        if (!j) {
          cost[i * width] = i * GAP;
          continue;
        }
        const e = expected[j - 1]!.name;
        const sub = e === spoken[i - 1]!.name ? 0 : e === UNKNOWN_PHONE ? GUESS : MISMATCH;
        cost[i * width + j] = Math.min(
          cost[(i - 1) * width + j - 1]! + sub,
          cost[(i - 1) * width + j]! + GAP,
          cost[i * width + j - 1]! + GAP,
        );
      }
    let i = n;
    let j = m;
    while (i > 0 && j > 0) {
      const here = cost[i * width + j]!;
      const e = expected[j - 1]!.name;
      const sub = e === spoken[i - 1]!.name ? 0 : e === UNKNOWN_PHONE ? GUESS : MISMATCH;
      if (here === cost[(i - 1) * width + j - 1]! + sub) {
        owner[--i] = expected[--j]!.word;
      } else if (here === cost[(i - 1) * width + j]! + GAP) i--;
      else j--;
    }
    // Phones of the engine's own: the word before them, else the one after.
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
  const out: WordTiming[] = [];
  let k = 0;
  words.forEach((w, index) => {
    while (k < n && owner[k]! < index) k++;
    if (k >= n || owner[k] !== index) return;
    const start = spoken[k]!.start;
    while (k + 1 < n && owner[k + 1] === index) k++;
    out.push({ word: w.word, start, end: spoken[k]!.end });
  });
  return out;
}
