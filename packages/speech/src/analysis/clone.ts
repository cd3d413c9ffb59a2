/**
 * A clone's profile: the sample's measures reproduced on a base voice. Pitch is mapped in the log
 * domain (the sample's median F0, its range in semitones), the rate follows the sample's syllable
 * rate, formants are warped by the ratio of the sample's to the base voice's, the spectrum is
 * matched to the sample's LTAS by the DSP stage (dsp/convert.ts), and a breathy sample (low
 * harmonics-to-noise ratio) gets breathiness.
 */
import type { VoiceInfo, VoiceProfile } from '../core/types.ts';
import { LTAS_BANDS } from './ltas.ts';
import type { VoiceMeasures } from './measure.ts';

/** Typical medians of the same LPC measure on adult male and female speech (Peterson & Barney averages). */
const REFERENCE_FORMANTS: Record<'male' | 'female' | 'neutral' | 'child', [number, number, number]> = {
  male: [500, 1500, 2500],
  female: [580, 1750, 2900],
  neutral: [540, 1620, 2700],
  child: [680, 2000, 3300],
};

/** Syllables per second of the engines at rate 1, by the same count (measured on Flite slt: 3.76). */
const BASE_SYLLABLE_RATE = 3.8;

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** The base voice's own formants as the analysis would measure them. */
function baseFormants(base: VoiceInfo): [number, number, number] {
  if (base.age === 'child' || base.age === 'baby') return REFERENCE_FORMANTS.child;
  return REFERENCE_FORMANTS[base.gender];
}

/**
 * Flite's F0 target (mean and standard deviation, Hz) for a wanted median and p10–p90 range, as
 * measured on its output (slt, three sentences, means 170–270 Hz, deviations 5–40 % of the mean,
 * F0 read as the analysis reads it): the spread of its contours (p10 to p90) comes out at about
 * 0.104 semitones per Hz of standard deviation, and their median falls under the mean by about
 * 5.7e-5 · mean · deviation semitones (the contours are skewed upwards, the more so the higher and
 * wider). Hitting the median here spares the per-sentence F0 correction (a pitch shift) its work.
 */
function fliteTarget(median: number, semitones: number): { pitchHz: number; range: number } {
  let sd = semitones / 0.104;
  let mean = median;
  for (let i = 0; i < 4; i++) {
    sd = Math.min(semitones / 0.104, 0.4 * mean);
    mean = median * 2 ** ((5.7e-5 * mean * sd) / 12);
  }
  return { pitchHz: mean, range: sd };
}

/**
 * The base voice's pitch settings for a wanted median and range: Flite by its measured response,
 * the others by their 0–100 range scale, where 50 is their default of about 6 semitones.
 */
function pitchFor(base: VoiceInfo, median: number, semitones: number): { pitchHz: number; range: number } {
  if (base.engine === 'flite') return fliteTarget(median, semitones);
  return { pitchHz: median, range: clamp((50 * semitones) / 6, 10, 100) };
}

/** A deterministic seed from the measures, so one sample always gives the same profile. */
function seedOf(m: Pick<VoiceMeasures, 'f0MedianHz' | 'speakingRate' | 'formantsHz' | 'ltas'>): number {
  let h = 2166136261;
  for (const v of [m.f0MedianHz, m.speakingRate, ...m.formantsHz, ...m.ltas]) {
    h ^= Math.round(v * 100) | 0;
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h >>> 0;
}

/** A finite number from stored measures, or 0 (which every rule below reads as "not measured"). */
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export function cloneProfile(stored: VoiceMeasures, base: VoiceInfo): VoiceProfile {
  // Measures come back from storage as JSON: anything missing or not a finite number counts as unmeasured.
  const formantsIn = Array.isArray(stored.formantsHz) ? stored.formantsHz : [];
  const ltasIn = Array.isArray(stored.ltas) ? stored.ltas.map(num) : [];
  const measures = {
    f0MedianHz: num(stored.f0MedianHz),
    f0RangeSemitones: num(stored.f0RangeSemitones),
    speakingRate: num(stored.speakingRate),
    formantsHz: [0, 1, 2].map((i) => num(formantsIn[i])) as [number, number, number],
    hnrDb: typeof stored.hnrDb === 'number' && Number.isFinite(stored.hnrDb) ? stored.hnrDb : 20,
    ltas: ltasIn.length === LTAS_BANDS.length && ltasIn.every((v, i) => v === stored.ltas[i]) ? ltasIn : [],
  };
  const own = base.profile;
  const median = measures.f0MedianHz > 0 ? clamp(measures.f0MedianHz, 50, 500) : own.pitchHz;
  const pitch =
    measures.f0MedianHz > 0 && measures.f0RangeSemitones > 0
      ? pitchFor(base, median, Math.min(measures.f0RangeSemitones, 24))
      : { pitchHz: median, range: own.range };
  const ref = baseFormants(base);
  const ratios = measures.formantsHz.map((f, i) => (f > 0 ? f / ref[i]! : 1));
  const formantScale = clamp(Math.exp(ratios.reduce((a, r) => a + Math.log(r), 0) / ratios.length), 0.85, 1.18);
  const rate = measures.speakingRate > 0 ? own.rate * clamp(measures.speakingRate / BASE_SYLLABLE_RATE, 0.75, 1.33) : own.rate;
  // A clean modal voice has an HNR over 15 dB; breathy and rough voices fall well below.
  const breathiness = clamp((12 - measures.hnrDb) / 20, 0, 0.5);
  return {
    pitchHz: Math.round(clamp(pitch.pitchHz, 50, 500) * 10) / 10,
    range: Math.round(pitch.range * 10) / 10,
    rate: Math.round(rate * 1000) / 1000,
    formantScale: Math.round(formantScale * 1000) / 1000,
    breathiness: Math.round(Math.max(own.breathiness, breathiness) * 1000) / 1000,
    gainDb: 0,
    ...(own.blend ? { blend: own.blend } : {}),
    ...(measures.ltas.length ? { ltasDb: measures.ltas.map((v) => Math.round(v * 10) / 10) } : {}),
    seed: seedOf(measures),
    ...(measures.f0MedianHz > 0 ? { f0MedianHz: Math.round(median * 10) / 10 } : {}),
  };
}
