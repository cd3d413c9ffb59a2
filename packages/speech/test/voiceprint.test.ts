import { describe, expect, it } from 'vitest';
import { decodeToPcm, measurePcm, voiceprintOfFile } from '../src/analysis/index.ts';
import { voiceprint, voiceprintDistance } from '../src/analysis/voiceprint.ts';
import { fixture } from './support/fixtures.ts';

const RATE = 16_000;
const printOf = async (files: string[]) => {
  const parts = await Promise.all(files.map((f) => decodeToPcm(fixture(f), RATE)));
  const joined = new Float32Array(parts.reduce((n, p) => n + p.samples.length, 0));
  let o = 0;
  for (const p of parts) {
    joined.set(p.samples, o);
    o += p.samples.length;
  }
  return measurePcm(joined, RATE).voiceprint!;
};

/**
 * The voiceprint the protected-voice check compares: other sentences of one speaker (even resampled to 8 kHz) lie
 * closer than another speaker; too little speech gives an empty print, which matches nothing. (The threshold and its
 * rates are measured by bench/voiceprint.ts, not here.)
 */
describe('voiceprint', () => {
  it('puts two recordings of one speaker closer than two speakers, across 22 kHz and 8 kHz', async () => {
    const ljA = await printOf(['LJ001-0001.wav', 'LJ001-0002.wav']);
    const ljB = await printOf(['LJ001-0004.wav', 'LJ001-0005.wav']);
    const lj8k = await voiceprintOfFile(fixture('LJ-watermarked-v1.wav'));
    const jfk = await voiceprintOfFile(fixture('jfk.wav'));
    expect(ljA).toHaveLength(33);
    const same = voiceprintDistance(ljA, ljB);
    const channel = voiceprintDistance(ljA, lj8k);
    const other = Math.min(voiceprintDistance(ljA, jfk), voiceprintDistance(ljB, jfk), voiceprintDistance(lj8k, jfk));
    expect(same).toBeLessThan(other / 2);
    expect(channel).toBeLessThan(other / 2);
    expect(voiceprintDistance(ljA, ljA)).toBe(0);
  });

  it('gives nothing to compare for too little speech, and an empty print matches nothing', () => {
    expect(voiceprint(new Float32Array(RATE / 4), 120)).toEqual([]);
    expect(voiceprintDistance([], [])).toBe(Infinity);
    expect(voiceprintDistance([1, 2], [1, 2])).toBe(Infinity);
  });
});
