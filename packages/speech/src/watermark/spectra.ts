/**
 * What the detector reads from a clip: the audio at 8 kHz, one short-time spectrum every 4 ms (a
 * quarter of the embedder's hop, so the search can align to 2 ms), and per pitch hypothesis the
 * bands' energies with the clip's floor and loudness (a `View`).
 */
import { decimatePolyphase } from '../formats/polyphase.ts';
import { BANDS, BAND_BINS, FIRST_BIN, FRAME, HOP, INNER_FIRST, INNER_LAST, RATE, WINDOW } from './grid.ts';
import { RealFft } from '../dsp/fft.ts';

/** The detector's own hop: a quarter of the embedder's, so the search can align to 2 ms. */
export const STEP_HOP = HOP / 4;
export const BINS = FRAME / 2 + 1;

export interface Spectra {
  frames: number;
  /** Per frame, BINS + 1 cumulative powers (cum[i] = power of bins < i). */
  cum: Float64Array;
}

/**
 * The audio at 8 kHz in doubles (the same values): the FFT then reads one kind of array only, as in
 * the embedder, and stays monomorphic.
 */
export function at8k(pcm: Float32Array, sampleRate: number): Float64Array {
  if (sampleRate === RATE) return Float64Array.from(pcm);
  // A whole-number ratio takes the folded filter; any other goes to resamplePolyphase inside it.
  return Float64Array.from(decimatePolyphase(pcm, sampleRate, RATE));
}

export function spectra(x: Float64Array): Spectra {
  const frames = Math.max(0, Math.floor((x.length - FRAME) / STEP_HOP) + 1);
  const cum = new Float64Array(frames * (BINS + 1));
  const fft = new RealFft(FRAME);
  const re = new Float64Array(BINS),
    im = new Float64Array(BINS);
  const top = FIRST_BIN + BANDS * BAND_BINS + 12;
  for (let f = 0; f < frames; f++) {
    fft.forward(x, f * STEP_HOP, WINDOW, re, im);
    const o = f * (BINS + 1);
    let s = 0;
    for (let i = 0; i < BINS; i++) {
      cum[o + i] = s;
      if (i < top) s += re[i]! * re[i]! + im[i]! * im[i]!;
    }
    cum[o + BINS] = s;
  }
  return { frames, cum };
}

/**
 * Band energies per frame with band edges scaled by `freq` (pitch moved by that factor), frame by
 * frame into `out`; band by band into `columns` (BANDS rows of `frames`) and each frame's total
 * into its last row, for the percentiles.
 */
function bandEnergies(sp: Spectra, freq: number, out: Float64Array, columns: Float64Array): void {
  const { frames, cum } = sp;
  // Each edge's whole bins and covered fraction of the next: the same for every frame.
  const whole = new Int32Array(BANDS + 1);
  const part = new Float64Array(BANDS + 1);
  for (let b = 0; b <= BANDS; b++) {
    // Power below continuous bin position y: whole bins, then the covered part of the next.
    const y = (FIRST_BIN + b * BAND_BINS - 0.5) * freq + 0.5;
    const i = Math.min(BINS - 1, Math.floor(y));
    whole[b] = i;
    part[b] = y - i;
  }
  const bands = BANDS,
    stride = BINS + 1,
    block = BLOCK;
  for (let f0 = 0; f0 < frames; f0 += block) {
    const f1 = Math.min(frames, f0 + block);
    for (let f = f0; f < f1; f++) {
      const o = f * stride,
        row = f * bands - 1;
      const i0 = o + whole[0]!;
      let prev = cum[i0]! + part[0]! * (cum[i0 + 1]! - cum[i0]!),
        total = 0;
      for (let b = 1; b <= bands; b++) {
        const i = o + whole[b]!;
        const cur = cum[i]! + part[b]! * (cum[i + 1]! - cum[i]!);
        const e = Math.max(0, cur - prev);
        out[row + b] = e;
        total += e;
        prev = cur;
      }
      columns[bands * frames + f] = total;
    }
    // The block band by band, while its frames are still in the cache.
    for (let b = 0; b < bands; b++) {
      const row = b * frames;
      for (let f = f0; f < f1; f++) columns[row + f] = out[f * bands + b]!;
    }
  }
}

/** Frames per block of `bandEnergies`' transposition. */
const BLOCK = 32;

/** What the search knows about the clip under one pitch hypothesis. */
export interface View {
  energies: Float64Array;
  /** Per band: the clip's floor (a low percentile of the frames' energies), for the units' weights. */
  floor: Float64Array;
  /** A slot's energy that counts as loud in this clip (a high percentile over the frames). */
  loud: number;
}

/**
 * `view`'s scratch: the energies band by band, reordered by the selection; kept between calls up to
 * KEPT doubles (about 4 minutes of audio), longer clips' made per view.
 */
let kept = new Float64Array(0);
const KEPT = 1 << 21;

export function view(sp: Spectra, freq: number): View {
  const { frames } = sp;
  const energies = new Float64Array(frames * BANDS);
  const need = (BANDS + 1) * frames;
  if (kept.length < need && need <= KEPT) kept = new Float64Array(need);
  const scratch = kept.length >= need ? kept : new Float64Array(need);
  bandEnergies(sp, freq, energies, scratch);
  const floor = new Float64Array(BANDS);
  for (let b = 0; b < BANDS; b++)
    floor[b] = select(scratch.subarray(b * frames, (b + 1) * frames), Math.floor(frames * 0.1)) * (INNER_LAST - INNER_FIRST + 1);
  const loud =
    select(scratch.subarray(BANDS * frames, (BANDS + 1) * frames), Math.floor(frames * 0.9)) * (INNER_LAST - INNER_FIRST + 1);
  return { energies, floor, loud };
}

/** The k-th smallest of `a` (reorders it): Hoare's quickselect. */
function select(a: Float64Array, k: number): number {
  let lo = 0,
    hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo,
      j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k]!;
}
