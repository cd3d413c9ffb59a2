/**
 * The search's workspace for one clip: the views per pitch hypothesis, the slot grid laid under one
 * alignment (speed, the slot's start, from which the tiles' energies and the loud slots follow), and
 * the score of an alignment, interpolated between the 4 ms spectra or (`exact`) analysed to the sample.
 */
import { resamplePolyphase } from '../formats/polyphase.ts';
import { BANDS, BAND_BINS, FIRST_BIN, FRAME, INNER_FIRST, INNER_LAST, RATE, SLOT, WINDOW, frameStart } from './grid.ts';
import { RealFft } from '../dsp/fft.ts';
import type { Pattern } from './pattern.ts';
import { BINS, STEP_HOP, view, type Spectra, type View } from './spectra.ts';
import { FINE_READING, score, unitFloors } from './score.ts';

export interface Hypothesis {
  /** Observed time per embedded time. */
  time: number;
  freq: number;
}

export interface Candidate {
  score: number;
  hyp: Hypothesis;
  phase: number;
  offset: number;
}

/** Each frame's centre within its slot, in samples (frameStart(j) + FRAME / 2). */
const CENTRES = Float64Array.from({ length: INNER_LAST + 1 }, (_, j) => frameStart(j) + FRAME / 2);

/** Energies of each slot's tiles for one hypothesis and phase; returns how many slots fit in the clip. */
function tiles(
  v: View,
  frames: number,
  h: Hypothesis,
  phase: number,
  out: Float64Array,
  level: Float64Array,
  cap = Infinity,
): number {
  const energies = v.energies;
  // Module constants as locals (this runs for every slot of every grid the search lays); the frame
  // centres' offsets within a slot are whole samples, so adding them up front changes no sum.
  const bands = BANDS,
    slot = SLOT,
    half = FRAME / 2,
    hop = STEP_HOP,
    time = h.time,
    lastCentre = frameStart(INNER_LAST) + FRAME / 2;
  const c1 = CENTRES[1]!,
    c2 = CENTRES[2]!,
    c3 = CENTRES[3]!,
    c4 = CENTRES[4]!,
    c5 = CENTRES[5]!,
    c6 = CENTRES[6]!;
  for (let k = 0; ; k++) {
    if (k >= cap) return k;
    // Embedded frame centres, in 8 kHz samples from the slot grid's origin, to fractional detector frames.
    const last = (phase + time * (k * slot + lastCentre) - half) / hop;
    if (Math.floor(last) + 1 >= frames) return k;
    const origin = k * slot;
    // The six inner frames (INNER_FIRST … INNER_LAST, checked below): each one's frame and weights.
    const p1 = (phase + time * (origin + c1) - half) / hop,
      p2 = (phase + time * (origin + c2) - half) / hop,
      p3 = (phase + time * (origin + c3) - half) / hop,
      p4 = (phase + time * (origin + c4) - half) / hop,
      p5 = (phase + time * (origin + c5) - half) / hop,
      p6 = (phase + time * (origin + c6) - half) / hop;
    const f1 = Math.floor(p1),
      f2 = Math.floor(p2),
      f3 = Math.floor(p3),
      f4 = Math.floor(p4),
      f5 = Math.floor(p5),
      f6 = Math.floor(p6);
    const t1 = p1 - f1,
      t2 = p2 - f2,
      t3 = p3 - f3,
      t4 = p4 - f4,
      t5 = p5 - f5,
      t6 = p6 - f6;
    const s1 = 1 - t1,
      s2 = 1 - t2,
      s3 = 1 - t3,
      s4 = 1 - t4,
      s5 = 1 - t5,
      s6 = 1 - t6;
    const r1 = f1 * bands,
      r2 = f2 * bands,
      r3 = f3 * bands,
      r4 = f4 * bands,
      r5 = f5 * bands,
      r6 = f6 * bands;
    const o = k * bands;
    let total = 0;
    // Per band, the frames added in order (as out[b] += … frame by frame from 0: the same sums).
    for (let b = 0; b < bands; b++) {
      let e = 0;
      e = e + s1 * energies[r1 + b]! + t1 * energies[r1 + bands + b]!;
      e = e + s2 * energies[r2 + b]! + t2 * energies[r2 + bands + b]!;
      e = e + s3 * energies[r3 + b]! + t3 * energies[r3 + bands + b]!;
      e = e + s4 * energies[r4 + b]! + t4 * energies[r4 + bands + b]!;
      e = e + s5 * energies[r5 + b]! + t5 * energies[r5 + bands + b]!;
      e = e + s6 * energies[r6 + b]! + t6 * energies[r6 + bands + b]!;
      out[o + b] = e;
      total += e;
    }
    level[k] = total;
  }
}

if (INNER_FIRST !== 1 || INNER_LAST !== 6) throw new Error('tiles() is written out for inner frames 1 to 6');

/** Slots loud enough to carry the mark: within 35 dB of the clip's loud slots. */
function activity(level: Float64Array, slots: number, loud: number, active: Uint8Array): void {
  const min = Math.max(loud * 10 ** -3.5, 1e-9);
  for (let k = 0; k < slots; k++) active[k] = level[k]! > min ? 1 : 0;
}

export class Search {
  readonly views = new Map<number, View>();
  readonly E: Float64Array;
  readonly level: Float64Array;
  readonly active: Uint8Array;
  /** The clip resampled to undo a change of speed, by target rate (see `exact`). */
  private readonly undone = new Map<number, Float64Array>();
  private readonly fft = new RealFft(FRAME);
  private readonly re = new Float64Array(BINS);
  private readonly im = new Float64Array(BINS);
  constructor(
    readonly x: Float64Array,
    readonly sp: Spectra,
    readonly p: Pattern,
  ) {
    const maxSlots = Math.ceil(x.length / (SLOT * 0.9)) + 2;
    this.E = new Float64Array(maxSlots * BANDS);
    this.level = new Float64Array(maxSlots);
    this.active = new Uint8Array(maxSlots);
  }
  view(freq: number): View {
    let v = this.views.get(freq);
    if (!v) this.views.set(freq, (v = view(this.sp, freq)));
    return v;
  }
  /** Per unit, its raised and its lowered bands' floors summed (as `score` sums them). */
  floorSums(freq: number): Float64Array {
    return unitFloors(this.p, this.view(freq).floor);
  }
  /** Lays the slot grid (at most `cap` slots); returns the number of slots. */
  lay(h: Hypothesis, phase: number, cap = Infinity): number {
    const v = this.view(h.freq);
    const slots = tiles(v, this.sp.frames, h, phase, this.E, this.level, cap);
    activity(this.level, slots, v.loud, this.active);
    return slots;
  }
  score(h: Hypothesis, phase: number, offset: number, syncOnly: boolean, reading = FINE_READING): number {
    const slots = this.lay(h, phase);
    return slots ? score(this.p, this.E, this.view(h.freq).floor, this.active, slots, offset, syncOnly, reading) : 0;
  }
  /**
   * The score with each inner frame analysed where the hypothesis puts it, to the sample, instead of
   * interpolated between the 4 ms frames: the last polish, worth about a fifth of the score on
   * voices whose harmonics are sparse.
   */
  exact(h: Hypothesis, phase: number, offset: number, soft?: Float64Array): number {
    const { E, level, active, fft, re, im } = this;
    const v = this.view(h.freq);
    // Time and pitch moved together (a resampling): undo it by resampling back, so each frame and
    // band sees what the embedder saw, instead of band edges moved between the FFT's bins and a
    // window of the wrong length (speed ±5 %: about a fifth of the score back).
    let x = this.x;
    if (h.freq !== 1) {
      const to = Math.round(RATE * h.freq);
      x = this.undone.get(to) ?? new Float64Array(0);
      if (x.length === 0) this.undone.set(to, (x = Float64Array.from(resamplePolyphase(Float32Array.from(this.x), RATE, to))));
      const k = to / RATE;
      phase *= k;
      h = { time: h.time * k, freq: 1 };
    }
    const edges = new Float64Array(BANDS + 1);
    for (let b = 0; b <= BANDS; b++) edges[b] = (FIRST_BIN + b * BAND_BINS - 0.5) * h.freq + 0.5;
    let k = 0;
    for (; ; k++) {
      const lastStart = Math.round(phase + h.time * (k * SLOT + frameStart(INNER_LAST)));
      if (lastStart + FRAME > x.length || k * BANDS + BANDS > E.length) break;
      E.fill(0, k * BANDS, k * BANDS + BANDS);
      let total = 0;
      for (let j = INNER_FIRST; j <= INNER_LAST; j++) {
        const start = Math.round(phase + h.time * (k * SLOT + frameStart(j)));
        fft.forward(x, start, WINDOW, re, im);
        // Power below each edge: whole bins, then the covered part of the next (as bandEnergies).
        let bin = 0,
          below = 0,
          prev = 0;
        for (let b = 0; b <= BANDS; b++) {
          const y = edges[b]!;
          const i = Math.min(BINS - 1, Math.floor(y));
          while (bin < i) {
            below += re[bin]! * re[bin]! + im[bin]! * im[bin]!;
            bin++;
          }
          const cur = below + (y - i) * (re[i]! * re[i]! + im[i]! * im[i]!);
          if (b > 0) {
            E[k * BANDS + b - 1] = E[k * BANDS + b - 1]! + Math.max(0, cur - prev);
            total += Math.max(0, cur - prev);
          }
          prev = cur;
        }
      }
      level[k] = total;
    }
    activity(level, k, v.loud, active);
    return k ? score(this.p, E, v.floor, active, k, offset, false, FINE_READING, soft) : 0;
  }
}
