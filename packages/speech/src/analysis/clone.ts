/**
 * A clone's profile: the sample's measures reproduced on a base voice. Pitch is mapped in the log
 * domain (the sample's median F0, its range in semitones), the rate follows the sample's syllable
 * rate, formants are warped by the ratio of the sample's to the base voice's, the spectrum is
 * matched to the sample's LTAS by the DSP stage (dsp/convert.ts), and a breathy sample (low
 * harmonics-to-noise ratio) gets breathiness.
 */
import type { VoiceInfo, VoiceProfile } from '../types.ts';
import { LTAS_BANDS } from './ltas.ts';
import type { VoiceMeasures } from './measure.ts';

/** Typical medians of the same LPC measure on adult male and female speech (Peterson & Barney averages). */
const REFERENCE_FORMANTS: Record<'male' | 'female' | 'neutral' | 'child', [number, number, number]> = {
  male: [500, 1500, 2500],
  female: [580, 1750, 2900],
  neutral: [540, 1620, 2700],
  child: [680, 2000, 3300],
};

/** Syllables per second of the engines at rate 1 (about 175 words a minute). */
const BASE_SYLLABLE_RATE = 4.2;

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** The base voice's own formants as the analysis would measure them. */
function baseFormants(base: VoiceInfo): [number, number, number] {
  if (base.age === 'child' || base.age === 'baby') return REFERENCE_FORMANTS.child;
  return REFERENCE_FORMANTS[base.gender];
}

/**
 * F0 spread of a profile as its engine reads `range`: Flite takes a standard deviation in Hz; the
 * others a 0–100 scale where 50 is their default of about 6 semitones from the 10th to the 90th
 * percentile.
 */
function rangeFor(base: VoiceInfo, pitchHz: number, semitones: number): number {
  if (base.engine === 'flite') {
    // p10..p90 of a normal distribution spans 2.563 σ.
    const sigma = semitones / 2.563;
    return Math.round(pitchHz * (2 ** (sigma / 12) - 1) * 10) / 10;
  }
  return Math.round(clamp((50 * semitones) / 6, 10, 100));
}

/** A deterministic seed from the measures, so one sample always gives the same profile. */
function seedOf(m: VoiceMeasures): number {
  let h = 2166136261;
  for (const v of [m.f0MedianHz, m.speakingRate, ...m.formantsHz, ...m.ltas]) {
    h ^= Math.round(v * 100) | 0;
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h >>> 0;
}

export function cloneProfile(measures: VoiceMeasures, base: VoiceInfo): VoiceProfile {
  const own = base.profile;
  const pitchHz = measures.f0MedianHz > 0 ? clamp(measures.f0MedianHz, 50, 500) : own.pitchHz;
  const ref = baseFormants(base);
  const ratios = measures.formantsHz.map((f, i) => (f > 0 ? f / ref[i]! : 1));
  const formantScale = clamp(Math.exp(ratios.reduce((a, r) => a + Math.log(r), 0) / ratios.length), 0.85, 1.18);
  const rate = measures.speakingRate > 0 ? own.rate * clamp(measures.speakingRate / BASE_SYLLABLE_RATE, 0.75, 1.33) : own.rate;
  // A clean modal voice has an HNR over 15 dB; breathy and rough voices fall well below.
  const breathiness = clamp((12 - measures.hnrDb) / 20, 0, 0.5);
  const range = measures.f0RangeSemitones > 0 ? rangeFor(base, pitchHz, measures.f0RangeSemitones) : own.range;
  return {
    pitchHz: Math.round(pitchHz * 10) / 10,
    range,
    rate: Math.round(rate * 1000) / 1000,
    formantScale: Math.round(formantScale * 1000) / 1000,
    breathiness: Math.round(Math.max(own.breathiness, breathiness) * 1000) / 1000,
    gainDb: 0,
    ...(own.blend ? { blend: own.blend } : {}),
    ltasDb: measures.ltas.length === LTAS_BANDS.length ? measures.ltas.map((v) => Math.round(v * 10) / 10) : [],
    seed: seedOf(measures),
  };
}
