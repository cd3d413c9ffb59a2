/**
 * Long-term average spectrum on third-octave bands, by Welch's method (dsp/fft.ts), and the distance
 * between two of them. The same bands serve the analysis of a sample, the judgment of a clone and
 * the equalizer that moves a voice towards a sample (dsp/convert.ts).
 */
import { realFftOf } from '../dsp/fft.ts';

/** Third-octave band centres, 100 Hz to 6.3 kHz: all under the 8 kHz Nyquist of 16 kHz audio. */
export const LTAS_BANDS: readonly number[] = [
  100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600, 2000, 2500, 3150, 4000, 5000, 6300,
];
/** Band edges: a sixth of an octave either side of the centre. */
export const bandEdges = (centre: number): [number, number] => [centre * 2 ** (-1 / 6), centre * 2 ** (1 / 6)];
/** Floor of any band level, so an empty band (an 8 kHz voice's top bands) stays a finite number. */
export const LTAS_FLOOR_DB = -120;

const windows = new Map<number, Float64Array>();
export function hann(size: number): Float64Array {
  let w = windows.get(size);
  if (!w) {
    w = new Float64Array(size);
    for (let i = 0; i < size; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size);
    windows.set(size, w);
  }
  return w;
}

/** Band levels (mean power density, dB) from a power spectrum of `size/2 + 1` bins at `sampleRate`. */
export function bandLevels(power: Float64Array, size: number, sampleRate: number): number[] {
  const binHz = sampleRate / size;
  return LTAS_BANDS.map((c) => {
    const [lo, hi] = bandEdges(c);
    if (hi > sampleRate / 2) return LTAS_FLOOR_DB;
    let sum = 0;
    let n = 0;
    const a = Math.max(1, Math.ceil(lo / binHz));
    const b = Math.min(power.length - 1, Math.floor(hi / binHz));
    for (let k = a; k <= b; k++) {
      sum += power[k]!;
      n++;
    }
    // A band narrower than a bin takes the nearest bin.
    if (n === 0) sum = power[Math.min(power.length - 1, Math.round(c / binHz))]!;
    return Math.max(LTAS_FLOOR_DB, 10 * Math.log10((n ? sum / n : sum) + 1e-30));
  });
}

/**
 * LTAS of `samples` (speech only: trim silence first), dB per band: Hann frames of `size`, half
 * overlapping, or spread evenly over a long signal so that at most `maxFrames` are averaged.
 */
export function ltas(samples: Float32Array, sampleRate: number, size = 1024, maxFrames = Infinity): number[] {
  const fft = realFftOf(size);
  const win = hann(size);
  const re = new Float64Array(size / 2 + 1);
  const im = new Float64Array(size / 2 + 1);
  const power = new Float64Array(size / 2 + 1);
  const hop = Math.max(size / 2, Math.floor((samples.length - size) / maxFrames));
  let frames = 0;
  for (let o = 0; o + size <= samples.length; o += hop) {
    fft.forward(samples, o, win, re, im);
    for (let k = 0; k <= size / 2; k++) power[k] = power[k]! + re[k]! ** 2 + im[k]! ** 2;
    frames++;
  }
  if (frames === 0) return LTAS_BANDS.map(() => LTAS_FLOOR_DB);
  for (let k = 0; k < power.length; k++) power[k]! /= frames * size;
  return bandLevels(power, size, sampleRate);
}

/**
 * Distance between two spectra: the RMS of their per-band difference in dB after level alignment
 * (the mean difference removed), over bands both have (above the floor). 0 = the same shape.
 */
export function ltasDistance(a: readonly number[], b: readonly number[]): number {
  const d: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++)
    if (a[i]! > LTAS_FLOOR_DB + 1 && b[i]! > LTAS_FLOOR_DB + 1) d.push(a[i]! - b[i]!);
  if (!d.length) return 0;
  const mean = d.reduce((s, v) => s + v, 0) / d.length;
  return Math.sqrt(d.reduce((s, v) => s + (v - mean) ** 2, 0) / d.length);
}
