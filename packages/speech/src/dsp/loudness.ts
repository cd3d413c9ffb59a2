/**
 * Loudness: ITU-R BS.1770 integrated loudness (K-weighting, 400 ms blocks, absolute and relative
 * gates) and normalisation to one target with a look-ahead peak limiter, so engines that peak at
 * 0 dBFS (eSpeak) and quiet ones come out equally loud.
 */

export const TARGET_LUFS = -16;
export const PEAK_CEILING_DBFS = -1;

interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

function kWeighting(fs: number): Biquad[] {
  // Stage 1: high shelf (+4 dB above ~1.7 kHz); stage 2: high pass at ~38 Hz (BS.1770, any rate).
  const shelf = ((): Biquad => {
    const G = 3.99984385397,
      Q = 0.7071752369554193,
      fc = 1681.9744509555319;
    const A = Math.pow(10, G / 40),
      w0 = (2 * Math.PI * fc) / fs,
      cos = Math.cos(w0);
    const alpha = Math.sin(w0) / (2 * Q),
      sA = Math.sqrt(A);
    const a0 = A + 1 - (A - 1) * cos + 2 * sA * alpha;
    return {
      b0: (A * (A + 1 + (A - 1) * cos + 2 * sA * alpha)) / a0,
      b1: (-2 * A * (A - 1 + (A + 1) * cos)) / a0,
      b2: (A * (A + 1 + (A - 1) * cos - 2 * sA * alpha)) / a0,
      a1: (2 * (A - 1 - (A + 1) * cos)) / a0,
      a2: (A + 1 - (A - 1) * cos - 2 * sA * alpha) / a0,
    };
  })();
  const highpass = ((): Biquad => {
    const Q = 0.5003270373253953,
      fc = 38.13547087613982;
    const w0 = (2 * Math.PI * fc) / fs,
      cos = Math.cos(w0),
      alpha = Math.sin(w0) / (2 * Q);
    const a0 = 1 + alpha;
    return { b0: (1 + cos) / 2 / a0, b1: -(1 + cos) / a0, b2: (1 + cos) / 2 / a0, a1: (-2 * cos) / a0, a2: (1 - alpha) / a0 };
  })();
  return [shelf, highpass];
}

const kCache = new Map<number, Biquad[]>();
const kWeightingAt = (fs: number): Biquad[] => {
  let k = kCache.get(fs);
  if (!k) kCache.set(fs, (k = kWeighting(fs)));
  return k;
};

/**
 * K-weighted energy of every `step`-long segment (the last, partial one included), both filter
 * stages and the squaring in one pass over the samples: no array per stage, nothing per sample
 * allocated. Runs on every sentence, twice when the limiter had to act.
 */
function segmentEnergies(x: Float32Array, sampleRate: number, step: number): Float64Array {
  const [s, h] = kWeightingAt(sampleRate) as [Biquad, Biquad];
  const sb0 = s.b0,
    sb1 = s.b1,
    sb2 = s.b2,
    sa1 = s.a1,
    sa2 = s.a2;
  const hb0 = h.b0,
    hb1 = h.b1,
    hb2 = h.b2,
    ha1 = h.a1,
    ha2 = h.a2;
  const n = x.length;
  const out = new Float64Array(Math.ceil(n / step));
  let x1 = 0,
    x2 = 0,
    u1 = 0,
    u2 = 0,
    y1 = 0,
    y2 = 0,
    e = 0,
    k = 0,
    seg = 0;
  for (let i = 0; i < n; i++) {
    const x0 = x[i]!;
    const u0 = sb0 * x0 + sb1 * x1 + sb2 * x2 - sa1 * u1 - sa2 * u2;
    const y0 = hb0 * u0 + hb1 * u1 + hb2 * u2 - ha1 * y1 - ha2 * y2;
    x2 = x1;
    x1 = x0;
    u2 = u1;
    u1 = u0;
    y2 = y1;
    y1 = y0;
    e += y0 * y0;
    if (++k === step) {
      out[seg++] = e;
      e = 0;
      k = 0;
    }
  }
  if (k) out[seg] = e;
  return out;
}

/** Integrated loudness in LUFS; -Infinity for silence. */
export function integratedLoudness(samples: Float32Array, sampleRate: number): number {
  const n = samples.length;
  if (n === 0) return -Infinity;
  const block = Math.round(0.4 * sampleRate);
  const step = Math.round(0.1 * sampleRate);
  // A 400 ms block is four 100 ms steps at every usual rate; at a rate where rounding breaks that
  // (11,025 Hz), segments of one sample keep the blocks exact.
  const unit = block === 4 * step ? step : 1;
  const perBlock = block / unit;
  const seg = segmentEnergies(samples, sampleRate, unit);
  const blocks = n < block ? 1 : Math.floor((n - block) / step) + 1;
  const powers = new Float64Array(blocks);
  if (n < block) {
    let e = 0;
    for (let i = 0; i < seg.length; i++) e += seg[i]!;
    powers[0] = e / n;
  } else {
    const stride = step / unit;
    // A running window sum over segments: each block adds one step and drops one.
    let e = 0;
    for (let j = 0; j < perBlock; j++) e += seg[j]!;
    powers[0] = e / block;
    for (let b = 1; b < blocks; b++) {
      const from = (b - 1) * stride;
      for (let j = 0; j < stride; j++) e += seg[from + perBlock + j]! - seg[from + j]!;
      powers[b] = e / block;
    }
  }
  // Gates compared as powers: -70 LUFS absolute, then 10 LU under the mean of what passed.
  const toPower = (lufs: number): number => Math.pow(10, (lufs + 0.691) / 10);
  const absGate = toPower(-70);
  let sum = 0,
    count = 0;
  for (let b = 0; b < blocks; b++) {
    const p = powers[b]!;
    if (p > absGate) {
      sum += p;
      count++;
    }
  }
  if (!count) return -Infinity;
  const relGate = (sum / count) * Math.pow(10, -1);
  let relSum = 0,
    relCount = 0;
  for (let b = 0; b < blocks; b++) {
    const p = powers[b]!;
    if (p > absGate && p > relGate) {
      relSum += p;
      relCount++;
    }
  }
  return -0.691 + 10 * Math.log10(relSum / relCount);
}

export function peakDbfs(samples: Float32Array): number {
  let p = 0;
  for (let i = 0; i < samples.length; i++) p = Math.max(p, Math.abs(samples[i]!));
  return 20 * Math.log10(p || 1e-12);
}

/** Gain towards `targetLufs`, then a limiter that keeps every sample under the ceiling. */
export function normalizeLoudness(
  samples: Float32Array,
  sampleRate: number,
  targetLufs = TARGET_LUFS,
  ceilingDbfs = PEAK_CEILING_DBFS,
): Float32Array {
  const ceiling = Math.pow(10, ceilingDbfs / 20);
  let out = samples;
  // The limiter takes a little loudness back; a second pass makes most of it up.
  for (let pass = 0; pass < 2; pass++) {
    const measured = integratedLoudness(out, sampleRate);
    if (!Number.isFinite(measured) || Math.abs(targetLufs - measured) < 0.2) break;
    const gain = Math.pow(10, Math.min(30, targetLufs - measured) / 20);
    // The caller's samples are left alone; the second pass works on the array the first made.
    const next = out === samples ? new Float32Array(out.length) : out;
    for (let i = 0; i < out.length; i++) next[i] = out[i]! * gain;
    out = limit(next, sampleRate, ceiling);
  }
  return out;
}

/** Look-ahead limiter: the gain at each sample is the minimum needed within ±5 ms, released over 60 ms. */
export function limit(x: Float32Array, sampleRate: number, ceiling: number): Float32Array {
  const n = x.length;
  let first = -1;
  for (let i = 0; i < n; i++)
    if (Math.abs(x[i]!) > ceiling) {
      first = i;
      break;
    }
  if (first < 0) return x;
  const la = Math.max(1, Math.round(0.005 * sampleRate));
  const w = 2 * la + 1;
  // The gain each sample needs, with `la` samples of 1 on both sides so every window is whole.
  const m = n + 2 * la;
  const need = new Float32Array(m).fill(1);
  // Blocks of w with a sample over the ceiling; every other block's minima are 1 and left as filled.
  const blocks = Math.ceil(m / w);
  const loud = new Uint8Array(blocks);
  for (let i = first; i < n; i++) {
    const a = Math.abs(x[i]!);
    if (a > ceiling) {
      need[i + la] = ceiling / a;
      loud[((i + la) / w) | 0] = 1;
    }
  }
  // Sliding minimum over windows of w (van Herk / Gil-Werman): minima from each w-block's start
  // and to its end; a window spans at most two blocks, so its minimum is one of each.
  const fromStart = new Float32Array(m).fill(1);
  const toEnd = new Float32Array(m).fill(1);
  for (let b = 0; b < blocks; b++) {
    if (!loud[b]) continue;
    const start = b * w;
    const end = Math.min(m, start + w);
    let lo = 1;
    for (let i = start; i < end; i++) fromStart[i] = lo = Math.min(lo, need[i]!);
    lo = 1;
    for (let i = end - 1; i >= start; i--) toEnd[i] = lo = Math.min(lo, need[i]!);
  }
  const release = 1 - Math.exp(-1 / (0.06 * sampleRate));
  let cur = 1;
  // Before the window of the first loud sample the gain is 1 and nothing changes.
  for (let i = Math.max(0, first - la); i < n; i++) {
    // Window [i - la, i + la] of x is [i, i + 2la] of the padded array.
    const gi = Math.min(toEnd[i]!, fromStart[i + w - 1]!);
    cur = cur + (1 - cur) * release;
    if (gi < cur) cur = gi;
    x[i] = x[i]! * cur;
  }
  return x;
}

/**
 * `limit` for audio that arrives piece by piece: the same gain curve, sample for sample, each
 * sample given out once the 5 ms after it have arrived (a sliding minimum kept in a monotonic
 * queue). `push` returns the samples that are final; `end` the rest.
 */
export class LimiterStream {
  private readonly la: number;
  private readonly release: number;
  private x = new Float32Array(4096);
  /** Samples received. */
  private n = 0;
  /** Next sample to give out. */
  private i = 0;
  private cur = 1;
  /** The monotonic queue of needed gains under 1 (index, gain), oldest first. */
  private qIdx: number[] = [];
  private qVal: number[] = [];
  private qHead = 0;

  constructor(
    sampleRate: number,
    private readonly ceiling: number,
  ) {
    this.la = Math.max(1, Math.round(0.005 * sampleRate));
    this.release = 1 - Math.exp(-1 / (0.06 * sampleRate));
  }

  push(samples: Float32Array): Float32Array {
    if (this.n + samples.length > this.x.length) {
      const grown = new Float32Array(Math.max(this.x.length * 2, this.n + samples.length));
      grown.set(this.x.subarray(0, this.n));
      this.x = grown;
    }
    this.x.set(samples, this.n);
    const out = new Float32Array(Math.max(0, this.n + samples.length - this.la - this.i));
    const from = this.i;
    const ceiling = this.ceiling;
    for (let j = this.n; j < this.n + samples.length; j++) {
      const a = Math.abs(this.x[j]!);
      if (a > ceiling) {
        // The gain this sample needs, rounded as `limit` stores it.
        const v = Math.fround(ceiling / a);
        while (this.qVal.length > this.qHead && this.qVal[this.qVal.length - 1]! >= v) {
          this.qVal.pop();
          this.qIdx.pop();
        }
        this.qIdx.push(j);
        this.qVal.push(v);
      }
      // Sample j completes the window of sample j - la: it is final now, before later samples
      // drop from the queue what this window still needs.
      if (j - this.la >= this.i) out[this.i - from] = this.step();
    }
    this.n += samples.length;
    this.compact();
    return out;
  }

  end(): Float32Array {
    const out = new Float32Array(this.n - this.i);
    const from = this.i;
    while (this.i < this.n) out[this.i - from] = this.step();
    return out;
  }

  /** The limited value of sample `i`, whose whole window has arrived (or the input ended). */
  private step(): number {
    const i = this.i++;
    while (this.qHead < this.qIdx.length && this.qIdx[this.qHead]! < i - this.la) this.qHead++;
    const gi = this.qHead < this.qIdx.length && this.qIdx[this.qHead]! <= i + this.la ? this.qVal[this.qHead]! : 1;
    let cur = this.cur + (1 - this.cur) * this.release;
    if (gi < cur) cur = gi;
    this.cur = cur;
    return this.x[i]! * cur;
  }

  private compact(): void {
    if (this.qHead > 1024) {
      this.qIdx = this.qIdx.slice(this.qHead);
      this.qVal = this.qVal.slice(this.qHead);
      this.qHead = 0;
    }
  }
}
