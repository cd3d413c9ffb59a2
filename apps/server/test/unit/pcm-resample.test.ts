import { describe, expect, it } from 'vitest';
import { PcmResampler } from '../../src/synthesis/pcm-resample.js';

function sine(rate: number, hz: number, seconds: number, amplitude = 0.5): Buffer {
  const n = Math.round(rate * seconds);
  const buf = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * hz * i) / rate)), i * 2);
  return buf;
}

const samples = (buf: Buffer) => Array.from({ length: buf.length / 2 }, (_, i) => buf.readInt16LE(i * 2) / 32768);
const rms = (xs: number[]) => Math.sqrt(xs.reduce((s, x) => s + x * x, 0) / xs.length);

/** The power of one frequency in a signal (a single DFT bin), as an amplitude. */
function toneAmplitude(xs: number[], rate: number, hz: number): number {
  let re = 0;
  let im = 0;
  for (let i = 0; i < xs.length; i++) {
    re += xs[i]! * Math.cos((2 * Math.PI * hz * i) / rate);
    im -= xs[i]! * Math.sin((2 * Math.PI * hz * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / xs.length;
}

/** Feeds the input in uneven chunks (odd byte counts included), as a stream arrives. */
function resample(input: Buffer, from: number, to: number): Buffer {
  const r = new PcmResampler(from, to);
  const parts: Buffer[] = [];
  for (let at = 0, step = 1; at < input.length; at += step, step = (step * 7 + 3) % 4001 || 1) {
    parts.push(r.write(input.subarray(at, at + step)));
  }
  parts.push(r.end());
  return Buffer.concat(parts);
}

describe('PcmResampler', () => {
  for (const to of [8000, 16000, 22050, 44100, 48000]) {
    it(`keeps a 1 kHz tone, its length and its level from 24 kHz to ${to} Hz`, () => {
      const out = resample(sine(24000, 1000, 1), 24000, to);
      expect(Math.abs(out.length / 2 - to)).toBeLessThanOrEqual(2);
      const xs = samples(out).slice(100, -100);
      expect(toneAmplitude(xs, to, 1000)).toBeGreaterThan(0.48);
      expect(rms(xs)).toBeCloseTo(0.5 / Math.SQRT2, 1);
    });
  }

  it('removes what the lower rate cannot carry instead of folding it back', () => {
    // 7 kHz exists at 24 kHz but not at 8 kHz (Nyquist 4 kHz); without the filter it would alias to 1 kHz.
    const xs = samples(resample(sine(24000, 7000, 1), 24000, 8000)).slice(100, -100);
    expect(rms(xs)).toBeLessThan(0.01);
  });

  it('gives the same samples however the input is cut', () => {
    const input = sine(24000, 440, 0.5);
    const whole = new PcmResampler(24000, 16000);
    const once = Buffer.concat([whole.write(input), whole.end()]);
    expect(resample(input, 24000, 16000).equals(once)).toBe(true);
  });
});
