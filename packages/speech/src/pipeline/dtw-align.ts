/**
 * The generic aligner, for engines that report no word times: the produced audio is aligned by dynamic time warping
 * of its cepstra against an eSpeak NG rendering of the same text, whose word times are known, and each word's bounds
 * are carried through the warping path (the method of Aeneas and Echogarden).
 */
import { resamplePolyphase } from '../formats/polyphase.ts';
import { RealFft } from '../dsp/fft.ts';
import type { WordTiming } from '../core/types.ts';

/** Rates under this (or whose 20 ms is not whole samples) are brought to it first; others are read as they are. */
const RATE = 16000;
/** 20 ms frames: a quarter of the cells of 10 ms ones, for a few milliseconds more error on word starts. */
const HOP_SEC = 0.02;
/** Each frame's window: 32 ms (Hann), in an FFT of the next power of two. */
const WINDOW_SEC = 0.032;
const MELS = 26;
const CEPS = 13;

interface Tables {
  fft: RealFft;
  size: number;
  hop: number;
  window: Float64Array;
  mel: Float64Array[];
  bins: [number, number][];
  dct: Float64Array[];
}
const shared = new Map<number, Tables>();

/** The rate features are computed at: the audio's own when it can be (no resampling), else 16 kHz. */
const featureRate = (rate: number): number => (rate >= RATE && Number.isInteger(rate * HOP_SEC) ? rate : RATE);

/** The filterbank and transforms for one rate: the same bands in hertz at every rate, so features compare across rates. */
function tables(rate: number): Tables {
  const kept = shared.get(rate);
  if (kept) return kept;
  const span = Math.round(WINDOW_SEC * rate);
  let size = 1;
  while (size < span) size *= 2;
  const window = new Float64Array(size);
  for (let i = 0; i < span; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (span - 1));
  const toMel = (f: number) => 2595 * Math.log10(1 + f / 700);
  const fromMel = (m: number) => 700 * (10 ** (m / 2595) - 1);
  const lo = toMel(80);
  const hi = toMel(7600);
  const edges = Array.from({ length: MELS + 2 }, (_, i) => (fromMel(lo + ((hi - lo) * i) / (MELS + 1)) * size) / rate);
  const mel = Array.from({ length: MELS }, (_, m) => {
    const f = new Float64Array(size / 2 + 1);
    const [a, b, c] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    for (let k = 0; k <= size / 2; k++) f[k] = k > a && k < c ? (k <= b ? (k - a) / (b - a) : (c - k) / (c - b)) : 0;
    // Every filter weighs its band alike whatever the rate: a wider FFT has more bins per hertz.
    const total = f.reduce((x, y) => x + y, 0) || 1;
    for (let k = 0; k <= size / 2; k++) f[k] = f[k]! / total;
    return f;
  });
  const dct = Array.from({ length: CEPS }, (_, n) => {
    const row = new Float64Array(MELS);
    for (let m = 0; m < MELS; m++) row[m] = Math.cos((Math.PI * n * (m + 0.5)) / MELS);
    return row;
  });
  // Each filter's non-zero bins, so a frame's filterbank costs its triangles only.
  const bins = mel.map((f): [number, number] => {
    let a = 0;
    while (a < f.length && f[a] === 0) a++;
    let b = f.length;
    while (b > a && f[b - 1] === 0) b--;
    return [a, b];
  });
  const t = { fft: new RealFft(size), size, hop: Math.round(rate * HOP_SEC), window, mel, bins, dct };
  shared.set(rate, t);
  return t;
}

/** MFCCs (c0..c12) every 20 ms, each coefficient normalized to zero mean and unit variance over the utterance. */
export function cepstra(samples: Float32Array, rate: number): { data: Float32Array; frames: number } {
  const at = featureRate(rate);
  const x = rate === at ? samples : resamplePolyphase(samples, rate, at);
  const { fft, size, hop, window, mel, bins, dct } = tables(at);
  const frames = Math.max(1, Math.ceil(x.length / hop));
  const padded = new Float32Array(frames * hop + size);
  padded.set(x, Math.round(WINDOW_SEC * at) >> 1);
  const re = new Float64Array(size / 2 + 1);
  const im = new Float64Array(size / 2 + 1);
  const power = new Float64Array(size / 2 + 1);
  const logMel = new Float64Array(MELS);
  const data = new Float32Array(frames * CEPS);
  for (let f = 0; f < frames; f++) {
    fft.forward(padded, f * hop, window, re, im);
    for (let k = 0; k <= size / 2; k++) power[k] = re[k]! * re[k]! + im[k]! * im[k]!;
    for (let m = 0; m < MELS; m++) {
      const filter = mel[m]!;
      let sum = 0;
      for (let k = bins[m]![0]; k < bins[m]![1]; k++) sum += filter[k]! * power[k]!;
      logMel[m] = Math.log(sum + 1e-8);
    }
    for (let n = 0; n < CEPS; n++) {
      let sum = 0;
      for (let m = 0; m < MELS; m++) sum += dct[n]![m]! * logMel[m]!;
      data[f * CEPS + n] = sum;
    }
  }
  for (let n = 0; n < CEPS; n++) {
    let mean = 0;
    for (let f = 0; f < frames; f++) mean += data[f * CEPS + n]!;
    mean /= frames;
    let variance = 0;
    for (let f = 0; f < frames; f++) variance += (data[f * CEPS + n]! - mean) ** 2;
    const sd = Math.sqrt(variance / frames) || 1;
    for (let f = 0; f < frames; f++) data[f * CEPS + n] = (data[f * CEPS + n]! - mean) / sd;
  }
  return { data, frames };
}

/**
 * The warping path between two feature sequences (Euclidean distance, steps (1,1), (1,0), (0,1)), within a band
 * of 15 % of the length around the line from corner to corner (which takes up their difference in overall tempo): for
 * each frame of `a`, the first and last frame of `b` it is matched with.
 */
export function warp(a: { data: Float32Array; frames: number }, b: { data: Float32Array; frames: number }) {
  const n = a.frames;
  const m = b.frames;
  const band = Math.max(15, Math.ceil(Math.max(n, m) * 0.15));
  const cost = new Float64Array(n * m).fill(Infinity);
  const A = a.data;
  const B = b.data;
  for (let i = 0; i < n; i++) {
    const centre = Math.round((i * (m - 1)) / Math.max(1, n - 1));
    const j0 = Math.max(0, centre - band);
    const j1 = Math.min(m - 1, centre + band);
    const ai = i * CEPS;
    const row = i * m;
    const prev = row - m;
    for (let j = j0; j <= j1; j++) {
      // Euclidean distance of the two frames' cepstra, written out: this loop is the aligner's whole cost.
      const bj = j * CEPS;
      let s = 0;
      for (let k = 0; k < CEPS; k++) {
        const d = A[ai + k]! - B[bj + k]!;
        s += d * d;
      }
      const d = Math.sqrt(s);
      if (i === 0) {
        cost[j] = j === 0 ? d : d + cost[j - 1]!;
        continue;
      }
      let best = cost[prev + j]!;
      if (j > 0) {
        const diag = cost[prev + j - 1]!;
        const left = cost[row + j - 1]!;
        if (diag < best) best = diag;
        if (left < best) best = left;
      }
      cost[row + j] = d + best;
    }
  }
  const first = new Int32Array(n).fill(m);
  const last = new Int32Array(n).fill(-1);
  let i = n - 1;
  let j = m - 1;
  for (;;) {
    first[i] = Math.min(first[i]!, j);
    last[i] = Math.max(last[i]!, j);
    if (i === 0 && j === 0) break;
    const diag = i > 0 && j > 0 ? cost[(i - 1) * m + j - 1]! : Infinity;
    const up = i > 0 ? cost[(i - 1) * m + j]! : Infinity;
    const left = j > 0 ? cost[i * m + j - 1]! : Infinity;
    if (diag <= up && diag <= left) {
      i--;
      j--;
    } else if (up <= left) i--;
    else j--;
  }
  return { first, last };
}

/**
 * The words of a reference rendering (samples and word times) carried onto the produced audio of the same text:
 * a word starts where the path first meets its first frame and ends where it last meets its last one.
 */
export function alignByReference(
  produced: { samples: Float32Array; sampleRate: number },
  reference: { samples: Float32Array; sampleRate: number; words: readonly WordTiming[] },
): WordTiming[] {
  const ref = cepstra(reference.samples, reference.sampleRate);
  const out = cepstra(produced.samples, produced.sampleRate);
  const { first, last } = warp(ref, out);
  const frameOf = (t: number) => Math.min(ref.frames - 1, Math.max(0, Math.round(t / HOP_SEC)));
  const duration = produced.samples.length / produced.sampleRate;
  return reference.words.map((w) => {
    const a = frameOf(w.start);
    const b = Math.max(a, frameOf(w.end) - 1);
    const start = Math.min(duration, first[a]! * HOP_SEC);
    const end = Math.min(duration, Math.max(start, (last[b]! + 1) * HOP_SEC));
    return { word: w.word, start, end };
  });
}
