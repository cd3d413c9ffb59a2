/** Checks shared by the timings tests: the shape of an alignment, and the pauses in a file's audio. */
import { expect } from 'vitest';
import type { Timings } from '../../src/pipeline/timings.ts';

export { pauses } from './pauses.ts';

/** Every word inside the audio, in order, none overlapping the next; every character's interval ordered. */
export function expectWellFormed(t: Timings, text: string): void {
  expect(t.alignment.characters.join('')).toBe(text);
  expect(t.alignment.character_start_times_seconds).toHaveLength(t.alignment.characters.length);
  expect(t.alignment.character_end_times_seconds).toHaveLength(t.alignment.characters.length);
  let last = 0;
  for (const w of t.words) {
    expect(w.start, w.word).toBeGreaterThanOrEqual(last);
    expect(w.end, w.word).toBeGreaterThanOrEqual(w.start);
    expect(w.end, w.word).toBeLessThanOrEqual(t.durationSec + 1e-3);
    expect(t.alignment.characters.slice(w.charStart, w.charEnd).join('')).toBe(w.word);
    last = w.end;
  }
  for (const a of [t.alignment, t.normalizedAlignment]) {
    let prev = 0;
    a.characters.forEach((c, i) => {
      const s = a.character_start_times_seconds[i]!;
      const e = a.character_end_times_seconds[i]!;
      expect(s, `${c} at ${i}`).toBeGreaterThanOrEqual(prev - 1e-9);
      expect(e).toBeGreaterThanOrEqual(s);
      expect(e).toBeLessThanOrEqual(t.durationSec + 1e-3);
      prev = s;
    });
  }
}
