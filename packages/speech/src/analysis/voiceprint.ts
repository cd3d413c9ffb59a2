/**
 * A voiceprint: what of a recording says whose voice it is, without a neural speaker model (none installs from npm
 * without a download at run time). Mel-frequency cepstra of the speech (the vocal tract's shape: formants, their
 * bandwidths, the spectral tilt of the source) summarised by their mean and spread, with the median F0. Two
 * recordings of one speaker lie close; the distance between voiceprints is what the protected-voice check compares
 * with its threshold (set from measured false accepts and rejects: bench/voiceprint.ts).
 */
import { realFftOf } from '../dsp/fft.ts';
import { hann } from './ltas.ts';

/** The rate voiceprints are taken at (the analysis rate): the cepstra of other rates would not compare. */
export const VOICEPRINT_RATE = 16_000;
const FRAME = 512;
const HOP = 160;
const MELS = 26;
/** Cepstra c1..c(CEPSTRA): c0 (level) says nothing of the speaker. */
const CEPSTRA = 16;
const LOW_HZ = 100;
/** Under 4 kHz only: an 8 kHz recording (a phone line, a narrow-band voice) and a wide-band one compare. */
const HIGH_HZ = 3_900;
/** At most this many frames are read (spread over the speech): the summary settles well before. */
const MAX_FRAMES = 3_000;

const mel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
const hzOfMel = (m: number) => 700 * (10 ** (m / 2595) - 1);

let filters: { start: number; weights: Float64Array }[] | null = null;
function melFilters(): { start: number; weights: Float64Array }[] {
  if (filters) return filters;
  const lo = mel(LOW_HZ);
  const hi = mel(HIGH_HZ);
  const edges = Array.from({ length: MELS + 2 }, (_, i) => hzOfMel(lo + ((hi - lo) * i) / (MELS + 1)));
  const binHz = VOICEPRINT_RATE / FRAME;
  filters = [];
  for (let m = 1; m <= MELS; m++) {
    const [a, c, b] = [edges[m - 1]!, edges[m]!, edges[m + 1]!];
    const start = Math.ceil(a / binHz);
    const end = Math.floor(b / binHz);
    const weights = new Float64Array(Math.max(0, end - start + 1));
    for (let k = start; k <= end; k++) {
      const f = k * binHz;
      weights[k - start] = f <= c ? (f - a) / (c - a) : (b - f) / (b - c);
    }
    filters.push({ start, weights });
  }
  return filters;
}

/**
 * The voiceprint of speech at 16 kHz (silence trimmed), with its median F0 (0 when unvoiced): the mean and the
 * standard deviation of each cepstrum over the loud frames, then log2 of the F0. Empty when there is too little speech.
 */
export function voiceprint(speech: Float32Array, f0MedianHz: number): number[] {
  const fft = realFftOf(FRAME);
  const win = hann(FRAME);
  const frame = new Float64Array(FRAME);
  const re = new Float64Array(FRAME / 2 + 1);
  const im = new Float64Array(FRAME / 2 + 1);
  const bank = melFilters();
  const total = Math.floor((speech.length - FRAME) / HOP) + 1;
  if (total < 50) return [];
  const step = Math.max(1, Math.ceil(total / MAX_FRAMES));
  const rows: { energy: number; c: Float64Array }[] = [];
  const logMel = new Float64Array(MELS);
  for (let f = 0; f < total; f += step) {
    const o = f * HOP;
    let energy = 0;
    for (let i = 0; i < FRAME; i++) {
      // Pre-emphasis, as cepstral front ends do: the source's tilt would otherwise fill the low cepstra.
      const x = speech[o + i]! - 0.97 * (i > 0 || o > 0 ? speech[o + i - 1]! : 0);
      frame[i] = x;
      energy += x * x;
    }
    fft.forward(frame, 0, win, re, im);
    for (let m = 0; m < MELS; m++) {
      const { start, weights } = bank[m]!;
      let s = 0;
      for (let k = 0; k < weights.length; k++) s += weights[k]! * (re[start + k]! ** 2 + im[start + k]! ** 2);
      logMel[m] = Math.log(s + 1e-10);
    }
    const c = new Float64Array(CEPSTRA);
    for (let n = 1; n <= CEPSTRA; n++) {
      let s = 0;
      for (let m = 0; m < MELS; m++) s += logMel[m]! * Math.cos((Math.PI * n * (m + 0.5)) / MELS);
      c[n - 1] = s * Math.sqrt(2 / MELS);
    }
    rows.push({ energy, c });
  }
  // The loud frames only (within 30 dB of the 90th percentile): what the VAD left of pauses and breaths says little.
  const sorted = rows.map((r) => r.energy).sort((a, b) => a - b);
  const gate = sorted[Math.floor(sorted.length * 0.9)]! * 1e-3;
  const kept = rows.filter((r) => r.energy > gate);
  if (kept.length < 30) return [];
  const mean = new Float64Array(CEPSTRA);
  const sq = new Float64Array(CEPSTRA);
  for (const { c } of kept)
    for (let n = 0; n < CEPSTRA; n++) {
      mean[n] = mean[n]! + c[n]!;
      sq[n] = sq[n]! + c[n]! ** 2;
    }
  const out: number[] = [];
  for (let n = 0; n < CEPSTRA; n++) out.push(mean[n]! / kept.length);
  for (let n = 0; n < CEPSTRA; n++) out.push(Math.sqrt(Math.max(0, sq[n]! / kept.length - out[n]! ** 2)));
  out.push(f0MedianHz > 0 ? Math.log2(f0MedianHz) : 0);
  return out.map((v) => Math.round(v * 1e4) / 1e4);
}

/**
 * Weights of the voiceprint's parts in the distance: the cepstral means carry most of who speaks; their spreads
 * (how the voice moves) and the pitch (an octave = 1) some.
 */
const W_MEAN = 1;
const W_SPREAD = 0.5;
const W_PITCH = 4;

/**
 * The distance between two voiceprints (0: the same); Infinity when either is empty or they differ in shape (taken
 * by another version), so nothing is matched on a voiceprint that says nothing.
 */
export function voiceprintDistance(a: readonly number[], b: readonly number[]): number {
  if (!a.length || a.length !== b.length || a.length !== 2 * CEPSTRA + 1) return Infinity;
  let s = 0;
  for (let n = 0; n < CEPSTRA; n++) s += W_MEAN * (a[n]! - b[n]!) ** 2;
  for (let n = CEPSTRA; n < 2 * CEPSTRA; n++) s += W_SPREAD * (a[n]! - b[n]!) ** 2;
  const pa = a[2 * CEPSTRA]!;
  const pb = b[2 * CEPSTRA]!;
  if (pa > 0 && pb > 0) s += W_PITCH * (pa - pb) ** 2;
  return Math.sqrt(s);
}
