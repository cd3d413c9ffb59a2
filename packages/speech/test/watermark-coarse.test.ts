import { describe, expect, it } from 'vitest';
import { embedWatermark } from '../src/watermark/index.ts';
import { BANDS, BANDS_PER_UNIT, PERIOD, STEP, UNITS_PER_SLOT } from '../src/watermark/grid.ts';
import { keyedPattern } from '../src/watermark/pattern.ts';
import { BASE_SPREAD, COARSE_READING, COS, COS_SIZE, WEIGHT } from '../src/watermark/score.ts';
import { Search, type Hypothesis } from '../src/watermark/search.ts';
import { at8k, spectra } from '../src/watermark/spectra.ts';
import { COARSE_SLOTS, SyncTable } from '../src/watermark/coarse.ts';
import { ljSamples } from './support/fixtures.ts';

const KEY = new Uint8Array(32).map((_, i) => (i * 29 + 7) & 255);

/**
 * The coarse score at every offset as the JavaScript computed it before the WebAssembly kernel
 * (wasm/unit-terms.c), written out plainly: each sync unit's term with its phase read from the
 * exponent and a 16,384-entry table of the mantissa's log, summed per pattern slot, the slots' sums
 * added in order. The kernel promises these numbers to the bit.
 */
function reference(s: Search, freq: number, slots: number): Float64Array {
  const p = s.p;
  const floors = s.floorSums(freq);
  const octave = (COS_SIZE * Math.LN2) / STEP;
  const mantissa = Float64Array.from({ length: 1 << 14 }, (_, i) => Math.log2(1 + (i + 0.5) / (1 << 14)) * octave);
  const bias = COS_SIZE * 2048 + 0.5;
  const f64 = new Float64Array(1),
    i32 = new Int32Array(f64.buffer);
  const { spread: spreadBy, floor: floorBy } = COARSE_READING;
  // Per slot, per pattern slot: Σ w·cos θ and Σ w² over its sync units in order.
  const terms = new Float64Array(slots * PERIOD),
    weights = new Float64Array(slots * PERIOD);
  for (let k = 0; k < slots; k++) {
    if (!s.active[k]) continue;
    for (let q = 0; q < PERIOD; q++) {
      let sum = 0,
        norm = 0;
      for (let v = 0; v < UNITS_PER_SLOT; v++) {
        const unit = q * UNITS_PER_SLOT + v;
        if (p.bit[unit]! >= 0) continue;
        const up: number[] = [],
          down: number[] = [];
        for (let i = 0; i < BANDS_PER_UNIT; i++)
          (p.signs[unit * BANDS_PER_UNIT + i]! > 0 ? up : down).push(p.bands[unit * BANDS_PER_UNIT + i]!);
        let u = 1e-20,
          d = 1e-20;
        u += s.E[k * BANDS + up[0]!]!;
        d += s.E[k * BANDS + down[0]!]!;
        u += s.E[k * BANDS + up[1]!]!;
        d += s.E[k * BANDS + down[1]!]!;
        const nu = floors[2 * unit]!,
          nd = floors[2 * unit + 1]!;
        const ud = u * d;
        const spread = BASE_SPREAD * ud + spreadBy * (nu * d + nd * u);
        const w = (ud * ud) / (ud * ud + WEIGHT * spread * spread);
        f64[0] = Math.max(u - floorBy * nu, 0.05 * u) / Math.max(d - floorBy * nd, 0.05 * d);
        const hi = i32[1]!;
        const at = ((hi >>> 20) - 1023) * octave + mantissa[(hi >>> 6) & ((1 << 14) - 1)]! - p.dither[unit]! * COS_SIZE;
        sum += w * COS[(at + bias) & (COS_SIZE - 1)]!;
        norm += w * w;
      }
      terms[k * PERIOD + q] = sum;
      weights[k * PERIOD + q] = norm;
    }
  }
  const out = new Float64Array(PERIOD);
  for (let o = 0; o < PERIOD; o++) {
    let sum = 0,
      norm = 0;
    for (let k = 0; k < slots; k++) {
      if (!s.active[k]) continue;
      sum += terms[k * PERIOD + ((k + o) % PERIOD)]!;
      norm += weights[k * PERIOD + ((k + o) % PERIOD)]!;
    }
    out[o] = norm > 0 ? sum / Math.sqrt(norm / 2) : 0;
  }
  return out;
}

describe("the watermark's coarse pass", () => {
  it('scores every offset as the JavaScript it replaced did, to the bit', () => {
    const x = ljSamples(16000, 6);
    const marked = embedWatermark(x, 16000, { key: KEY, payload: 9 });
    // The laid grids of changed speeds (`fill`), and the unchanged speed on whole frames, where the
    // table of frames (`place`) holds the same slots.
    const cases: [Hypothesis, number][] = [
      [{ time: 1 / 1.03, freq: 1.03 }, 64],
      [{ time: 1 / 0.95, freq: 0.95 }, 448],
      [{ time: 1, freq: 1 }, 0],
      [{ time: 1, freq: 1 }, 512],
      // Again, its frames computed by now, and replaced in the kernel by the other clip's.
      [{ time: 1, freq: 1 }, 0],
    ];
    // One table per clip, used in turns: each reads its own frames and floors, whichever ran last.
    const clips = [x, marked].map((audio) => {
      const y = at8k(audio, 16000);
      const s = new Search(y, spectra(y), keyedPattern(KEY));
      return { s, table: new SyncTable(s) };
    });
    let compared = 0;
    for (const [h, phase] of cases)
      for (const { s, table } of clips) {
        const slots = s.lay(h, phase, COARSE_SLOTS);
        expect(slots).toBeGreaterThan(20);
        const expected = reference(s, h.freq, slots);
        if (h.freq === 1) expect(table.place(h.time, phase)).toBe(slots);
        else table.fill(h.freq, slots);
        const all = Array.from(table.scores(slots));
        for (let o = 0; o < PERIOD; o++) {
          expect(table.score(slots, o)).toBe(expected[o]);
          expect(all[o]).toBe(expected[o]);
          compared++;
        }
      }
    expect(compared).toBe(2 * cases.length * PERIOD);
  });
});
