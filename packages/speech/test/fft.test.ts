import { describe, expect, it } from 'vitest';
import { RealFft, realFftOf } from '../src/dsp/fft.ts';

/** Bins 0..n/2 of the windowed signal by the DFT's definition, one sum per bin. */
function directDft(x: ArrayLike<number>, offset: number, w: ArrayLike<number>, n: number): { re: number[]; im: number[] } {
  const re: number[] = [],
    im: number[] = [];
  for (let k = 0; k <= n / 2; k++) {
    let r = 0,
      m = 0;
    for (let t = 0; t < n; t++) {
      r += x[offset + t]! * w[t]! * Math.cos((2 * Math.PI * k * t) / n);
      m -= x[offset + t]! * w[t]! * Math.sin((2 * Math.PI * k * t) / n);
    }
    re.push(r);
    im.push(m);
  }
  return { re, im };
}

function noise(length: number, seed: number): Float64Array {
  let s = seed;
  return Float64Array.from({ length }, () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5);
}

// The package's one FFT (dsp/fft.ts): the watermark, the aligner, the analyses and the voice conversion (frames of
// 512 to 2,048 samples) all use it.
describe('the real FFT', () => {
  it('matches a direct DFT and inverts, at sizes with an odd and an even number of stages', () => {
    for (const n of [4, 8, 16, 64, 256, 512, 1024, 2048]) {
      const fft = new RealFft(n);
      const x = noise(n + 3, n);
      const w = Float64Array.from({ length: n }, (_, i) => 0.5 + i / n);
      const re = new Float64Array(n / 2 + 1),
        im = new Float64Array(n / 2 + 1);
      fft.forward(x, 3, w, re, im);
      const want = directDft(x, 3, w, n);
      // The direct sums carry rounding of order n·ε; the FFT's is smaller.
      const tolerance = 1e-11 * n;
      for (let k = 0; k <= n / 2; k++) {
        expect(Math.abs(re[k]! - want.re[k]!)).toBeLessThan(tolerance);
        expect(Math.abs(im[k]! - want.im[k]!)).toBeLessThan(tolerance);
      }
      const back = new Float64Array(n);
      fft.inverse(re, im, back);
      for (let t = 0; t < n; t++) expect(back[t]! / n).toBeCloseTo(x[3 + t]! * w[t]!, 12);
    }
  });

  it('reads a Float32Array and writes the spectrum at an offset, as the voice conversion stores its frames', () => {
    const n = 1024;
    const x = Float32Array.from(noise(n + 10, 5));
    const ones = new Float64Array(n).fill(1);
    const re = new Float64Array(3 * (n / 2 + 1)).fill(7),
      im = new Float64Array(3 * (n / 2 + 1)).fill(7);
    realFftOf(n).forward(x, 10, ones, re, im, n / 2 + 1);
    const want = directDft(x, 10, ones, n);
    for (let k = 0; k <= n / 2; k++) {
      expect(Math.abs(re[n / 2 + 1 + k]! - want.re[k]!)).toBeLessThan(1e-8);
      expect(Math.abs(im[n / 2 + 1 + k]! - want.im[k]!)).toBeLessThan(1e-8);
    }
    // Nothing outside the frame's bins is touched.
    expect(re[n / 2]).toBe(7);
    expect(im[2 * (n / 2 + 1)]).toBe(7);
  });

  it('adds the windowed inverse into a signal (overlap-add), matching the inverse DFT', () => {
    const n = 512;
    const h = n / 2;
    const { re: r, im: m } = directDft(noise(n, 11), 0, new Float64Array(n).fill(1), n);
    const re = Float64Array.from(r),
      im = Float64Array.from(m);
    const win = Float64Array.from({ length: n }, (_, i) => Math.sin((Math.PI * (i + 0.5)) / n) / n);
    const out = new Float64Array(n + 20).fill(1);
    realFftOf(n).inverseAdd(re, im, win, out, 20);
    for (let t = 0; t < n; t++) {
      // x[t] = (1/n)·Σ X[k]·e^{2πikt/n} over all n bins, the upper half the conjugates of the lower.
      let x = re[0]! + re[h]! * (t % 2 ? -1 : 1);
      for (let k = 1; k < h; k++) {
        const a = (2 * Math.PI * k * t) / n;
        x += 2 * (re[k]! * Math.cos(a) - im[k]! * Math.sin(a));
      }
      expect(out[20 + t]).toBeCloseTo(1 + x * win[t]!, 10);
    }
    for (let t = 0; t < 20; t++) expect(out[t]).toBe(1);
  });

  it('refuses a size that is not a power of two', () => {
    expect(() => new RealFft(12)).toThrow(/power of two/);
    expect(() => new RealFft(2)).toThrow(/power of two/);
  });
});
