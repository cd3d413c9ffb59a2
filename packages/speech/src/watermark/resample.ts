/**
 * Narrow-band resampling between the output rate and the watermark's 8 kHz, with short kernels:
 * the watermark only lives between 344 and 3344 Hz, so the filters need not be flat beyond that,
 * and their small in-band droop is known (`response`) and undone where the mark is computed.
 * Taps are tabulated per phase (the rates' ratio is rational), so a run costs one dot product per
 * output sample: about 8 taps per input sample down, 8 per output sample up. At the rates that are
 * multiples of 8 kHz the filters' symmetries halve the multiplies (`pairs`, `mirrorSum`). The runs are
 * computed by the embedder's WebAssembly kernel (embed-kernel.ts, wasm/embed.c), two outputs or an
 * output's even and odd taps at a time in SIMD lanes, each output summed as the JavaScript loops here
 * sum it; `decimate`'s own loop and `shifted` remain for the short runs at the ends of the mirrored
 * groups and for rates whose phases do not fit the kernel's tables.
 */
import { RATE } from './grid.ts';
import { embedKernel as filters, BLOCK, TAPS } from './embed-kernel.ts';
import { bessel0, gcd } from '../formats/kaiser.ts';

/** Whose taps the kernel's tables hold (one kernel per thread, so one record per thread too). */
const loaded: { down?: Float64Array; up?: Float64Array } = {};

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
  /**
   * With one phase (a rate that is a multiple of 8 kHz), the taps folded about the centre tap
   * (taps[half − 1]): pair q weighs inputs centre ± q, pair 0 is the centre tap halved (its two
   * inputs are the same sample), and the tap past the window's far end is zero and left out.
   */
  private readonly pairs: Float64Array | undefined;
  /**
   * Up to a multiple of 8 kHz (one input step per `up` outputs, phases 0 … up − 1 in turn): phase
   * up − p's taps are phase p's reversed, so per phase p < up / 2, (taps[q] + taps[7 − q]) / 2 at
   * [4p + q] (q < 4) in `mirrorSum` and the difference in `mirrorDiff` give both phases from the
   * same four sums and four differences of the inputs.
   */
  private readonly mirrorSum: Float64Array | undefined;
  private readonly mirrorDiff: Float64Array | undefined;

  constructor(
    readonly from: number,
    readonly to: number,
    halfSeconds: number,
  ) {
    const g = gcd(from, to);
    this.up = to / g;
    this.down = from / g;
    this.half = Math.max(2, Math.ceil(halfSeconds * from));
    // A multiple of 8, so that the dot products run 8 taps a step; the taps past 2·half are zero.
    this.width = Math.ceil(this.half / 4) * 8;
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
    // wasm/embed.c has a copy per step: 2 … 6 (16 … 48 kHz), each with half = 4·step.
    if (this.up === 1 && this.half === 4 * this.down && this.down <= 6) {
      const c = this.half - 1;
      this.pairs = Float64Array.from({ length: this.half }, (_, q) => (q ? this.taps[c + q]! : this.taps[c]! / 2));
    }
    if (this.down === 1 && this.width === 8) {
      const t = this.taps;
      this.mirrorSum = new Float64Array(4 * this.up);
      this.mirrorDiff = new Float64Array(4 * this.up);
      for (let p = 1; 2 * p <= this.up; p++)
        for (let q = 0; q < 4; q++) {
          this.mirrorSum[4 * p + q] = (t[8 * p + q]! + t[8 * p + 7 - q]!) / 2;
          this.mirrorDiff[4 * p + q] = (t[8 * p + q]! - t[8 * p + 7 - q]!) / 2;
        }
    }
  }

  /** Input index of output n's first tap. */
  first(n: number): number {
    return Math.floor((n * this.down) / this.up) - (this.half - 1);
  }

  /** How many outputs from 0 have all their taps before absolute input index `end`: n < count ⇔ first(n) + width ≤ end. */
  countBefore(end: number): number {
    // A first guess, exact when width = 2·half (floor(n·down/up) ≤ end − half − 1 ⇔ n·down <
    // (end − half)·up), then stepped to the answer.
    let n = Math.ceil(((end - this.half) * this.up) / this.down);
    while (this.first(n) + this.width <= end) n++;
    while (this.first(n - 1) + this.width > end) n--;
    return n;
  }

  /**
   * Down: outputs n0 … n0 + count − 1 from the output-rate audio (Float32, as it arrives) into
   * out[at …]. With one phase (the rate a multiple of 8 kHz) the taps are symmetric about the
   * centre and the last is zero, so each pair of inputs shares one product: half the multiplies.
   */
  decimate(input: Float32Array, base: number, n0: number, count: number, out: Float64Array, at: number): void {
    const { up, width, taps, half, pairs } = this;
    const q0 = n0 * this.down;
    const whole = Math.floor(q0 / up);
    let rem = q0 - whole * up;
    const dWhole = Math.floor(this.down / up),
      dRem = this.down - dWhole * up;
    let start = whole - (half - 1) - base;
    if (pairs) {
      // One phase: the symmetric taps share a product per pair of inputs (wasm/embed.c), in blocks.
      const w = filters();
      w.pairs.set(pairs);
      for (let j = 0; j < count; j += BLOCK) {
        const n = Math.min(BLOCK, count - j),
          s = start + j * dWhole;
        w.downIn.set(input.subarray(s, s + (n - 1) * dWhole + 2 * half - 1));
        w.decimatePairs(n, dWhole);
        out.set(w.downOut.subarray(0, n), at + j);
      }
      return;
    }
    if (taps.length <= TAPS) {
      // Any other ratio whose taps fit the kernel's table (all but odd rates with thousands of phases).
      const w = filters();
      if (loaded.down !== taps) w.downTaps.set((loaded.down = taps));
      for (let j = 0; j < count; j += BLOCK) {
        const n = Math.min(BLOCK, count - j);
        const q = (n0 + j) * this.down,
          whole = Math.floor(q / up),
          s = whole - (half - 1) - base;
        w.downIn.set(input.subarray(s, this.first(n0 + j + n - 1) - base + width));
        w.decimate(n, width, up, dWhole, dRem, q - whole * up);
        out.set(w.downOut.subarray(0, n), at + j);
      }
      return;
    }
    for (let j = 0; j < count; j++) {
      let s0 = 0,
        s1 = 0;
      for (let k = rem * width, end = k + width, i = start; k < end; k += 8, i += 8) {
        s0 += input[i]! * taps[k]! + input[i + 2]! * taps[k + 2]! + input[i + 4]! * taps[k + 4]! + input[i + 6]! * taps[k + 6]!;
        s1 +=
          input[i + 1]! * taps[k + 1]! +
          input[i + 3]! * taps[k + 3]! +
          input[i + 5]! * taps[k + 5]! +
          input[i + 7]! * taps[k + 7]!;
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

  /** Up, added to the audio: out[j] = audio[from + j] + output n0 + j of the 8 kHz `input`. */
  interpolateAdd(
    input: Float64Array,
    base: number,
    n0: number,
    count: number,
    audio: Float32Array,
    from: number,
    out: Float32Array,
  ): void {
    if (this.width !== 8 || this.down > this.up) throw new Error('interpolateAdd needs an 8-tap up filter');
    if (!this.mirrorSum)
      return this.taps.length <= TAPS
        ? this.interpolated(input, base, n0, count, audio, from, out)
        : this.shifted(input, base, n0, count, audio, from, out, 0);
    // Whole groups of `up` outputs (phases 0 … up − 1) mirrored; the partial ones at the ends shifted.
    const L = this.up;
    const head = Math.min(count, (L - (((n0 % L) + L) % L)) % L);
    const groups = Math.floor((count - head) / L);
    const done = head + groups * L;
    this.shifted(input, base, n0, head, audio, from, out, 0);
    this.mirrored(input, base, n0 + head, groups, audio, from + head, out, head);
    this.shifted(input, base, n0 + done, count - done, audio, from + done, out, done);
  }

  /**
   * Any ratio: the 8 inputs stay in locals and shift along (the up filters advance by at most one
   * input per output), one load per input instead of 8 per output.
   */
  private shifted(
    input: Float64Array,
    base: number,
    n0: number,
    count: number,
    audio: Float32Array,
    from: number,
    out: Float32Array,
    at: number,
  ): void {
    if (count <= 0) return;
    const { up, taps } = this;
    const q0 = n0 * this.down;
    const whole = Math.floor(q0 / up);
    let rem = q0 - whole * up;
    const dRem = this.down;
    let i = whole - (this.half - 1) - base;
    let x0 = input[i]!,
      x1 = input[i + 1]!,
      x2 = input[i + 2]!,
      x3 = input[i + 3]!,
      x4 = input[i + 4]!,
      x5 = input[i + 5]!,
      x6 = input[i + 6]!,
      x7 = input[i + 7]!;
    for (let j = 0; j < count; j++) {
      const o = rem * 8;
      const s0 = x0 * taps[o]! + x2 * taps[o + 2]! + x4 * taps[o + 4]! + x6 * taps[o + 6]!;
      const s1 = x1 * taps[o + 1]! + x3 * taps[o + 3]! + x5 * taps[o + 5]! + x7 * taps[o + 7]!;
      out[at + j] = audio[from + j]! + (s0 + s1);
      rem += dRem;
      if (rem >= up) {
        rem -= up;
        i++;
        x0 = x1;
        x1 = x2;
        x2 = x3;
        x3 = x4;
        x4 = x5;
        x5 = x6;
        x6 = x7;
        x7 = input[i + 7]!;
      }
    }
  }

  /** Any ratio whose taps fit the kernel's table (22,050 and 44,100 Hz), in the kernel: as `shifted`. */
  private interpolated(
    input: Float64Array,
    base: number,
    n0: number,
    count: number,
    audio: Float32Array,
    from: number,
    out: Float32Array,
  ): void {
    const { up, down, taps } = this;
    const w = filters();
    if (loaded.up !== taps) w.upTaps.set((loaded.up = taps));
    for (let j = 0; j < count; j += BLOCK) {
      const n = Math.min(BLOCK, count - j);
      const q = (n0 + j) * down,
        whole = Math.floor(q / up),
        i = whole - (this.half - 1) - base;
      w.upIn.set(input.subarray(i, this.first(n0 + j + n - 1) - base + 8));
      w.upAudio.set(audio.subarray(from + j, from + j + n));
      w.interpolate(n, up, down, q - whole * up);
      out.set(w.upOut.subarray(0, n), j);
    }
  }

  /** `groups` whole groups of `up` outputs from n0 (a multiple of `up`): see `mirrorSum`. */
  private mirrored(
    input: Float64Array,
    base: number,
    n0: number,
    groups: number,
    audio: Float32Array,
    from: number,
    out: Float32Array,
    at: number,
  ): void {
    const L = this.up,
      w = filters();
    if (loaded.up !== this.taps) w.upTaps.set((loaded.up = this.taps));
    w.mirrorSum.set(this.mirrorSum!);
    w.mirrorDiff.set(this.mirrorDiff!);
    const i = n0 / L - (this.half - 1) - base;
    // Blocks of whole groups: at most BLOCK outputs and BLOCK / 2 groups (wasm/embed.c's arrays).
    const most = Math.min(BLOCK / 2, Math.floor(BLOCK / L));
    for (let g = 0; g < groups; g += most) {
      const n = Math.min(most, groups - g);
      w.upIn.set(input.subarray(i + g, i + g + n + 7));
      w.upAudio.set(audio.subarray(from + g * L, from + (g + n) * L));
      w.mirrored(n, L);
      out.set(w.upOut.subarray(0, n * L), at + g * L);
    }
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
