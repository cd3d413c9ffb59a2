/**
 * The search's coarse pass, which only picks candidate alignments for the fine pass: none of its
 * scores is returned. It tries every speed 1 % apart (tempo alone, or time and pitch together,
 * ±6 %), every slot start 8 ms apart and every pattern offset, on the first COARSE_SLOTS slots with
 * the sync units alone, and keeps KEEP.
 */
import {
  BANDS,
  BANDS_PER_UNIT,
  FRAME,
  HOP,
  INNER_FIRST,
  INNER_LAST,
  PERIOD,
  SLOT,
  STEP,
  UNITS,
  UNITS_PER_SLOT,
  frameStart,
} from './grid.ts';
import type { Pattern } from './pattern.ts';
import { STEP_HOP } from './spectra.ts';
import { BASE_SPREAD, COARSE_READING, COS, COS_SIZE, WEIGHT } from './score.ts';
import { UNIT_TERMS_WASM } from './wasm/unit-terms-wasm.ts';
import { instantiate } from './wasm/load.ts';
import type { Candidate, Hypothesis, Search } from './search.ts';

/**
 * The coarse pass looks at the first 4 s at most; the fine pass at everything. A first pass on half
 * the slots handing its best 256 to this one (half the work) found music 10 dB under on 31 clips in
 * 36 on the bench, against 33 and 34 in two runs of this pass (1/√2 of the true alignment's
 * strength against as many unmarked ones); with tempos 2 % apart as well it lost two clips after
 * tempo ±5 %.
 */
export const COARSE_SLOTS = 32;
/**
 * Candidates kept from the coarse pass for refinement: 8 since tempo reads the table of whole-frame
 * slots (with 6, 3 of 1,408 attacked 5 s windows that the laid grids found were lost; with 8, one:
 * white noise 20 dB SNR, 7.80 → 3.75, scratch A/B on 128 clips).
 */
export const KEEP = 8;
/** The coarse phase step: 8 ms. */
const PHASE_STEP = 2 * STEP_HOP;
/** Speeds within ±6 %, in whole percent. */
const MAX_PERCENT = 6;

/** Speeds 0.94–1.06 in steps of 1 %, both kinds; the unchanged speed first. */
const COARSE: Hypothesis[] = [{ time: 1, freq: 1 }];
for (let i = 1; i <= MAX_PERCENT; i++)
  for (const sgn of [-1, 1]) {
    const r = 1 + sgn * i * 0.01;
    COARSE.push({ time: 1 / r, freq: 1 }); // tempo changed, pitch kept (atempo)
    COARSE.push({ time: 1 / r, freq: r }); // played faster: time and pitch together (asetrate)
  }

/**
 * The coarse pass's unit phase, as an index into the cosine table (COS_SIZE per turn), without
 * Math.log: log₂ of the energies' ratio is its double's exponent plus log₂ of its mantissa, read
 * from a table at the mantissa's first MANTISSA_BITS bits (the middle of each interval: off by at
 * most 0.1 of the cosine table's step). Ranking only: the fine pass scores with Math.log.
 */
const MANTISSA_BITS = 14;
/** log₂ in cosine-table steps: ln 2 / STEP turns, COS_SIZE steps a turn. */
const STEPS_PER_OCTAVE = (COS_SIZE * Math.LN2) / STEP;
/** Keeps the index positive before truncation (exponents stay far inside ±1023). */
const BIAS = COS_SIZE * 2048 + 0.5;

/** Raised (and lowered) bands per unit: the pattern has as many of each. */
const HALF = BANDS_PER_UNIT / 2;
if (
  HALF !== 2 ||
  BANDS !== 32 ||
  PERIOD !== 96 ||
  UNITS_PER_SLOT !== 8 ||
  COS_SIZE !== 4096 ||
  MANTISSA_BITS !== 14 ||
  COARSE_SLOTS !== 32
)
  throw new Error('wasm/unit-terms.c is written for 2 + 2 bands a unit, 32 bands, 96 × 8 units, 4096 cosines, 32 slots');
// The kernel multiplies the floors by the reading's floor once, and uses the products for the spread
// too: the same numbers only if both are the same power of two (a scaling by it is exact).
if (COARSE_READING.floor !== COARSE_READING.spread || Math.log2(COARSE_READING.floor) % 1 !== 0)
  throw new Error("wasm/unit-terms.c needs the coarse reading's floor and spread the same power of two");

/** A pattern's sync units in slot order, each with its raised and its lowered bands in the unit's order. */
interface SyncLayout {
  /** Sync units of slot q: units[first[q]] … units[first[q + 1] − 1], by unit index. */
  first: Int32Array;
  units: Int32Array;
  up: Uint8Array;
  down: Uint8Array;
  /** In cosine-table steps. */
  dither: Float64Array;
}

const layouts = new WeakMap<Pattern, SyncLayout>();

function syncLayout(p: Pattern): SyncLayout {
  let l = layouts.get(p);
  if (l) return l;
  const list: number[] = [];
  const first = new Int32Array(PERIOD + 1);
  for (let q = 0; q < PERIOD; q++) {
    first[q] = list.length;
    for (let u = 0; u < UNITS_PER_SLOT; u++) if (p.bit[q * UNITS_PER_SLOT + u]! < 0) list.push(q * UNITS_PER_SLOT + u);
  }
  first[PERIOD] = list.length;
  const units = Int32Array.from(list);
  const up = new Uint8Array(units.length * HALF),
    down = new Uint8Array(units.length * HALF),
    dither = new Float64Array(units.length);
  for (let j = 0; j < units.length; j++) {
    const unit = units[j]!;
    let nu = 0,
      nd = 0;
    for (let i = 0; i < BANDS_PER_UNIT; i++) {
      const b = p.bands[unit * BANDS_PER_UNIT + i]!;
      if (p.signs[unit * BANDS_PER_UNIT + i]! > 0) up[j * HALF + nu++] = b;
      else down[j * HALF + nd++] = b;
    }
    if (nu !== HALF || nd !== HALF) throw new Error('a watermark unit must raise as many bands as it lowers');
    dither[j] = p.dither[unit]! * COS_SIZE;
  }
  layouts.set(p, (l = { first, units, up, down, dither }));
  return l;
}

/** Slots the kernel takes at once (in fours): a grid's COARSE_SLOTS. */
const BATCH = COARSE_SLOTS;
/** Rows of the kernel's table of slots starting at each frame (unit-terms.c: MAX_FRAMES). */
const MAX_FRAMES = 1280;
/** The kernel's tables: the laid grid's slots (`fill`), the slots starting at each frame (`place`). */
const SLOTS = 0,
  FRAMES = 1;

/**
 * The coarse pass's kernel (wasm/unit-terms.c). `run` computes, per slot staged in `energies` (four
 * slots side by side per band), per pattern slot, its sync units' Σ w·cos θ and Σ w², as coarse.ts
 * computed them in JavaScript until it (every operation in the same order in double precision, so
 * the same bits), four slots at a time in SIMD lanes, into the row `staged` names of one of its two
 * tables; `offsetScores` adds up a grid's rows (`rows`, `active`) at every offset into `scores`, as
 * `score` does. One instance per thread, made on first use; it holds the pattern and the pitch's
 * floors it was last given.
 */
interface Kernel {
  run: (fours: number, table: number) => void;
  offsetScores: (slots: number, table: number) => void;
  energies: Float64Array;
  staged: Int32Array;
  /** Per table: its terms and its weights. */
  terms: [Float64Array, Float64Array];
  weights: [Float64Array, Float64Array];
  rows: Int32Array;
  active: Uint8Array;
  scores: Float64Array;
  /** Per sync unit: nu and nd times COARSE_READING.floor (= its spread), its dither. */
  units: Float64Array;
  bands: Uint16Array;
  first: Int32Array;
  layout?: SyncLayout;
  floors?: Float64Array;
  /** The table whose frames the table of frames holds. */
  frames?: SyncTable;
}

let instance: Kernel | undefined;

function unitKernel(): Kernel {
  if (instance) return instance;
  const { exports: x, buffer, at, f64 } = instantiate(UNIT_TERMS_WASM);
  f64('mantissa', 1 << MANTISSA_BITS).set(
    Float64Array.from(
      { length: 1 << MANTISSA_BITS },
      (_, i) => Math.log2(1 + (i + 0.5) / (1 << MANTISSA_BITS)) * STEPS_PER_OCTAVE,
    ),
  );
  f64('cosine', COS_SIZE + 1).set(COS);
  f64('constants', 4).set([BASE_SPREAD, WEIGHT, STEPS_PER_OCTAVE, BIAS]);
  return (instance = {
    run: x.unitTerms as (fours: number, table: number) => void,
    offsetScores: x.offsetScores as (slots: number, table: number) => void,
    energies: f64('energies', BATCH * BANDS),
    staged: new Int32Array(buffer, at('staged'), BATCH),
    terms: [f64('slotTerms', COARSE_SLOTS * PERIOD), f64('frameTerms', MAX_FRAMES * PERIOD)],
    weights: [f64('slotWeights', COARSE_SLOTS * PERIOD), f64('frameWeights', MAX_FRAMES * PERIOD)],
    rows: new Int32Array(buffer, at('rows'), COARSE_SLOTS),
    active: new Uint8Array(buffer, at('active'), COARSE_SLOTS),
    scores: f64('scores', PERIOD),
    units: f64('units', 3 * UNITS),
    bands: new Uint16Array(buffer, at('bands'), BANDS_PER_UNIT * UNITS),
    first: new Int32Array(buffer, at('first'), PERIOD + 1),
  });
}

/**
 * The coarse pass's sync-unit scores at every pattern offset of a grid of COARSE_SLOTS slots. Over the
 * PERIOD offsets each slot meets every unit exactly once, so each sync unit's term (w·cos θ and w², as
 * in `score`, the phase read without Math.log) is computed once per slot and `score` only adds them
 * up. Under a changed pitch (`fill`) the terms are computed for the slots `s` has laid; under the
 * unchanged pitch (`place`) they come from a table of slots starting at each 4 ms frame, computed
 * once for every tempo: a changed tempo moves where the slots start, and the slot starting at the
 * nearest frame stands for each (its inner frames off by up to 2.5 ms at ±6 %, against the 8 ms
 * phase step; the fine pass aligns to 2 ms and scores the laid grid itself). The terms and the sums
 * are the kernel's, one per thread: `score` and `scores` read what the last `fill` or `place` left,
 * and a table whose frames another table's have replaced computes them again.
 */
export class SyncTable {
  /** Per slot starting at each frame (unchanged pitch): whether it is loud; `done` marks the frames computed. */
  private readonly frameActive: Uint8Array;
  private readonly done: Uint8Array;
  /** The table `fill` or `place` last used: SLOTS or FRAMES. */
  private table = SLOTS;
  private readonly slotE = new Float64Array(BANDS);
  private readonly layout: SyncLayout;
  private readonly kernel = unitKernel();
  /** Per pitch hypothesis, per sync unit: its raised and its lowered bands' floors (`Search.floorSums`). */
  private readonly floors = new Map<number, Float64Array>();
  constructor(private readonly s: Search) {
    this.layout = syncLayout(s.p);
    const frames = s.sp.frames;
    this.frameActive = new Uint8Array(frames);
    this.done = new Uint8Array(frames);
  }
  private floorsOf(freq: number): Float64Array {
    let f = this.floors.get(freq);
    if (f) return f;
    const sums = this.s.floorSums(freq);
    const { units } = this.layout;
    f = new Float64Array(2 * units.length);
    for (let j = 0; j < units.length; j++) {
      f[2 * j] = sums[2 * units[j]!]!;
      f[2 * j + 1] = sums[2 * units[j]! + 1]!;
    }
    this.floors.set(freq, f);
    return f;
  }
  /** Gives the kernel this table's pattern and the floors of pitch `freq`, unless it has them. */
  private load(freq: number): void {
    const k = this.kernel,
      l = this.layout,
      floors = this.floorsOf(freq);
    if (k.layout === l && k.floors === floors) return;
    const { up, down, units, dither } = l;
    const floorBy = COARSE_READING.floor;
    for (let j = 0; j < units.length; j++) {
      // Byte offsets into four slots' energies: 4 doubles a band.
      k.bands[4 * j] = up[2 * j]! * 32;
      k.bands[4 * j + 1] = up[2 * j + 1]! * 32;
      k.bands[4 * j + 2] = down[2 * j]! * 32;
      k.bands[4 * j + 3] = down[2 * j + 1]! * 32;
      k.units[3 * j] = floorBy * floors[2 * j]!;
      k.units[3 * j + 1] = floorBy * floors[2 * j + 1]!;
      k.units[3 * j + 2] = dither[j]!;
    }
    k.first.set(l.first);
    k.layout = l;
    k.floors = floors;
  }
  /** Stages slot number `n` of a batch, whose tile energies are E[e … e + BANDS), for row `row` of a table. */
  private stage(n: number, E: Float64Array, e: number, row: number): void {
    const energies = this.kernel.energies,
      bands = BANDS;
    const at = (n >> 2) * 4 * bands + (n & 3);
    for (let b = 0; b < bands; b++) energies[at + 4 * b] = E[e + b]!;
    this.kernel.staged[n] = row;
  }
  /** The sync terms of the `n` staged slots, summed per pattern slot, each into its row of `table`. */
  private flush(n: number, table: number): void {
    if (n === 0) return;
    const k = this.kernel;
    // The last four's empty places take copies of its first slot and its row (the same numbers twice).
    const energies = k.energies,
      first = n & ~3,
      at = (n >> 2) * 4 * BANDS;
    for (let i = n & 3; i > 0 && i < 4; i++) {
      for (let b = 0; b < BANDS; b++) energies[at + 4 * b + i] = energies[at + 4 * b]!;
      k.staged[first + i] = k.staged[first]!;
    }
    k.run((n + 3) >> 2, table);
  }
  /** Each laid slot's sync terms, under the pitch hypothesis `freq`. */
  fill(freq: number, slots: number): void {
    const { E, active } = this.s;
    const { rows, active: loud } = this.kernel;
    this.load(freq);
    let n = 0;
    for (let k = 0; k < slots; k++) {
      rows[k] = k * PERIOD;
      loud[k] = active[k]!;
      if (active[k]) this.stage(n++, E, k * BANDS, k * PERIOD);
    }
    this.flush(n, SLOTS);
    this.table = SLOTS;
  }
  /**
   * The grid of a hypothesis with the pitch unchanged (tempo alone, or none), each slot read from the
   * slot starting at the nearest frame; returns the number of slots, as `Search.lay` would.
   */
  place(time: number, phase: number): number {
    const v = this.s.view(1);
    const { energies, loud } = v;
    const frames = this.s.sp.frames;
    this.load(1);
    const { slotE, frameActive, done } = this;
    if (this.kernel.frames !== this) {
      done.fill(0);
      this.kernel.frames = this;
    }
    const { rows, active } = this.kernel;
    const min = Math.max(loud * 10 ** -3.5, 1e-9);
    const span = frameStart(INNER_LAST) - frameStart(INNER_FIRST);
    const width = span / STEP_HOP;
    let k = 0,
      n = 0;
    for (; k < COARSE_SLOTS; k++) {
      // As `tiles`: the slot fits if its last inner frame does.
      const last = (phase + time * (k * SLOT + frameStart(INNER_LAST) + FRAME / 2) - FRAME / 2) / STEP_HOP;
      if (Math.floor(last) + 1 >= frames) break;
      // The frame of the first inner frame of the unchanged slot with the same centre.
      const centre = (phase + time * (k * SLOT + frameStart(INNER_FIRST) + span / 2 + FRAME / 2) - FRAME / 2) / STEP_HOP;
      const f = Math.round(centre - width / 2);
      if (f < 0 || f + width >= frames) break;
      if (f >= MAX_FRAMES) throw new Error("a coarse slot starts past the kernel's table of frames");
      if (!done[f]) {
        // The slot's tiles as `tiles` sums them at the unchanged speed (every frame whole).
        slotE.fill(0);
        for (let j = 0; j <= width; j += HOP / STEP_HOP)
          for (let b = 0; b < BANDS; b++) slotE[b] = slotE[b]! + energies[(f + j) * BANDS + b]!;
        let total = 0;
        for (let b = 0; b < BANDS; b++) total += slotE[b]!;
        frameActive[f] = total > min ? 1 : 0;
        if (frameActive[f]) this.stage(n++, slotE, 0, f * PERIOD);
        done[f] = 1;
      }
      rows[k] = f * PERIOD;
      active[k] = frameActive[f]!;
    }
    this.flush(n, FRAMES);
    this.table = FRAMES;
    return k;
  }
  /**
   * `score` at every pattern offset (PERIOD entries, valid until the next call): the same sums,
   * slot by slot in the same order.
   */
  scores(slots: number): Float64Array {
    this.kernel.offsetScores(slots, this.table);
    return this.kernel.scores;
  }
  /** The score at pattern offset `offset` from the terms `fill` or `place` left. */
  score(slots: number, offset: number): number {
    const { rows, active } = this.kernel;
    const from = this.kernel.terms[this.table]!,
      fromWeights = this.kernel.weights[this.table]!;
    const period = PERIOD;
    let sum = 0,
      norm = 0;
    for (let k = 0; k < slots; k++) {
      if (!active[k]) continue;
      let q = k + offset;
      if (q >= period) q -= period;
      sum += from[rows[k]! + q]!;
      norm += fromWeights[rows[k]! + q]!;
    }
    return norm > 0 ? sum / Math.sqrt(norm / 2) : 0;
  }
}

/** Adds `c` to `top` (best first) if it is among the best `keep`. */
function offer(top: Candidate[], c: Candidate, keep: number): void {
  if (top.length >= keep && c.score <= top[top.length - 1]!.score) return;
  let i = top.length;
  while (i > 0 && top[i - 1]!.score < c.score) i--;
  top.splice(i, 0, c);
  if (top.length > keep) top.pop();
}

/** The coarse pass at one speed: every start 8 ms apart, every offset, sync units only. */
function coarseSpeed(s: Search, table: SyncTable, hyp: Hypothesis, top: Candidate[]): void {
  const slotLen = SLOT * hyp.time;
  const period = PERIOD,
    keep = KEEP;
  for (let phase = 0; phase < slotLen; phase += PHASE_STEP) {
    let slots: number;
    if (hyp.freq === 1) slots = table.place(hyp.time, phase);
    else if ((slots = s.lay(hyp, phase, COARSE_SLOTS)) > 0) table.fill(hyp.freq, slots);
    if (slots === 0) continue;
    const scores = table.scores(slots);
    for (let o = 0; o < period; o++) {
      const sc = scores[o]!;
      if (top.length < keep || sc > top[top.length - 1]!.score) offer(top, { score: sc, hyp, phase, offset: o }, keep);
    }
  }
}

/**
 * The coarse pass over every speed; returns its best KEEP. `first` sees the unchanged speed's
 * candidates before the other speeds are tried: if it returns a candidate the search stops there.
 */
export function coarse(s: Search, first?: (top: Candidate[]) => Candidate | undefined): Candidate[] | Candidate {
  const table = new SyncTable(s);
  const top: Candidate[] = [];
  for (const hyp of COARSE) {
    coarseSpeed(s, table, hyp, top);
    if (first && hyp === COARSE[0] && top.length > 0) {
      const found = first(top.slice(0, 1));
      if (found) return found;
    }
  }
  return top;
}
