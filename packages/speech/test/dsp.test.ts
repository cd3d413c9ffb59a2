import { describe, expect, it } from 'vitest';
import { estimateF0, semitonesBetween } from '../src/dsp/f0.ts';
import { integratedLoudness, normalizeLoudness, peakDbfs, TARGET_LUFS } from '../src/dsp/loudness.ts';
import { concatFloat32, decodeWav, encodeWav, floatToInt16, int16FromParts, int16ToFloat, trimSilence } from '../src/dsp/pcm.ts';
import { resample } from '../src/dsp/resample.ts';
import { decimatePolyphase, resamplePolyphase } from '../src/formats/polyphase.ts';
import { changeSpeedPitch } from '../src/dsp/sonic.ts';
import { buzz, ffmpegLoudness, tone } from './support/audio.ts';
import * as reference from './support/loudness-reference.ts';

describe('F0 estimator', () => {
  it('finds the pitch of tones and harmonic signals across the voice range', () => {
    for (const hz of [70, 110, 180, 260, 400]) {
      expect(estimateF0(tone(hz, 0.6, 22050), 22050).median).toBeCloseTo(hz, -0.5);
      const f = estimateF0(buzz(hz, 0.6, 44100), 44100, { maxHz: 600 }).median;
      expect(Math.abs(semitonesBetween(hz, f))).toBeLessThan(0.3);
    }
  });
  it('reports silence and noise as unvoiced', () => {
    expect(estimateF0(new Float32Array(22050), 22050).voicedFraction).toBe(0);
    const noise = Float32Array.from({ length: 22050 }, () => Math.random() - 0.5);
    expect(estimateF0(noise, 22050).voicedFraction).toBeLessThan(0.2);
  });
});

describe('loudness', () => {
  it('measures like ffmpeg (BS.1770)', () => {
    const s = buzz(150, 3, 24000, 0.2);
    expect(integratedLoudness(s, 24000)).toBeCloseTo(ffmpegLoudness(s, 24000), 0);
  });
  it('brings quiet and peaky audio to one target without clipping', () => {
    for (const amp of [0.02, 0.3, 0.99]) {
      const s = buzz(120, 3, 22050, amp / 1.8);
      const out = normalizeLoudness(s, 22050);
      expect(Math.abs(ffmpegLoudness(out, 22050) - TARGET_LUFS)).toBeLessThan(1);
      expect(peakDbfs(out)).toBeLessThanOrEqual(-0.99);
    }
  });
});

describe('fast loudness against the plain reference implementation', () => {
  const signals = (): [string, Float32Array, number][] => [
    ['quiet buzz', buzz(120, 3, 22050, 0.01), 22050],
    ['peaky buzz', buzz(180, 2.3, 24000, 0.99), 24000],
    ['short tone under one block', tone(440, 0.25, 16000, 0.5), 16000],
    ['tone at 11,025 Hz (blocks not four steps)', tone(300, 1.7, 11025, 0.3), 11025],
    ['speech-like bursts and silence', bursts(22050), 22050],
  ];
  it('measures the same integrated loudness within 0.1 LU', () => {
    for (const [, s, rate] of signals())
      expect(Math.abs(integratedLoudness(s, rate) - reference.integratedLoudness(s, rate))).toBeLessThan(0.1);
    expect(integratedLoudness(new Float32Array(4000), 16000)).toBe(-Infinity);
    expect(integratedLoudness(new Float32Array(0), 16000)).toBe(-Infinity);
  });
  it('normalizes and limits to the same samples, leaving the input alone', () => {
    for (const [, s, rate] of signals()) {
      const before = s.slice();
      const fast = normalizeLoudness(s, rate);
      const plain = reference.normalizeLoudness(s.slice(), rate);
      expect(s).toEqual(before);
      let diff = 0;
      for (let i = 0; i < fast.length; i++) diff = Math.max(diff, Math.abs(fast[i]! - plain[i]!));
      expect(fast.length).toBe(plain.length);
      expect(diff).toBeLessThan(1e-4);
      expect(peakDbfs(fast)).toBeLessThanOrEqual(-0.99);
    }
  });
});

/** Loud syllables between pauses, like a sentence: the gates and the limiter both have work. */
function bursts(rate: number): Float32Array {
  const out = new Float32Array(rate * 4);
  for (let k = 0; k < 8; k++) {
    const at = Math.round(k * 0.5 * rate);
    const b = buzz(110 + 15 * k, 0.3, rate, k % 3 === 0 ? 0.9 : 0.25);
    out.set(b.subarray(0, Math.min(b.length, out.length - at)), at);
  }
  return out;
}

describe('resampling, speed and pitch', () => {
  it('resamples keeping duration and pitch', async () => {
    const s = tone(220, 1, 22050);
    const r = await resample(s, 22050, 24000);
    expect(r.length).toBe(24000);
    expect(estimateF0(r, 24000).median).toBeCloseTo(220, -0.5);
  });
  it('resamples with the polyphase filter: same length, tones kept clean up to 70 % of the lower Nyquist', async () => {
    for (const [from, to] of [
      [22050, 24000],
      [16000, 24000],
      [24000, 16000],
      [44100, 24000],
      [22050, 48000],
    ] as const) {
      for (const hz of [150, 1000, 4000, 0.35 * Math.min(from, to)]) {
        const x = Float32Array.from({ length: from }, (_, k) => 0.5 * Math.sin((2 * Math.PI * hz * k) / from));
        const y = resamplePolyphase(x, from, to);
        expect(y.length).toBe(to);
        let err = 0,
          n = 0;
        // The edges meet the zeros around the signal; the middle must match the ideal tone.
        for (let k = 100; k < y.length - 100; k++, n++) err += (y[k]! - 0.5 * Math.sin((2 * Math.PI * hz * k) / to)) ** 2;
        expect(10 * Math.log10((0.125 * n) / err)).toBeGreaterThan(40);
      }
    }
    // A tone above the output's Nyquist frequency is filtered out, not folded back in.
    const high = Float32Array.from({ length: 24000 }, (_, k) => 0.5 * Math.sin((2 * Math.PI * 10000 * k) / 24000));
    const down = resamplePolyphase(high, 24000, 16000);
    expect(Math.sqrt(down.reduce((a, v) => a + v * v, 0) / down.length)).toBeLessThan(0.005);
    // Agrees with the Speex resampler on speech-like audio.
    const b = buzz(140, 1, 22050, 0.3);
    const ours = resamplePolyphase(b, 22050, 24000);
    const speex = await resample(b, 22050, 24000, 3);
    expect(ours.length).toBe(speex.length);
    let diff = 0;
    for (let k = 100; k < ours.length - 100; k++) diff += (ours[k]! - speex[k]!) ** 2;
    expect(Math.sqrt(diff / ours.length)).toBeLessThan(0.01);
    expect(resamplePolyphase(b, 22050, 22050)).toBe(b);
    expect(resamplePolyphase(new Float32Array(0), 22050, 24000).length).toBe(0);
  });
  it('decimates by a whole number with the folded taps as resamplePolyphase does (the watermark reads 8 kHz so)', () => {
    const b = buzz(140, 2, 48000, 0.3);
    for (const from of [16000, 24000, 48000]) {
      const x = resamplePolyphase(b, 48000, from);
      const ours = decimatePolyphase(x, from, 8000),
        plain = resamplePolyphase(x, from, 8000);
      expect(ours.length).toBe(plain.length);
      let worst = 0;
      for (let k = 0; k < ours.length; k++) worst = Math.max(worst, Math.abs(ours[k]! - plain[k]!));
      // The same sums in another order: equal but for a rare last bit of a float.
      expect(worst).toBeLessThan(1e-6);
    }
    // Other ratios are resamplePolyphase's.
    expect(decimatePolyphase(b, 48000, 22050)).toEqual(resamplePolyphase(b, 48000, 22050));
  });
  it('shifts pitch by semitones keeping duration, and changes speed keeping pitch', async () => {
    const s = buzz(150, 2, 22050);
    const up = await changeSpeedPitch(s, 22050, 1, 5);
    expect(Math.abs(up.length - s.length)).toBeLessThan(22050 * 0.05);
    expect(semitonesBetween(150, estimateF0(up, 22050).median)).toBeCloseTo(5, 0);
    const fast = await changeSpeedPitch(s, 22050, 2, 0);
    expect(fast.length / s.length).toBeCloseTo(0.5, 1);
    expect(Math.abs(semitonesBetween(150, estimateF0(fast, 22050).median))).toBeLessThan(0.5);
  });
});

describe('PCM helpers', () => {
  it('round-trips WAV and trims silence', () => {
    const s = tone(300, 0.5, 16000, 0.4);
    const back = decodeWav(encodeWav(s, 16000));
    expect(back.sampleRate).toBe(16000);
    expect(back.samples.length).toBe(s.length);
    expect(Math.max(...back.samples.map((v, i) => Math.abs(v - s[i]!)))).toBeLessThan(1e-3);
    const padded = new Float32Array(16000 * 2);
    padded.set(s, 8000);
    expect(trimSilence(padded, 16000).length).toBeLessThan(s.length + 16000 * 0.11);
  });

  it('converts to 16-bit PCM clipped and rounded as the per-sample formula, at any byte offset', () => {
    const edge = [0, 1, -1, 1.5, -1.5, 0.5, -0.5, 1 / 32767, -1 / 32768, 0.49999 / 32767, NaN, Infinity, -Infinity, 3e-5, -3e-5];
    const samples = new Float32Array([...edge, ...tone(440, 0.05, 16000, 0.9)]);
    const expected = Buffer.alloc(samples.length * 2);
    samples.forEach((x, i) => {
      const v = Math.max(-1, Math.min(1, x));
      expected.writeInt16LE(Math.round(v < 0 ? v * 32768 : v * 32767), i * 2);
    });
    expect(floatToInt16(samples).equals(expected)).toBe(true);
    // A WAV is the 44-byte header and the same samples; its PCM read back at an odd offset still decodes.
    const wav = encodeWav(samples, 16000);
    expect(wav.subarray(44).equals(expected)).toBe(true);
    expect(wav.readUInt32LE(40)).toBe(expected.length);
    const odd = Buffer.concat([Buffer.from([0]), expected]).subarray(1);
    expect(odd.byteOffset % 2).toBe(1);
    const back = int16ToFloat(odd);
    expect(back.length).toBe(samples.length);
    back.forEach((v, i) => expect(v).toBe(expected.readInt16LE(i * 2) / 32768));
    expect([...int16ToFloat(expected)]).toEqual([...back]);
  });

  it("builds WAV and PCM from a file's pieces exactly as from the joined samples", () => {
    const parts = [
      tone(220, 0.031, 24000, 0.5),
      new Float32Array([1.2, -1.2, 0]),
      new Float32Array(0),
      tone(330, 0.017, 24000, 0.9),
    ];
    const joined = concatFloat32(parts);
    expect(int16FromParts(parts, 24000, true).equals(encodeWav(joined, 24000))).toBe(true);
    expect(int16FromParts(parts, 24000, false).equals(floatToInt16(joined))).toBe(true);
    expect(decodeWav(int16FromParts(parts, 24000, true)).sampleRate).toBe(24000);
  });
});
