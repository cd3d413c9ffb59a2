/**
 * Voice conversion, the DSP step that moves an engine's sentence towards a cloned or designed
 * voice: formant warping (the spectral envelope stretched by `formantScale`), spectral tilt,
 * spectral-envelope matching towards a target LTAS (an equalizer from the difference of the
 * sentence's LTAS and the target, level-aligned, smoothed across bands and bounded), and
 * breathiness (noise shaped by the envelope, above 1 kHz, in voiced frames). All of it in one
 * short-time Fourier pass (the package's real FFT, dsp/fft.ts): half-overlapping √Hann frames, the engine's phases kept.
 * Pitch is set by the engines natively (or Sonic), before this step; a clone's F0 median is then
 * checked per sentence (`correctF0`) and the sentence shifted onto it when an engine missed it.
 */
import type { VoiceProfile } from '../core/types.ts';
import { estimateF0 } from './f0.ts';
import { realFftOf, type RealFft } from './fft.ts';
import { levinson } from './lpc.ts';

/** Third-octave band centres the LTAS target is given on (the same as analysis/ltas.ts). */
const BANDS = [100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600, 2000, 2500, 3150, 4000, 5000, 6300];
/** Largest boost of the matching equalizer and of the tilt, dB: more would lift the engine's noise floor. */
export const EQ_LIMIT_DB = 12;
/** Largest cut, dB: a sample recorded band-limited (a phone, an old tape) has its top bands 40 dB down. */
export const EQ_CUT_DB = 30;
const FLOOR_DB = -119;
/**
 * Breath noise at breathiness 1, relative to the frame's local power (its mean over ±250 Hz, so
 * harmonics and the valleys between them together): at 1 the noise matches the voice there.
 */
const BREATH_LEVEL = 1;

export interface Conversion {
  /** Formant warp factor (> 1 moves formants up). */
  formantScale: number;
  /** Breathiness added to the engine's own, 0..1. */
  breathiness: number;
  /** Target LTAS on BANDS, dB, or undefined. */
  ltasDb?: number[];
  /** dB per octave around 1 kHz. */
  tiltDb: number;
  seed: number;
  /** F0 median each sentence is brought to (Hz), or undefined. */
  f0TargetHz?: number;
}

/**
 * What a profile asks of this step for a voice of the engine (`own` is the library voice's own
 * profile): undefined when nothing, so a plain request is not touched at all. Formant scale is
 * absolute (every engine voice is 1); breathiness counts beyond the voice's own.
 */
export function conversionOf(profile: VoiceProfile, own: VoiceProfile, pitchSemitones = 0): Conversion | undefined {
  const asked = Number.isFinite(profile.formantScale) ? Math.min(1.5, Math.max(0.67, profile.formantScale)) : 1;
  // Formants moved by under 1 % are not heard apart: not worth a pass of linear prediction per frame.
  const formantScale = Math.abs(asked - 1) < 0.01 ? 1 : asked;
  const breathiness = Math.min(1, Math.max(0, (profile.breathiness || 0) - (own.breathiness || 0)));
  const ltasDb =
    Array.isArray(profile.ltasDb) &&
    profile.ltasDb.length === BANDS.length &&
    profile.ltasDb.every((v) => typeof v === 'number' && Number.isFinite(v))
      ? profile.ltasDb
      : undefined;
  const tiltDb = typeof profile.tiltDb === 'number' && Number.isFinite(profile.tiltDb) ? profile.tiltDb : 0;
  const f0 =
    typeof profile.f0MedianHz === 'number' && profile.f0MedianHz >= 50 && profile.f0MedianHz <= 500
      ? profile.f0MedianHz * 2 ** ((Number.isFinite(pitchSemitones) ? pitchSemitones : 0) / 12)
      : undefined;
  if (Math.abs(formantScale - 1) < 1e-3 && breathiness < 1e-3 && !ltasDb && Math.abs(tiltDb) < 1e-3 && !f0) return undefined;
  return {
    ...(f0 ? { f0TargetHz: f0 } : {}),
    formantScale,
    breathiness,
    ...(ltasDb ? { ltasDb } : {}),
    tiltDb: Math.max(-6, Math.min(6, tiltDb)),
    seed: (profile.seed ?? 1) >>> 0,
  };
}

/** Random phases for the breath noise come from a table: 1,024 steps round the circle are plenty for noise. */
const PHASES = 1024;
const COS = Float64Array.from({ length: PHASES }, (_, i) => Math.cos((2 * Math.PI * i) / PHASES));
const SIN = Float64Array.from({ length: PHASES }, (_, i) => Math.sin((2 * Math.PI * i) / PHASES));
/** A window of ones per frame size: the transform of a frame already windowed (an LPC polynomial). */
const onesOf = new Map<number, Float64Array>();
const ones = (n: number): Float64Array => {
  let w = onesOf.get(n);
  if (!w) onesOf.set(n, (w = new Float64Array(n).fill(1)));
  return w;
};

function random(seed: number): () => number {
  let a = seed >>> 0 || 1;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Per-bin gain (linear) from per-band gains (dB), interpolated on a log-frequency axis. */
function bandGainsToBins(gainsDb: number[], bins: number, binHz: number): Float64Array {
  const out = new Float64Array(bins);
  const logs = BANDS.map((c) => Math.log2(c));
  for (let k = 0; k < bins; k++) {
    const f = Math.max(k * binHz, 1);
    const lf = Math.log2(f);
    let g: number;
    if (lf <= logs[0]!) g = gainsDb[0]!;
    else if (lf >= logs[logs.length - 1]!) g = gainsDb[gainsDb.length - 1]!;
    else {
      let i = 1;
      while (logs[i]! < lf) i++;
      const t = (lf - logs[i - 1]!) / (logs[i]! - logs[i - 1]!);
      g = gainsDb[i - 1]! * (1 - t) + gainsDb[i]! * t;
    }
    out[k] = 10 ** (g / 20);
  }
  return out;
}

/**
 * The spectral envelope of one windowed frame by linear prediction, as |A|² on the `half` bins
 * (the envelope is its inverse): autocorrelations of the frame, a lag window, Levinson-Durbin, and
 * |A|² from one transform. Unlike a cepstrally smoothed spectrum it keeps narrow formant peaks at
 * their height, so the warp moves the formants rather than leaving part of them behind. Writes
 * into `out` (reused from frame to frame) and answers false for a frame with no envelope.
 */
function lpcInversePower(
  frame: Float64Array,
  lagWindow: Float64Array,
  half: number,
  fft: RealFft,
  scratch: Float64Array,
  re: Float64Array,
  im: Float64Array,
  r: Float64Array,
  out: Float64Array,
): boolean {
  const order = lagWindow.length - 1;
  const n = frame.length;
  for (let lag = 0; lag <= order; lag++) {
    let acc = 0;
    for (let i = lag; i < n; i++) acc += frame[i]! * frame[i - lag]!;
    r[lag] = acc * lagWindow[lag]!;
  }
  const a = levinson(r, order);
  if (!a) return false;
  scratch.fill(0);
  scratch.set(a);
  fft.forward(scratch, 0, ones(n), re, im);
  for (let k = 0; k < half; k++) out[k] = re[k]! ** 2 + im[k]! ** 2 + 1e-20;
  return true;
}

/** The warp's per-bin gain is bounded to ±20 dB: as a ratio of powers, e^±4.6. */
const WARP_MAX = Math.exp(4.6);
const WARP_MIN = 1 / WARP_MAX;
/** |A|² past the top bin: the envelope 2 nepers (17 dB) under its last value. */
const FALL_AWAY = Math.exp(4);

export function convertVoice(samples: Float32Array, sampleRate: number, c: Conversion): Float32Array {
  // About 32 to 46 ms frames: long enough for a low voice's harmonics, short enough for formant moves.
  const n = sampleRate > 32_000 ? 2048 : sampleRate > 17_000 ? 1024 : 512;
  // Half-overlapping √Hann frames: their squares sum to one, and each sample is in two frames only.
  const hop = n / 2;
  const half = n / 2 + 1;
  if (samples.length === 0) return samples;
  const fft = realFftOf(n);
  const win = new Float64Array(n);
  for (let i = 0; i < n; i++) win[i] = Math.sqrt(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
  // The synthesis window with the inverse's 1/n folded in (the FFT's inverse is unscaled).
  const synthesisWin = win.map((w) => w / n);
  const binHz = sampleRate / n;
  const padded = new Float32Array(samples.length + 2 * n);
  padded.set(samples, n);
  const frames = Math.ceil((samples.length + n) / hop);
  // Every frame's half spectrum in two buffers (real and imaginary parts): two allocations rather than two per frame.
  const storeRe = new Float64Array(frames * half);
  const storeIm = new Float64Array(frames * half);
  const energy = new Float64Array(frames);
  const needEnv = c.formantScale !== 1;
  // Two poles per kHz of bandwidth and a few for the glottal source and the radiation, and a
  // Gaussian lag window of 40 Hz that widens the poles a little, so no harmonic is taken for a formant.
  const order = Math.round(sampleRate / 1000) + 4;
  const lagWindow = new Float64Array(order + 1).map((_, i) => Math.exp(-0.5 * ((i * 2 * Math.PI * 40) / sampleRate) ** 2));
  const scratch = new Float64Array(n);
  const frame = new Float64Array(n);
  const lags = new Float64Array(order + 1);
  const inv = new Float64Array(half);
  const envRe = new Float64Array(half);
  const envIm = new Float64Array(half);

  const tilt = new Float64Array(half);
  for (let k = 0; k < half; k++) {
    const f = Math.max(k * binHz, 50);
    const g = Math.max(-EQ_LIMIT_DB, Math.min(EQ_LIMIT_DB, c.tiltDb * Math.log2(f / 1000)));
    tilt[k] = 10 ** (g / 20);
  }

  // Pass 1: analysis, formant warp and tilt.
  for (let f = 0; f < frames; f++) {
    const o = f * hop;
    fft.forward(padded, o, win, storeRe, storeIm, f * half);
    const sr = storeRe.subarray(f * half, (f + 1) * half);
    const si = storeIm.subarray(f * half, (f + 1) * half);
    let e = 0;
    for (let k = 0; k < half; k++) e += sr[k]! ** 2 + si[k]! ** 2;
    energy[f] = e;
    if (needEnv && e > 1e-12) for (let i = 0; i < n; i++) frame[i] = padded[o + i]! * win[i]!;
    if (needEnv && e > 1e-12 && lpcInversePower(frame, lagWindow, half, fft, scratch, envRe, envIm, lags, inv)) {
      // New envelope at k is the old one at k / α: the gain is |A(k)| / |A(k / α)|, bounded to
      // ±20 dB, with |A|² interpolated between bins (the envelope is smooth at this resolution).
      // Past the top bin (α < 1) the old envelope is taken as falling away, 17 dB under its last value.
      for (let k = 0; k < half; k++) {
        const src = k / c.formantScale;
        const i0 = Math.floor(src);
        let at: number;
        if (i0 >= half - 1) at = inv[half - 1]! * FALL_AWAY;
        else {
          const t = src - i0;
          at = inv[i0]! * (1 - t) + inv[i0 + 1]! * t;
        }
        const ratio = inv[k]! / at;
        const g = Math.sqrt(ratio > WARP_MAX ? WARP_MAX : ratio < WARP_MIN ? WARP_MIN : ratio);
        sr[k]! *= g;
        si[k]! *= g;
      }
    }
    if (c.tiltDb)
      for (let k = 0; k < half; k++) {
        sr[k]! *= tilt[k]!;
        si[k]! *= tilt[k]!;
      }
  }

  let maxEnergy = 0;
  for (const e of energy) maxEnergy = Math.max(maxEnergy, e);
  // Frames within 40 dB of the loudest are the sentence's sound; the rest is silence between words.
  const active = (f: number): boolean => energy[f]! > maxEnergy * 1e-4 && maxEnergy > 0;

  // The matching equalizer, from this sentence's LTAS after warp and tilt.
  let eq: Float64Array | undefined;
  if (c.ltasDb) {
    const power = new Float64Array(half);
    let count = 0;
    for (let f = 0; f < frames; f++) {
      if (!active(f)) continue;
      for (let k = 0, b = f * half; k < half; k++, b++) power[k] = power[k]! + storeRe[b]! ** 2 + storeIm[b]! ** 2;
      count++;
    }
    if (count) {
      const own = BANDS.map((centre) => {
        const lo = centre * 2 ** (-1 / 6);
        const hi = centre * 2 ** (1 / 6);
        if (hi > sampleRate / 2) return NaN;
        let sum = 0;
        let m = 0;
        for (let k = Math.max(1, Math.ceil(lo / binHz)); k <= Math.min(half - 1, Math.floor(hi / binHz)); k++) {
          sum += power[k]!;
          m++;
        }
        if (!m) sum = power[Math.min(half - 1, Math.round(centre / binHz))]!;
        return 10 * Math.log10((m ? sum / m : sum) / count + 1e-30);
      });
      const valid = BANDS.map((_, i) => Number.isFinite(own[i]!) && own[i]! > -200 && c.ltasDb![i]! > FLOOR_DB);
      const diffs = BANDS.map((_, i) => (valid[i] ? c.ltasDb![i]! - own[i]! : 0));
      const used = diffs.filter((_, i) => valid[i]);
      if (used.length >= 3) {
        const offset = used.reduce((a, v) => a + v, 0) / used.length;
        const raw = diffs.map((d, i) => (valid[i] ? Math.max(-EQ_CUT_DB, Math.min(EQ_LIMIT_DB, d - offset)) : 0));
        const smooth = raw.map((g, i) => 0.25 * (raw[i - 1] ?? g) + 0.5 * g + 0.25 * (raw[i + 1] ?? g));
        eq = bandGainsToBins(smooth, half, binHz);
      }
    }
  }

  // Pass 2: equalizer, breath noise, synthesis.
  const rnd = random(c.seed ^ samples.length);
  const out = new Float64Array(padded.length);
  const whisper = Math.max(0, Math.min(0.9, (c.breathiness - 0.5) * 2));
  const breathGain = new Float64Array(half);
  for (let k = 0; k < half; k++) {
    const f = k * binHz;
    // Aspiration noise: little under 300 Hz (the voicing stays), full from 1.2 kHz (a raised-cosine ramp).
    breathGain[k] = f <= 300 ? 0 : f >= 1200 ? 1 : 0.5 - 0.5 * Math.cos((Math.PI * (f - 300)) / 900);
  }
  const cumulative = new Float64Array(half + 1);
  const spread = Math.max(1, Math.round(250 / binHz));
  for (let f = 0; f < frames; f++) {
    const sr = storeRe.subarray(f * half, (f + 1) * half);
    const si = storeIm.subarray(f * half, (f + 1) * half);
    if (eq)
      for (let k = 0; k < half; k++) {
        sr[k]! *= eq[k]!;
        si[k]! *= eq[k]!;
      }
    if (c.breathiness > 1e-3 && active(f)) {
      // Voiced frames only: loud and low-pitched (most energy under 1 kHz).
      let low = 0;
      let all = 0;
      for (let k = 0; k < half; k++) {
        const p = sr[k]! ** 2 + si[k]! ** 2;
        cumulative[k + 1] = cumulative[k]! + p;
        all += p;
        if (k * binHz < 1000) low += p;
      }
      const voiced = all > 0 && low / all > 0.5 ? 1 : 0;
      if (voiced) {
        const keep = 1 - whisper;
        for (let k = 0; k < half; k++) {
          const a = Math.max(0, k - spread);
          const b = Math.min(half - 1, k + spread);
          const local = (cumulative[b + 1]! - cumulative[a]!) / (b - a + 1);
          const amp = c.breathiness * BREATH_LEVEL * (1 + whisper) * Math.sqrt(local) * breathGain[k]!;
          const ph = (rnd() * PHASES) | 0;
          sr[k] = sr[k]! * keep + amp * COS[ph]!;
          si[k] = si[k]! * keep + amp * SIN[ph]!;
        }
      }
    }
    // A real signal's DC and Nyquist bins are real; the breath noise's phases are dropped there.
    si[0] = 0;
    si[half - 1] = 0;
    fft.inverseAdd(sr, si, synthesisWin, out, f * hop);
  }
  return Float32Array.from(out.subarray(n, n + samples.length));
}

/**
 * F0 error (semitones) under which a sentence is left as the engine made it. A sentence's own
 * intonation moves its median by half a semitone or so either way around the voice's: correcting
 * that would cost a pitch shift on most sentences for nothing heard, and still leave each one
 * well within the semitone a clone must keep.
 */
const F0_TOLERANCE_ST = 0.75;
/** The largest correction: an engine missing its target by more is not fixed by a shift. */
const F0_MAX_SHIFT_ST = 6;

/**
 * The semitones that bring a sentence's F0 median onto `targetHz`, or 0 when it is within
 * F0_TOLERANCE_ST, or has too little voicing (under 0.2 s) to tell.
 */
export function f0Correction(samples: Float32Array, sampleRate: number, targetHz: number): number {
  // A 40 ms hop: a sentence's median needs no more, and the check runs on every sentence of a clone.
  const f0 = estimateF0(samples, sampleRate, { minHz: 60, maxHz: 500, hopSec: 0.04, targetRate: 4000, voicingThreshold: 0.5 });
  if (f0.track.length < 5 || !(f0.median > 0)) return 0;
  const st = 12 * Math.log2(targetHz / f0.median);
  if (Math.abs(st) < F0_TOLERANCE_ST) return 0;
  return Math.max(-F0_MAX_SHIFT_ST, Math.min(F0_MAX_SHIFT_ST, st));
}
