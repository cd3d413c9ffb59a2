/**
 * What the detector reads from a clip: the audio at 8 kHz, one short-time spectrum every 4 ms (a
 * quarter of the embedder's hop, so the search can align to 2 ms), and per pitch hypothesis the
 * bands' energies with the clip's floor and loudness (a `View`).
 */
import { resamplePolyphase } from '../formats/polyphase.ts';
import { BANDS, BAND_BINS, FIRST_BIN, FRAME, HOP, INNER_FIRST, INNER_LAST, RATE, WINDOW } from './grid.ts';
import { RealFft } from './fft.ts';

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
  return Float64Array.from(sampleRate === RATE ? pcm : resamplePolyphase(pcm, sampleRate, RATE));
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

/** Band energies per frame with band edges scaled by `freq` (pitch moved by that factor). */
function bandEnergies(sp: Spectra, freq: number): Float64Array {
  const out = new Float64Array(sp.frames * BANDS);
  const edges = new Float64Array(BANDS + 1);
  for (let b = 0; b <= BANDS; b++) edges[b] = (FIRST_BIN + b * BAND_BINS - 0.5) * freq;
  for (let f = 0; f < sp.frames; f++) {
    const o = f * (BINS + 1);
    let prev = 0;
    for (let b = 0; b <= BANDS; b++) {
      // Power below continuous bin position x: whole bins, then the covered part of the next.
      const y = edges[b]! + 0.5;
      const i = Math.min(BINS - 1, Math.floor(y));
      const cur = sp.cum[o + i]! + (y - i) * (sp.cum[o + i + 1]! - sp.cum[o + i]!);
      if (b > 0) out[f * BANDS + b - 1] = Math.max(0, cur - prev);
      prev = cur;
    }
  }
  return out;
}

/** What the search knows about the clip under one pitch hypothesis. */
export interface View {
  energies: Float64Array;
  /** Per band: the clip's floor (a low percentile of the frames' energies), for the units' weights. */
  floor: Float64Array;
  /** A slot's energy that counts as loud in this clip (a high percentile over the frames). */
  loud: number;
}

export function view(sp: Spectra, freq: number): View {
  const energies = bandEnergies(sp, freq);
  const floor = new Float64Array(BANDS);
  const column = new Float64Array(sp.frames);
  for (let b = 0; b < BANDS; b++) {
    for (let f = 0; f < sp.frames; f++) column[f] = energies[f * BANDS + b]!;
    floor[b] = select(column, Math.floor(sp.frames * 0.1)) * (INNER_LAST - INNER_FIRST + 1);
  }
  for (let f = 0; f < sp.frames; f++) {
    let t = 0;
    for (let b = 0; b < BANDS; b++) t += energies[f * BANDS + b]!;
    column[f] = t;
  }
  const loud = select(column, Math.floor(sp.frames * 0.9)) * (INNER_LAST - INNER_FIRST + 1);
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
