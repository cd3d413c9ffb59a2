/**
 * The first, plain implementation of BS.1770 loudness and the limiter (one array per filter stage,
 * prefix sums, arrays of block powers), kept as the reference the fast one in src/dsp must agree with.
 */

const TARGET_LUFS = -16;
const PEAK_CEILING_DBFS = -1;

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

function filter(x: Float32Array | Float64Array, f: Biquad): Float64Array {
  const y = new Float64Array(x.length);
  let x1 = 0,
    x2 = 0,
    y1 = 0,
    y2 = 0;
  for (let i = 0; i < x.length; i++) {
    const x0 = x[i]!;
    const y0 = f.b0 * x0 + f.b1 * x1 + f.b2 * x2 - f.a1 * y1 - f.a2 * y2;
    y[i] = y0;
    x2 = x1;
    x1 = x0;
    y2 = y1;
    y1 = y0;
  }
  return y;
}

/** Integrated loudness in LUFS; -Infinity for silence. */
export function integratedLoudness(samples: Float32Array, sampleRate: number): number {
  if (samples.length === 0) return -Infinity;
  let y: Float64Array | Float32Array = samples;
  for (const f of kWeighting(sampleRate)) y = filter(y, f);
  const block = Math.round(0.4 * sampleRate);
  const step = Math.round(0.1 * sampleRate);
  // Prefix sums of squares make every 400 ms block O(1).
  const prefix = new Float64Array(y.length + 1);
  for (let i = 0; i < y.length; i++) prefix[i + 1] = prefix[i]! + y[i]! * y[i]!;
  const powers: number[] = [];
  if (y.length < block) powers.push(prefix[y.length]! / y.length);
  else
    for (let start = 0; start + block <= y.length; start += step) powers.push((prefix[start + block]! - prefix[start]!) / block);
  const lufs = (p: number): number => -0.691 + 10 * Math.log10(p);
  const abs = powers.filter((p) => p > 0 && lufs(p) > -70);
  if (!abs.length) return -Infinity;
  const relGate = lufs(abs.reduce((a, b) => a + b, 0) / abs.length) - 10;
  const rel = abs.filter((p) => lufs(p) > relGate);
  return lufs(rel.reduce((a, b) => a + b, 0) / rel.length);
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
    const next = new Float32Array(out.length);
    for (let i = 0; i < out.length; i++) next[i] = out[i]! * gain;
    out = limit(next, sampleRate, ceiling);
  }
  return out;
}

/** Look-ahead limiter: the gain at each sample is the minimum needed within ±5 ms, released over 60 ms. */
export function limit(x: Float32Array, sampleRate: number, ceiling: number): Float32Array {
  const la = Math.max(1, Math.round(0.005 * sampleRate));
  const need = new Float32Array(x.length);
  let any = false;
  for (let i = 0; i < x.length; i++) {
    const a = Math.abs(x[i]!);
    need[i] = a > ceiling ? ceiling / a : 1;
    if (a > ceiling) any = true;
  }
  if (!any) return x;
  // Sliding minimum over [i - la, i + la] with a monotonic deque.
  const g = new Float32Array(x.length);
  const dq: number[] = [];
  let head = 0;
  for (let j = 0; j < x.length + la; j++) {
    if (j < x.length) {
      while (dq.length > head && need[dq[dq.length - 1]!]! >= need[j]!) dq.pop();
      dq.push(j);
    }
    const i = j - la;
    if (i >= 0) {
      while (dq[head]! < i - la) head++;
      g[i] = need[dq[head]!]!;
    }
  }
  const release = 1 - Math.exp(-1 / (0.06 * sampleRate));
  let cur = 1;
  for (let i = 0; i < x.length; i++) {
    cur = Math.min(g[i]!, cur + (1 - cur) * release);
    x[i] = x[i]! * cur;
  }
  return x;
}
