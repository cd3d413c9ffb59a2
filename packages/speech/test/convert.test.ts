/** The conversion stage on signals with known answers: formant warp, LTAS matching, tilt, breath, and when it does nothing. */
import { describe, expect, it } from 'vitest';
import { measurePcm } from '../src/analysis/measure.ts';
import { ltas, ltasDistance, LTAS_BANDS } from '../src/analysis/ltas.ts';
import { conversionOf, convertVoice, f0Correction, type Conversion } from '../src/dsp/convert.ts';
import { DEFAULT_PROFILE, type VoiceProfile } from '../src/core/types.ts';

function vowel(f0: number, formants: [number, number][], seconds: number, rate: number): Float32Array {
  const n = Math.round(seconds * rate);
  let x = new Float32Array(n);
  for (let t = 0; t < n; t += rate / f0) x[Math.floor(t)] = 1;
  for (const [f, bw] of formants) {
    const r = Math.exp((-Math.PI * bw) / rate);
    const a1 = -2 * r * Math.cos((2 * Math.PI * f) / rate);
    const a2 = r * r;
    const y = new Float32Array(n);
    for (let i = 0; i < n; i++) y[i] = (1 + a1 + a2) * x[i]! - a1 * (y[i - 1] ?? 0) - a2 * (y[i - 2] ?? 0);
    x = y;
  }
  let peak = 0;
  for (const v of x) peak = Math.max(peak, Math.abs(v));
  const out = new Float32Array(n + rate);
  out.set(
    x.map((v) => (0.5 * v) / peak),
    rate / 2,
  );
  return out;
}

function noise(seconds: number, rate: number, seed = 1): Float32Array {
  let s = seed;
  return new Float32Array(seconds * rate).map(() => ((s = (s * 16807) % 2147483647) / 2147483647 - 0.5) * 0.4);
}

const none: Conversion = { formantScale: 1, breathiness: 0, tiltDb: 0, seed: 1 };

describe('conversionOf', () => {
  it('asks nothing of a plain profile, so the stage is skipped', () => {
    expect(conversionOf(DEFAULT_PROFILE, DEFAULT_PROFILE)).toBeUndefined();
    expect(conversionOf({ ...DEFAULT_PROFILE, pitchHz: 200, rate: 1.3, range: 80 }, DEFAULT_PROFILE)).toBeUndefined();
    // A voice's own breathiness is the engine's: the same amount asks for nothing more.
    const breathy = { ...DEFAULT_PROFILE, breathiness: 0.3 };
    expect(conversionOf(breathy, breathy)).toBeUndefined();
    expect(conversionOf({ ...breathy, breathiness: 0.2 }, breathy)).toBeUndefined();
  });

  it('reads each conversion field, bounded', () => {
    expect(conversionOf({ ...DEFAULT_PROFILE, formantScale: 1.1 }, DEFAULT_PROFILE)?.formantScale).toBe(1.1);
    expect(conversionOf({ ...DEFAULT_PROFILE, formantScale: 9 }, DEFAULT_PROFILE)?.formantScale).toBe(1.5);
    expect(conversionOf({ ...DEFAULT_PROFILE, breathiness: 0.5 }, DEFAULT_PROFILE)?.breathiness).toBe(0.5);
    expect(conversionOf({ ...DEFAULT_PROFILE, tiltDb: 40 }, DEFAULT_PROFILE)?.tiltDb).toBe(6);
    const target = LTAS_BANDS.map((_, i) => -20 - i);
    expect(conversionOf({ ...DEFAULT_PROFILE, ltasDb: target }, DEFAULT_PROFILE)?.ltasDb).toEqual(target);
  });

  it('ignores malformed conversion fields from stored JSON instead of failing', () => {
    const bad = [
      { ltasDb: [1, 2, 3] },
      { ltasDb: LTAS_BANDS.map(() => Number.NaN) },
      { ltasDb: LTAS_BANDS.map(() => '3') },
      { tiltDb: 'loud' },
      { formantScale: Number.NaN },
      JSON.parse('{"__proto__": {"ltasDb": 1}, "constructor": {"prototype": 1}}'),
    ];
    for (const extra of bad) {
      const profile = { ...DEFAULT_PROFILE, ...(extra as Partial<VoiceProfile>) };
      expect(conversionOf(profile, DEFAULT_PROFILE)).toBeUndefined();
    }
  });
});

describe('convertVoice', () => {
  it('with nothing to do gives back the signal, sample for sample, at every rate', () => {
    for (const rate of [8000, 16000, 22050, 24000, 48000]) {
      const x = vowel(130, [[600, 80]], 0.5, rate);
      const y = convertVoice(x, rate, none);
      expect(y.length).toBe(x.length);
      let err = 0;
      for (let i = 0; i < x.length; i++) err = Math.max(err, Math.abs(x[i]! - y[i]!));
      expect(err).toBeLessThan(1e-5);
    }
    expect(convertVoice(new Float32Array(0), 24000, none).length).toBe(0);
    expect(convertVoice(new Float32Array(10), 24000, { ...none, breathiness: 1, formantScale: 1.2 }).every((v) => v === 0)).toBe(
      true,
    );
  });

  it.each([1.15, 0.87])('warps formants by the factor %s and keeps F0', (scale) => {
    const rate = 16000;
    const formants: [number, number][] = [
      [600, 80],
      [1400, 100],
      [2500, 120],
    ];
    const x = vowel(120, formants, 2, rate);
    const before = measurePcm(x, rate);
    const after = measurePcm(convertVoice(x, rate, { ...none, formantScale: scale }), rate);
    for (let i = 0; i < 3; i++) expect(Math.abs(after.formantsHz[i]! / (formants[i]![0] * scale) - 1)).toBeLessThan(0.1);
    expect(Math.abs(12 * Math.log2(after.f0MedianHz / before.f0MedianHz))).toBeLessThan(0.2);
  });

  it('matches the LTAS of a target: the distance drops to a fraction', () => {
    const rate = 24000;
    const x = noise(3, rate);
    // A target falling 6 dB per octave above 500 Hz, with a bump at 1 kHz.
    const target = LTAS_BANDS.map((f) => -30 - 6 * Math.max(0, Math.log2(f / 500)) + (f === 1000 ? 6 : 0));
    const before = ltasDistance(ltas(x, rate), target);
    const y = convertVoice(x, rate, { ...none, ltasDb: target });
    const after = ltasDistance(ltas(y, rate), target);
    expect(before).toBeGreaterThan(5);
    expect(after).toBeLessThan(before / 3);
  });

  it('bounds the equalizer: a target with a hole 60 dB deep is cut at most 30 dB, boosts at most 12', () => {
    const rate = 16000;
    const x = noise(2, rate);
    const target = LTAS_BANDS.map((f) => (f === 2000 ? -90 : f === 500 ? 10 : -30));
    const y = ltas(convertVoice(x, rate, { ...none, ltasDb: target }), rate);
    const flat = ltas(x, rate);
    const change = y.map((v, i) => v - flat[i]!);
    const mid = change[LTAS_BANDS.indexOf(5000)]!;
    expect(change[LTAS_BANDS.indexOf(2000)]! - mid).toBeGreaterThan(-31);
    expect(change[LTAS_BANDS.indexOf(500)]! - mid).toBeLessThan(13);
  });

  it('tilts: a positive tilt brightens, a negative one darkens', () => {
    const rate = 24000;
    const x = noise(2, rate);
    const flat = ltas(x, rate);
    const hi = LTAS_BANDS.indexOf(4000);
    const lo = LTAS_BANDS.indexOf(250);
    const slope = (l: number[]) => l[hi]! - flat[hi]! - (l[lo]! - flat[lo]!);
    expect(slope(ltas(convertVoice(x, rate, { ...none, tiltDb: 3 }), rate))).toBeGreaterThan(10);
    expect(slope(ltas(convertVoice(x, rate, { ...none, tiltDb: -3 }), rate))).toBeLessThan(-10);
  });

  it('breathiness adds noise to voiced sound, more with more, the same for the same seed', () => {
    const rate = 16000;
    const x = vowel(
      150,
      [
        [700, 80],
        [1220, 90],
        [2600, 120],
      ],
      2,
      rate,
    );
    const hnr = (b: number) => measurePcm(convertVoice(x, rate, { ...none, breathiness: b }), rate).hnrDb;
    const h0 = measurePcm(x, rate).hnrDb;
    const h5 = hnr(0.5);
    const h9 = hnr(0.9);
    expect(h5).toBeLessThan(h0);
    expect(h9).toBeLessThan(h5 - 3);
    const a = convertVoice(x, rate, { ...none, breathiness: 0.5, seed: 4 });
    expect(convertVoice(x, rate, { ...none, breathiness: 0.5, seed: 4 })).toEqual(a);
    expect(convertVoice(x, rate, { ...none, breathiness: 0.5, seed: 5 })).not.toEqual(a);
    // Silence stays silence: no hiss where nothing is voiced.
    const quiet = convertVoice(new Float32Array(rate), rate, { ...none, breathiness: 1 });
    expect(quiet.every((v) => v === 0)).toBe(true);
  });
});

describe('f0Correction', () => {
  it("gives the semitones onto a clone's F0 median, nothing within three quarters of a semitone or without voicing", () => {
    const rate = 16000;
    const x = vowel(150, [[700, 80]], 1, rate);
    expect(f0Correction(x, rate, 170)).toBeCloseTo(12 * Math.log2(170 / 150), 1);
    expect(f0Correction(x, rate, 120)).toBeCloseTo(12 * Math.log2(120 / 150), 1);
    expect(f0Correction(x, rate, 153)).toBe(0);
    expect(f0Correction(x, rate, 156)).toBe(0);
    expect(f0Correction(x, rate, 160)).toBeCloseTo(12 * Math.log2(160 / 150), 1);
    expect(f0Correction(x, rate, 400)).toBe(6);
    expect(f0Correction(noise(1, rate), rate, 200)).toBe(0);
    expect(f0Correction(vowel(150, [[700, 80]], 0.1, rate), rate, 200)).toBe(0);
  });

  it("is asked for by a profile with a measured F0 median, moved by the request's own pitch", () => {
    expect(conversionOf({ ...DEFAULT_PROFILE, f0MedianHz: 200 }, DEFAULT_PROFILE)?.f0TargetHz).toBe(200);
    expect(conversionOf({ ...DEFAULT_PROFILE, f0MedianHz: 200 }, DEFAULT_PROFILE, 12)?.f0TargetHz).toBeCloseTo(400);
    expect(conversionOf({ ...DEFAULT_PROFILE, f0MedianHz: 5000 }, DEFAULT_PROFILE)).toBeUndefined();
  });
});
