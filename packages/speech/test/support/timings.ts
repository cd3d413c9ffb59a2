/** Checks shared by the timings tests: the shape of an alignment, and the pauses in a file's audio. */
import { expect } from 'vitest';
import type { Timings } from '../../src/pipeline/timings.ts';

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

/** Silences longer than `minSec` (frames of 10 ms under −40 dB of the loudest) strictly inside the speech. */
export function pauses(samples: Float32Array, rate: number, minSec: number): { start: number; end: number }[] {
  const frame = Math.round(rate * 0.01);
  const rms: number[] = [];
  for (let i = 0; i + frame <= samples.length; i += frame) {
    let sum = 0;
    for (let j = i; j < i + frame; j++) sum += samples[j]! ** 2;
    rms.push(Math.sqrt(sum / frame));
  }
  const floor = Math.max(...rms) * 0.01;
  const first = rms.findIndex((r) => r >= floor);
  const lastLoud = rms.length - 1 - [...rms].reverse().findIndex((r) => r >= floor);
  const out: { start: number; end: number }[] = [];
  let from = -1;
  for (let f = first; f <= lastLoud; f++) {
    if (rms[f]! < floor) {
      if (from < 0) from = f;
    } else if (from >= 0) {
      if ((f - from) * 0.01 > minSec) out.push({ start: from * 0.01, end: f * 0.01 });
      from = -1;
    }
  }
  return out;
}
