/** How tests judge synthesized voices: the analysis module's measures, and whether two renderings read the same text. */
import { measurePcm, type VoiceMeasures } from '../../src/analysis/measure.ts';
import { decodeWav } from '../../src/dsp/pcm.ts';
import { resamplePolyphase } from '../../src/formats/polyphase.ts';

export function measureWav(wav: Buffer): VoiceMeasures & { samples: Float32Array; sampleRate: number } {
  const { samples, sampleRate } = decodeWav(wav);
  return { ...measurePcm(samples, sampleRate), samples, sampleRate };
}

/** Log energy in 10 ms frames of the 300–3400 Hz region (the first difference tilts away the low end). */
function envelope(x: Float32Array, rate: number): number[] {
  const y = resamplePolyphase(x, rate, 8000);
  const out: number[] = [];
  for (let o = 0; o + 80 <= y.length; o += 80) {
    let s = 0;
    for (let i = o + 1; i < o + 80; i++) s += (y[i]! - y[i - 1]!) ** 2;
    out.push(10 * Math.log10(s + 1e-9));
  }
  return out;
}

/**
 * Pearson correlation of the energy envelopes of two renderings after stretching the second to the
 * first's length. Two voices reading the same words at a steady rate rise and fall together (the
 * same syllables, the same pauses); a different text does not.
 */
export function envelopeCorrelation(a: Float32Array, aRate: number, b: Float32Array, bRate: number): number {
  const ea = envelope(a, aRate);
  const eb0 = envelope(b, bRate);
  const eb = ea.map((_, i) => {
    const t = (i * (eb0.length - 1)) / Math.max(1, ea.length - 1);
    const k = Math.floor(t);
    const f = t - k;
    return eb0[k]! * (1 - f) + (eb0[Math.min(eb0.length - 1, k + 1)] ?? eb0[k]!) * f;
  });
  // Floor both at 40 dB under their peaks: silence is silence, however deep.
  const floor = (e: number[]) => {
    const top = Math.max(...e);
    return e.map((v) => Math.max(v, top - 40));
  };
  const x = floor(ea);
  const y = floor(eb);
  const mx = x.reduce((s, v) => s + v, 0) / x.length;
  const my = y.reduce((s, v) => s + v, 0) / y.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy + 1e-12);
}

export const semitones = (a: number, b: number): number => 12 * Math.log2(a / b);
