/**
 * The package's one FFT: a real FFT of one fixed power-of-two size (a complex FFT of half the size on
 * the even/odd samples, then the split step), used by the watermark, the aligner, the analyses and the
 * voice conversion. The watermark's embedder does two 256-point transforms per 16 ms of audio, so each
 * instance keeps its tables and scratch and allocates nothing per call.
 */
export class RealFft {
  readonly size: number;
  private readonly half: number;
  readonly rev: Uint16Array;
  /** Twiddles of the half-size complex FFT. */
  readonly cos: Float64Array;
  readonly sin: Float64Array;
  readonly sinInv: Float64Array;
  /** Twiddles of the split step, e^{-2πik/N}. */
  readonly splitCos: Float64Array;
  readonly splitSin: Float64Array;
  private readonly zr: Float64Array;
  private readonly zi: Float64Array;

  constructor(size: number) {
    if (size < 4 || (size & (size - 1)) !== 0) throw new Error(`RealFft size ${size} is not a power of two ≥ 4`);
    this.size = size;
    const h = size >> 1;
    this.half = h;
    const bits = Math.log2(h);
    this.rev = new Uint16Array(h);
    for (let i = 0; i < h; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      this.rev[i] = r;
    }
    this.cos = new Float64Array(h >> 1);
    this.sin = new Float64Array(h >> 1);
    this.sinInv = new Float64Array(h >> 1);
    for (let i = 0; i < h >> 1; i++) {
      this.cos[i] = Math.cos((2 * Math.PI * i) / h);
      this.sin[i] = -Math.sin((2 * Math.PI * i) / h);
      this.sinInv[i] = Math.sin((2 * Math.PI * i) / h);
    }
    this.splitCos = new Float64Array(h + 1);
    this.splitSin = new Float64Array(h + 1);
    for (let k = 0; k <= h; k++) {
      this.splitCos[k] = Math.cos((2 * Math.PI * k) / size);
      this.splitSin[k] = -Math.sin((2 * Math.PI * k) / size);
    }
    this.zr = new Float64Array(h);
    this.zi = new Float64Array(h);
  }

  /**
   * In-place complex FFT of zr/zi, which hold its input in bit-reversed order after the first
   * stage (the callers write it so: no separate passes for the permutation and the first stage, whose
   * twiddle is one), forward or inverse unscaled: radix-2 decimation in time, its
   * stages fused in pairs so that each pass over the data does two (the same operations on the same
   * twiddles as one stage at a time, so the same result to the bit, in half the passes).
   */
  private complex(inverse: boolean): void {
    const zr = this.zr,
      zi = this.zi,
      cos = this.cos,
      sin = inverse ? this.sinInv : this.sin,
      n = this.half;
    let hl = 2,
      step = n >> 2;
    // Two stages at once: half-length hl with twiddle w1 = W(k·step), then 2·hl with w2 = W(k·step/2)
    // on (a0, a2) and w3 = W((k + hl)·step/2) on (a1, a3).
    for (; hl << 1 < n; hl <<= 2, step >>= 2) {
      const h2 = hl << 1,
        s2 = step >> 1;
      for (let k = 0; k < hl; k++) {
        const w1r = cos[k * step]!,
          w1i = sin[k * step]!,
          w2r = cos[k * s2]!,
          w2i = sin[k * s2]!,
          w3r = cos[(k + hl) * s2]!,
          w3i = sin[(k + hl) * s2]!;
        for (let a0 = k; a0 < n; a0 += h2 << 1) {
          const a1 = a0 + hl,
            a2 = a0 + h2,
            a3 = a2 + hl;
          // Stage hl: (a0, a1) and (a2, a3).
          let xr = zr[a1]! * w1r - zi[a1]! * w1i;
          let xi = zr[a1]! * w1i + zi[a1]! * w1r;
          const b1r = zr[a0]! - xr,
            b1i = zi[a0]! - xi,
            b0r = zr[a0]! + xr,
            b0i = zi[a0]! + xi;
          xr = zr[a3]! * w1r - zi[a3]! * w1i;
          xi = zr[a3]! * w1i + zi[a3]! * w1r;
          const b3r = zr[a2]! - xr,
            b3i = zi[a2]! - xi,
            b2r = zr[a2]! + xr,
            b2i = zi[a2]! + xi;
          // Stage 2·hl: (a0, a2) and (a1, a3).
          xr = b2r * w2r - b2i * w2i;
          xi = b2r * w2i + b2i * w2r;
          zr[a2] = b0r - xr;
          zi[a2] = b0i - xi;
          zr[a0] = b0r + xr;
          zi[a0] = b0i + xi;
          xr = b3r * w3r - b3i * w3i;
          xi = b3r * w3i + b3i * w3r;
          zr[a3] = b1r - xr;
          zi[a3] = b1i - xi;
          zr[a1] = b1r + xr;
          zi[a1] = b1i + xi;
        }
      }
    }
    // A last single stage when the stages after the first are odd in number.
    for (; hl < n; hl <<= 1, step >>= 1) {
      for (let k = 0; k < hl; k++) {
        const wr = cos[k * step]!,
          wi = sin[k * step]!;
        for (let a = k; a < n; a += hl << 1) {
          const b = a + hl;
          const xr = zr[b]! * wr - zi[b]! * wi;
          const xi = zr[b]! * wi + zi[b]! * wr;
          zr[b] = zr[a]! - xr;
          zi[b] = zi[a]! - xi;
          zr[a] = zr[a]! + xr;
          zi[a] = zi[a]! + xi;
        }
      }
    }
  }

  /** Spectrum of `input` (size samples from `offset`, times `window`) into re/im[at …], bins 0..size/2. */
  forward(input: ArrayLike<number>, offset: number, window: Float64Array, re: Float64Array, im: Float64Array, at = 0): void {
    const { zr, zi, half: h, splitCos, splitSin, rev } = this;
    // Points i and i + h/2 land side by side (at rev[i], rev[i] + 1): the first stage's butterfly.
    for (let i = 0, q = h >> 1; i < q; i++) {
      const j = rev[i]!,
        a = offset + 2 * i,
        b = a + h;
      const ar = input[a]! * window[2 * i]!,
        ai = input[a + 1]! * window[2 * i + 1]!,
        br = input[b]! * window[2 * i + h]!,
        bi = input[b + 1]! * window[2 * i + h + 1]!;
      zr[j + 1] = ar - br;
      zi[j + 1] = ai - bi;
      zr[j] = ar + br;
      zi[j] = ai + bi;
    }
    this.complex(false);
    re[at] = zr[0]! + zi[0]!;
    im[at] = 0;
    re[at + h] = zr[0]! - zi[0]!;
    im[at + h] = 0;
    // Bins k and h − k from the same E and W·O: X[k] = E + W·O, X[h − k] = conj(E − W·O). At k = h/2
    // (its own partner) the first form is written last.
    for (let k = 1, q = h >> 1; k <= q; k++) {
      const ar = zr[k]!,
        ai = zi[k]!,
        br = zr[h - k]!,
        bi = -zi[h - k]!;
      // E = (Z[k] + conj Z[h-k]) / 2, O = (Z[k] - conj Z[h-k]) / 2i (halving exactly, by 0.5)
      const er = (ar + br) * 0.5,
        ei = (ai + bi) * 0.5;
      const or = (ai - bi) * 0.5,
        oi = -(ar - br) * 0.5;
      const wr = splitCos[k]!,
        wi = splitSin[k]!;
      const tr = or * wr - oi * wi,
        ti = or * wi + oi * wr;
      re[at + h - k] = er - tr;
      im[at + h - k] = ti - ei;
      re[at + k] = er + tr;
      im[at + k] = ei + ti;
    }
  }

  /** Real signal times `size` (the caller folds 1/size into its window) from bins 0..size/2. */
  inverse(re: Float64Array, im: Float64Array, out: Float64Array): void {
    this.toSignal(re, im);
    const { zr, zi, half: h } = this;
    for (let i = 0; i < h; i++) {
      out[2 * i] = zr[i]!;
      out[2 * i + 1] = zi[i]!;
    }
  }

  /** As `inverse`, times `window`, added into out[at …] (overlap-add synthesis without a copy). */
  inverseAdd(re: Float64Array, im: Float64Array, window: Float64Array, out: Float64Array, at: number): void {
    this.toSignal(re, im);
    const { zr, zi, half: h } = this;
    for (let i = 0, o = at; i < h; i++, o += 2) {
      out[o] = out[o]! + zr[i]! * window[2 * i]!;
      out[o + 1] = out[o + 1]! + zi[i]! * window[2 * i + 1]!;
    }
  }

  /** The inverse into zr/zi: sample 2i is zr[i], sample 2i + 1 is zi[i]. */
  private toSignal(re: Float64Array, im: Float64Array): void {
    const { zr, zi, half: h, splitCos, splitSin, rev } = this;
    // Points k and h − k from the same sums and differences (point h − k's are point k's with the
    // twiddle reflected); point 0's partner is bin h, and at k = h/2 point k's form is written last.
    for (let k = 0, q = h >> 1; k <= q; k++) {
      // Point k's input to the complex FFT, before its first stage (done below).
      const ar = re[k]!,
        ai = im[k]!,
        br = re[h - k]!,
        bi = -im[h - k]!;
      const er = ar + br,
        ei = ai + bi;
      const dr = ar - br,
        di = ai - bi;
      // O = (X[k] - conj X[h-k]) · e^{+2πik/N}
      const wr = splitCos[k]!,
        wi = -splitSin[k]!;
      const or = dr * wr - di * wi,
        oi = dr * wi + di * wr;
      if (k) {
        zr[rev[h - k]!] = er + oi;
        zi[rev[h - k]!] = or - ei;
      }
      zr[rev[k]!] = er - oi;
      zi[rev[k]!] = ei + or;
    }
    // The first stage: points k and k + h/2 sit side by side.
    for (let a = 0; a < h; a += 2) {
      const br = zr[a + 1]!,
        bi = zi[a + 1]!;
      zr[a + 1] = zr[a]! - br;
      zi[a + 1] = zi[a]! - bi;
      zr[a] = zr[a]! + br;
      zi[a] = zi[a]! + bi;
    }
    this.complex(true);
  }
}

const shared = new Map<number, RealFft>();
/** One RealFft per size for this thread (its scratch is reused; every call runs to its end before another). */
export function realFftOf(size: number): RealFft {
  let f = shared.get(size);
  if (!f) shared.set(size, (f = new RealFft(size)));
  return f;
}
