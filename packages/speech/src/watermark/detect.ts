/**
 * The detector: resample to 8 kHz, one short-time spectrum every 4 ms (spectra.ts), then a search
 * over the ways the audio may have been changed: speed (tempo alone, or time and pitch together,
 * ±6 %), where the clip starts within a slot, and where within the pattern's period. Each
 * hypothesis gives every unit a phase against its keyed lattice; on unmarked audio these phases are
 * uniform, so the score (the sum of their cosines over its standard deviation, score.ts) is standard
 * normal for any one hypothesis, and the union bound over the alignments the search can return
 * gives the false-alarm rate (calibration.ts). The coarse pass (coarse.ts) only picks candidates;
 * every score returned is the fine pass's polished score of one alignment on its grid.
 */
import { PERIOD, RATE } from './grid.ts';
import { keyedPattern } from './pattern.ts';
import { CODED_BITS, decodePayload } from './code.ts';
import { falseAlarmRate, THRESHOLD } from './calibration.ts';
import { at8k, spectra, STEP_HOP } from './spectra.ts';
import { COARSE_READING, score } from './score.ts';
import { Search, type Candidate, type Hypothesis } from './search.ts';
import { COARSE_SLOTS, SyncTable, coarse } from './coarse.ts';

export type { Hypothesis } from './search.ts';

export interface WatermarkResult {
  detected: boolean;
  score: number;
  falseAlarmRate: number;
  payload: number | null;
}

/**
 * The zero-bit decision's shortcut: most audio that carries the mark has not been sped up, so the
 * search refines the unchanged speed's best coarse alignment first, once its coarse score reaches
 * GATE, and stops there if the result is at least DECISIVE. The shortcut tries a few thousand
 * correlated hypotheses, each standard normal on unmarked audio, so unmarked audio stops there with
 * a chance of about 1e-10 (against the threshold's 1e-6 false-alarm rate); whatever falls short
 * goes through the whole search, as before, so the decision and the score of unmarked audio are
 * unchanged. A marked clip stopped early reports the score at that alignment, which may be a little
 * under the whole search's maximum (a more conservative false-alarm rate).
 */
const GATE = 5;
const DECISIVE = THRESHOLD + 1;

function search(s: Search, early: boolean): Candidate | undefined {
  const top = coarse(
    s,
    early
      ? (first) => {
          if (first.length === 0 || first[0]!.score < GATE) return undefined;
          const found = refine(s, first);
          return found && found.score >= DECISIVE ? found : undefined;
        }
      : undefined,
  );
  return Array.isArray(top) ? refine(s, top) : top;
}

/** Candidates refined at every fine speed around them (the rest only at their own coarse speed). */
const REFINED = 3;
/** An unpitched best fine score under this is not polished (the polish rarely lifts it by a fifth). */
const POLISH_FROM = 4.5;
/**
 * A polish whose first score (the fine alignment analysed exactly) is under this stops there: the
 * other 8 alignments within 2 ms would have to add more than 3.5 to reach the threshold, more than
 * the polish ever added on the A/B's 1,351 polished windows (at most 3.4, from 8.9; at most 1.4
 * from under 7).
 */
const POLISH_ON = THRESHOLD - 3.5;

/**
 * The fine pass at one candidate's speed shifted by `ds` quarter percents: phases every 2 ms around
 * it. A pitched candidate reads its own view (band edges within half a percent of the shifted
 * pitch's): the fine scores only choose; the alignment kept is the shifted speed-and-pitch one, and
 * the polish scores that one exactly.
 */
function fineAt(s: Search, c: Candidate, ds: number, best: Candidate | undefined): Candidate | undefined {
  const rr = 1 / c.hyp.time + ds * 0.0025;
  const pitched = c.hyp.freq !== 1;
  const hyp = { time: 1 / rr, freq: pitched ? rr : 1 };
  const read = pitched ? { time: hyp.time, freq: c.hyp.freq } : hyp;
  for (let dp = -4; dp <= 4; dp++) {
    const phase = c.phase + dp * (STEP_HOP / 2);
    if (phase < 0) continue;
    const sc = s.score(read, phase, c.offset, false);
    if (!best || sc > best.score) best = { score: sc, hyp, phase, offset: c.offset };
  }
  return best;
}

/**
 * The coarse pass's best candidates, refined: each at its own speed to 2 ms, the best REFINED of
 * those at speeds every 0.25 % around them too, and the best alignment polished.
 */
function refine(s: Search, top: readonly Candidate[]): Candidate | undefined {
  let best: Candidate | undefined;
  const own: { c: Candidate; score: number }[] = [];
  for (const c of top) {
    const found = fineAt(s, c, 0, undefined);
    if (!found) continue;
    own.push({ c, score: found.score });
    if (!best || found.score > best.score) best = found;
  }
  own.sort((a, b) => b.score - a.score);
  for (const { c } of own.slice(0, REFINED)) for (const ds of [-2, -1, 1, 2]) best = fineAt(s, c, ds, best);
  if (!best || (best.hyp.freq === 1 && best.score < POLISH_FROM)) return best;
  // Polish: the best alignment to a quarter of a millisecond, each frame analysed exactly, coarse to
  // fine (8, then 4, then 2 samples apart: 9 of the 17 alignments 2 samples apart within ±2 ms).
  const fine = best;
  best = { ...fine, score: s.exact(fine.hyp, fine.phase, fine.offset) };
  if (best.score < POLISH_ON) return best;
  let centre = fine.phase;
  for (const [step, reach] of [
    [8, 2],
    [4, 1],
    [2, 1],
  ] as const) {
    const from = centre;
    for (let i = -reach; i <= reach; i++) {
      const phase = from + i * step;
      if (i === 0 || phase < 0 || Math.abs(phase - fine.phase) > 16) continue;
      const sc = s.exact(fine.hyp, phase, fine.offset);
      if (sc > best.score) best = { ...fine, phase, score: sc };
    }
    centre = best.phase;
  }
  return best;
}

export function detectWatermark(
  pcm: Float32Array,
  sampleRate: number,
  key: Uint8Array,
  opts: { payload?: boolean } = {},
): WatermarkResult {
  const p = keyedPattern(key);
  const x = at8k(pcm, sampleRate);
  const sp = spectra(x);
  const none: WatermarkResult = { detected: false, score: 0, falseAlarmRate: 1, payload: null };
  if (sp.frames < 2) return none;
  const s = new Search(x, sp, p);
  // The payload is read at the whole search's best alignment: no shortcut there.
  const best = search(s, !opts.payload);
  if (!best) return none;
  const result: WatermarkResult = {
    detected: best.score >= THRESHOLD,
    score: best.score,
    falseAlarmRate: falseAlarmRate(best.score, x.length / RATE),
    payload: null,
  };
  if (opts.payload && result.detected) {
    const soft = new Float64Array(CODED_BITS);
    s.exact(best.hyp, best.phase, best.offset, soft);
    result.payload = decodePayload(soft);
  }
  return result;
}

/** Debug: the score at a given alignment (identity speed). */
export function scoreAt(
  pcm: Float32Array,
  sampleRate: number,
  key: Uint8Array,
  phase: number,
  offset: number,
  syncOnly = false,
): number {
  const x = at8k(pcm, sampleRate);
  const s = new Search(x, spectra(x), keyedPattern(key));
  return s.score({ time: 1, freq: 1 }, phase, offset, syncOnly);
}

/**
 * Tests: the coarse pass's score at every pattern offset for one speed and phase, as the coarse pass
 * reads it (`SyncTable`: the laid grid under a changed pitch, the table of slots starting at whole
 * frames under the unchanged one, the phase without Math.log), and from `score` on the laid grid.
 */
export function coarseScores(
  pcm: Float32Array,
  sampleRate: number,
  key: Uint8Array,
  h: Hypothesis,
  phase: number,
): { table: Float64Array; direct: Float64Array } {
  const x = at8k(pcm, sampleRate);
  const s = new Search(x, spectra(x), keyedPattern(key));
  const table = new Float64Array(PERIOD),
    direct = new Float64Array(PERIOD);
  const slots = s.lay(h, phase, COARSE_SLOTS);
  if (slots === 0) return { table, direct };
  const t = new SyncTable(s);
  if (h.freq === 1) {
    if (t.place(h.time, phase) !== slots) throw new Error('the table placed another number of slots than were laid');
  } else t.fill(h.freq, slots);
  for (let o = 0; o < PERIOD; o++) {
    table[o] = t.score(slots, o);
    direct[o] = score(s.p, s.E, s.view(h.freq).floor, s.active, slots, o, true, COARSE_READING);
  }
  return { table, direct };
}
