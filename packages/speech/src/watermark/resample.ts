/**
 * Narrow-band resampling between the output rate and the watermark's 8 kHz, with short kernels:
 * the watermark only lives between 344 and 3344 Hz, so the filters need not be flat beyond that,
 * and their small in-band droop is known (`response`) and undone where the mark is computed.
 * Taps are tabulated per phase (the rates' ratio is rational), so a run costs one dot product per
 * output sample: about 8 taps per input sample down, 8 per output sample up.
 */
import { RATE } from './grid.ts';

const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);

function bessel0(x: number): number {
  let sum = 1,
    term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

/** Cut-off of both filters: above the band's top (3344 Hz), under 8 kHz's Nyquist. */
const CUTOFF = 3900;
const BETA = 5;

/**
 * Converts from rate `from` to rate `to` (one of them RATE). Output sample n is centred at input
 * position n·from/to and reads taps at input indices `first(n)`…`first(n) + width − 1`.
 */
export class Kernel {
  readonly up: number;
  readonly down: number;
  readonly width: number;
  readonly half: number;
  readonly taps: Float64Array;

  constructor(
    readonly from: number,
    readonly to: number,
    halfSeconds: number,
  ) {
    const g = gcd(from, to);
    this.up = to / g;
    this.down = from / g;
    this.half = Math.max(2, Math.ceil(halfSeconds * from));
    this.width = 2 * this.half;
    this.taps = new Float64Array(this.up * this.width);
    const norm = bessel0(BETA);
    for (let p = 0; p < this.up; p++) {
      const frac = p / this.up;
      let sum = 0;
      for (let k = 0; k < this.width; k++) {
        const t = (k - (this.half - 1) - frac) / from;
        const x = 2 * CUTOFF * t;
        const sinc = Math.abs(x) < 1e-12 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
        const r = (t * from) / this.half;
        const w = Math.abs(r) >= 1 ? 0 : bessel0(BETA * Math.sqrt(1 - r * r)) / norm;
        this.taps[p * this.width + k] = sinc * w;
        sum += sinc * w;
      }
      for (let k = 0; k < this.width; k++) this.taps[p * this.width + k]! /= sum;
    }
  }

  /** Input index of output n's first tap. */
  first(n: number): number {
    return Math.floor((n * this.down) / this.up) - (this.half - 1);
  }

  /** How many outputs from 0 have all their taps before absolute input index `end`: n < count ⇔ first(n) + width ≤ end. */
  countBefore(end: number): number {
    // floor(n·down/up) ≤ end − half − 1 ⇔ n·down < (end − half)·up.
    let n = Math.ceil(((end - this.half) * this.up) / this.down);
    while (this.first(n) + this.width <= end) n++;
    while (this.first(n - 1) + this.width > end) n--;
    return n;
  }

  /**
   * Outputs n0 … n0 + count − 1 into out[at …], each exactly as `at` computes it, with the phase
   * stepped along instead of divided out per sample.
   */
  block(input: Float64Array, base: number, n0: number, count: number, out: Float64Array, at: number): void {
    const { up, width, taps } = this;
    const q0 = n0 * this.down;
    const whole = Math.floor(q0 / up);
    let rem = q0 - whole * up;
    const dWhole = Math.floor(this.down / up),
      dRem = this.down - dWhole * up;
    let start = whole - (this.half - 1) - base;
    for (let j = 0; j < count; j++) {
      const off = rem * width;
      let s0, s1;
      if (width === 8) {
        // The up filters' width (8 kHz, ±0.5 ms), unrolled: the same sums in the same order.
        s0 =
          input[start]! * taps[off]! +
          input[start + 2]! * taps[off + 2]! +
          input[start + 4]! * taps[off + 4]! +
          input[start + 6]! * taps[off + 6]!;
        s1 =
          input[start + 1]! * taps[off + 1]! +
          input[start + 3]! * taps[off + 3]! +
          input[start + 5]! * taps[off + 5]! +
          input[start + 7]! * taps[off + 7]!;
      } else {
        s0 = 0;
        s1 = 0;
        for (let k = 0; k < width; k += 2) {
          s0 += input[start + k]! * taps[off + k]!;
          s1 += input[start + k + 1]! * taps[off + k + 1]!;
        }
      }
      out[at + j] = s0 + s1;
      start += dWhole;
      rem += dRem;
      if (rem >= up) {
        rem -= up;
        start++;
      }
    }
  }

  /** Output sample n from `input` (whose index 0 is absolute input index `base`). */
  at(input: Float64Array, base: number, n: number): number {
    const q = n * this.down;
    const whole = Math.floor(q / this.up);
    const start = whole - (this.half - 1) - base;
    // The phase is the remainder towards minus infinity: n is negative before the audio starts.
    const off = (q - whole * this.up) * this.width;
    const taps = this.taps;
    let s0 = 0,
      s1 = 0;
    for (let k = 0; k < this.width; k += 2) {
      s0 += input[start + k]! * taps[off + k]!;
      s1 += input[start + k + 1]! * taps[off + k + 1]!;
    }
    return s0 + s1;
  }

  /** Gain at `hz`, averaged over the phases. */
  response(hz: number): number {
    let total = 0;
    for (let p = 0; p < this.up; p++) {
      let re = 0,
        im = 0;
      for (let k = 0; k < this.width; k++) {
        const t = (k - (this.half - 1) - p / this.up) / this.from;
        re += this.taps[p * this.width + k]! * Math.cos(2 * Math.PI * hz * t);
        im += this.taps[p * this.width + k]! * Math.sin(2 * Math.PI * hz * t);
      }
      total += Math.hypot(re, im);
    }
    return total / this.up;
  }
}

const kernels = new Map<string, { down: Kernel; up: Kernel }>();

/** The pair of kernels for an output rate (undefined at RATE itself). */
export function kernelsFor(rate: number): { down: Kernel; up: Kernel } | undefined {
  if (rate === RATE) return undefined;
  const key = String(rate);
  let k = kernels.get(key);
  if (!k) {
    k = { down: new Kernel(rate, RATE, 0.0005), up: new Kernel(RATE, rate, 0.0005) };
    kernels.set(key, k);
  }
  return k;
}
