/**
 * STOI (analysis/stoi.ts) on a real recording: the same speech scores 1, noise lowers the score the
 * more the louder it is, and speech against different speech scores far under either, so the bench's
 * "intelligibility unchanged" reading of the watermark could fail.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stoi } from '../src/analysis/stoi.ts';
import { decodeWav } from '../src/dsp/pcm.ts';
import { resamplePolyphase } from '../src/formats/polyphase.ts';
import { fixture } from './support/fixtures.ts';

const load = (name: string) => decodeWav(readFileSync(fixture(name)));

/** A repeatable white noise at `snrDb` under `x`'s power. */
function withNoise(x: Float32Array, snrDb: number, seed = 7): Float32Array {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
  let p = 0;
  for (const v of x) p += v * v;
  const scale = Math.sqrt((p / x.length / 10 ** (snrDb / 10)) * 3);
  return Float32Array.from(x, (v) => v + scale * rand());
}

describe('stoi', () => {
  const a = load('LJ001-0001.wav');
  const b = load('LJ001-0002.wav');

  it('scores a signal against itself 1, and a gain change too', () => {
    expect(stoi(a.samples, a.samples, a.sampleRate)).toBeCloseTo(1, 6);
    expect(
      stoi(
        a.samples,
        Float32Array.from(a.samples, (v) => v * 0.3),
        a.sampleRate,
      ),
    ).toBeCloseTo(1, 6);
  });

  it('falls as noise rises, and is low for other speech', () => {
    const scores = [20, 5, -5].map((snr) => stoi(a.samples, withNoise(a.samples, snr), a.sampleRate));
    expect(scores[0]).toBeLessThan(1);
    expect(scores[0]).toBeGreaterThan(scores[1]!);
    expect(scores[1]).toBeGreaterThan(scores[2]!);
    expect(scores[2]).toBeLessThan(0.8);
    const n = Math.min(a.samples.length, b.samples.length);
    expect(stoi(a.samples.subarray(0, n), b.samples.subarray(0, n), a.sampleRate)).toBeLessThan(0.3);
  });

  it('compares signals at different rates, and gives NaN for too little sound', () => {
    const at16 = resamplePolyphase(a.samples, a.sampleRate, 16_000);
    expect(stoi(a.samples, at16, a.sampleRate, 16_000)).toBeGreaterThan(0.99);
    expect(stoi(new Float32Array(2000), new Float32Array(2000), a.sampleRate)).toBeNaN();
  });
});
