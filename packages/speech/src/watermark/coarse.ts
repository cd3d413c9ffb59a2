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
  UNITS_PER_SLOT,
  frameStart,
} from './grid.ts';
import type { Pattern } from './pattern.ts';
import { STEP_HOP } from './spectra.ts';
import { BASE_SPREAD, COARSE_READING, COS, COS_SIZE, WEIGHT } from './score.ts';
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
const MASK = (1 << MANTISSA_BITS) - 1;
/** log₂ in cosine-table steps: ln 2 / STEP turns, COS_SIZE steps a turn. */
const STEPS_PER_OCTAVE = (COS_SIZE * Math.LN2) / STEP;
const MANTISSA = Float64Array.from(
  { length: 1 << MANTISSA_BITS },
  (_, i) => Math.log2(1 + (i + 0.5) / (1 << MANTISSA_BITS)) * STEPS_PER_OCTAVE,
);
/** Keeps the index positive before truncation (exponents stay far inside ±1023). */
const BIAS = COS_SIZE * 2048 + 0.5;
const bits = new Float64Array(1);
const words = new Int32Array(bits.buffer);
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** Raised (and lowered) bands per unit: the pattern has as many of each. */
const HALF = BANDS_PER_UNIT / 2;

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

/**
 * The coarse pass's sync-unit scores at every pattern offset of a grid of COARSE_SLOTS slots. Over the
 * PERIOD offsets each slot meets every unit exactly once, so each sync unit's term (w·cos θ and w², as
 * in `score`, the phase read without Math.log) is computed once per slot and `score` only adds them
 * up. Under a changed pitch (`fill`) the terms are computed for the slots `s` has laid; under the
 * unchanged pitch (`place`) they come from a table of slots starting at each 4 ms frame, computed
 * once for every tempo: a changed tempo moves where the slots start, and the slot starting at the
 * nearest frame stands for each (its inner frames off by up to 2.5 ms at ±6 %, against the 8 ms
 * phase step; the fine pass aligns to 2 ms and scores the laid grid itself).
 */
export class SyncTable {
  /** Per laid slot, per pattern slot: its sync units' Σ w·cos θ and Σ w². */
  private readonly terms: Float64Array;
  private readonly weights: Float64Array;
  /** Per slot starting at each frame (unchanged pitch), the same; `done` marks the frames computed. */
  private readonly frameTerms: Float64Array;
  private readonly frameWeights: Float64Array;
  private readonly frameActive: Uint8Array;
  private readonly done: Uint8Array;
  /** The grid being scored: per slot, its row in `from` (and `fromWeights`) and whether it is loud. */
  private readonly rows = new Int32Array(COARSE_SLOTS);
  private readonly active = new Uint8Array(COARSE_SLOTS);
  private from: Float64Array;
  private fromWeights: Float64Array;
  private readonly slotE = new Float64Array(BANDS);
  /** `scores`' running sums per offset. */
  private readonly sums = new Float64Array(PERIOD);
  private readonly norms = new Float64Array(PERIOD);
  private readonly layout: SyncLayout;
  /** Per pitch hypothesis, per sync unit: its raised and its lowered bands' floors (`Search.floorSums`). */
  private readonly floors = new Map<number, Float64Array>();
  constructor(private readonly s: Search) {
    this.layout = syncLayout(s.p);
    this.terms = new Float64Array(COARSE_SLOTS * PERIOD);
    this.weights = new Float64Array(COARSE_SLOTS * PERIOD);
    const frames = s.sp.frames;
    this.frameTerms = new Float64Array(frames * PERIOD);
    this.frameWeights = new Float64Array(frames * PERIOD);
    this.frameActive = new Uint8Array(frames);
    this.done = new Uint8Array(frames);
    this.from = this.terms;
    this.fromWeights = this.weights;
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
  /**
   * The sync terms of the slot whose tile energies are E[e … e + BANDS), summed per pattern slot, into
   * row `row` of `terms`/`weights` (PERIOD entries): a grid's score at an offset then adds one
   * entry per slot.
   */
  private unitTerms(
    E: Float64Array,
    e: number,
    floors: Float64Array,
    terms: Float64Array,
    weights: Float64Array,
    row: number,
  ): void {
    const { up, down, dither, first } = this.layout;
    // Module constants and imports as locals: the loop below runs millions of times a clip, and
    // reading a module's bindings there costs more than the arithmetic.
    const spreadBy = COARSE_READING.spread,
      floorBy = COARSE_READING.floor,
      base = BASE_SPREAD,
      weight = WEIGHT,
      cos = COS,
      mask = COS_SIZE - 1,
      mantissa = MANTISSA,
      shift = 20 - MANTISSA_BITS,
      low = MASK,
      octave = STEPS_PER_OCTAVE,
      bias = BIAS,
      f64 = bits,
      i32 = words,
      high = HIGH,
      period = PERIOD;
    for (let q = 0; q < period; q++) {
      let sum = 0,
        norm = 0;
      for (let j = first[q]!, end = first[q + 1]!; j < end; j++) {
        // HALF is 2 (syncLayout checks each unit raises and lowers as many bands): unrolled.
        const i = j * 2;
        let u = 1e-20,
          d = 1e-20;
        u += E[e + up[i]!]!;
        d += E[e + down[i]!]!;
        u += E[e + up[i + 1]!]!;
        d += E[e + down[i + 1]!]!;
        const nu = floors[2 * j]!,
          nd = floors[2 * j + 1]!;
        // w = 1 / (1 + WEIGHT·spread²) with spread = BASE_SPREAD + spreadBy·(nu/u + nd/d), over one division.
        const ud = u * d;
        const spread = base * ud + spreadBy * (nu * d + nd * u);
        const w = (ud * ud) / (ud * ud + weight * spread * spread);
        // clean(u, nu, floorBy) / clean(d, nd, floorBy), written out.
        f64[0] = Math.max(u - floorBy * nu, 0.05 * u) / Math.max(d - floorBy * nd, 0.05 * d);
        const hi = i32[high]!;
        const at = ((hi >>> 20) - 1023) * octave + mantissa[(hi >>> shift) & low]! - dither[j]!;
        sum += w * cos[(at + bias) & mask]!;
        norm += w * w;
      }
      terms[row + q] = sum;
      weights[row + q] = norm;
    }
  }
  /** Each laid slot's sync terms, under the pitch hypothesis `freq`. */
  fill(freq: number, slots: number): void {
    const { E, active } = this.s;
    const floors = this.floorsOf(freq);
    for (let k = 0; k < slots; k++) {
      this.rows[k] = k * PERIOD;
      this.active[k] = active[k]!;
      if (active[k]) this.unitTerms(E, k * BANDS, floors, this.terms, this.weights, k * PERIOD);
    }
    this.from = this.terms;
    this.fromWeights = this.weights;
  }
  /**
   * The grid of a hypothesis with the pitch unchanged (tempo alone, or none), each slot read from the
   * slot starting at the nearest frame; returns the number of slots, as `Search.lay` would.
   */
  place(time: number, phase: number): number {
    const v = this.s.view(1);
    const { energies, loud } = v;
    const frames = this.s.sp.frames;
    const floors = this.floorsOf(1);
    const { slotE, frameTerms, frameWeights, frameActive, done } = this;
    const min = Math.max(loud * 10 ** -3.5, 1e-9);
    const span = frameStart(INNER_LAST) - frameStart(INNER_FIRST);
    const width = span / STEP_HOP;
    let k = 0;
    for (; k < COARSE_SLOTS; k++) {
      // As `tiles`: the slot fits if its last inner frame does.
      const last = (phase + time * (k * SLOT + frameStart(INNER_LAST) + FRAME / 2) - FRAME / 2) / STEP_HOP;
      if (Math.floor(last) + 1 >= frames) break;
      // The frame of the first inner frame of the unchanged slot with the same centre.
      const centre = (phase + time * (k * SLOT + frameStart(INNER_FIRST) + span / 2 + FRAME / 2) - FRAME / 2) / STEP_HOP;
      const f = Math.round(centre - width / 2);
      if (f < 0 || f + width >= frames) break;
      if (!done[f]) {
        // The slot's tiles as `tiles` sums them at the unchanged speed (every frame whole).
        slotE.fill(0);
        for (let j = 0; j <= width; j += HOP / STEP_HOP)
          for (let b = 0; b < BANDS; b++) slotE[b] = slotE[b]! + energies[(f + j) * BANDS + b]!;
        let total = 0;
        for (let b = 0; b < BANDS; b++) total += slotE[b]!;
        frameActive[f] = total > min ? 1 : 0;
        if (frameActive[f]) this.unitTerms(slotE, 0, floors, frameTerms, frameWeights, f * PERIOD);
        done[f] = 1;
      }
      this.rows[k] = f * PERIOD;
      this.active[k] = frameActive[f]!;
    }
    this.from = frameTerms;
    this.fromWeights = frameWeights;
    return k;
  }
  /**
   * `score` at every pattern offset into `out` (PERIOD entries): the same sums, slot by slot in the
   * same order, each slot's row read once.
   */
  scores(slots: number, out: Float64Array): void {
    const { from, fromWeights, rows, active, sums, norms } = this;
    const period = PERIOD;
    sums.fill(0);
    norms.fill(0);
    for (let k = 0; k < slots; k++) {
      if (!active[k]) continue;
      const row = rows[k]!;
      // Offset o reads pattern slot k + o (mod PERIOD): two runs, before and after the wrap.
      const wrap = period - k;
      for (let o = 0; o < wrap; o++) {
        sums[o] = sums[o]! + from[row + k + o]!;
        norms[o] = norms[o]! + fromWeights[row + k + o]!;
      }
      for (let o = wrap; o < period; o++) {
        sums[o] = sums[o]! + from[row + k + o - period]!;
        norms[o] = norms[o]! + fromWeights[row + k + o - period]!;
      }
    }
    for (let o = 0; o < period; o++) {
      const norm = norms[o]!;
      out[o] = norm > 0 ? sums[o]! / Math.sqrt(norm / 2) : 0;
    }
  }
  /** The score at pattern offset `offset` from the terms `fill` or `place` left. */
  score(slots: number, offset: number): number {
    const { from, fromWeights, rows, active } = this;
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
  const scores = new Float64Array(PERIOD);
  for (let phase = 0; phase < slotLen; phase += PHASE_STEP) {
    let slots: number;
    if (hyp.freq === 1) slots = table.place(hyp.time, phase);
    else if ((slots = s.lay(hyp, phase, COARSE_SLOTS)) > 0) table.fill(hyp.freq, slots);
    if (slots === 0) continue;
    table.scores(slots, scores);
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
