/**
 * The embedder: the output-rate audio goes down to 8 kHz, each 128 ms slot is analysed (8 frames),
 * each unit's value (the mean of its bands' ±log energies over the slot's inner frames) is moved to
 * the nearest point of its keyed lattice by scaling the bands' magnitudes, and only the difference
 * goes back up to the output rate and is added. The change is proportional to the audio in each
 * band, so silence stays silent and loud speech masks its own mark. Streaming: every value is
 * computed at an absolute position from inputs that are final, so any chunking gives the same output.
 */
import {
  BANDS,
  BAND_BINS,
  BANDS_PER_UNIT,
  FIRST_BIN,
  FRAME,
  FRAMES_PER_SLOT,
  INNER_FIRST,
  INNER_LAST,
  PERIOD,
  RATE,
  SLOT,
  STEP,
  UNITS_PER_SLOT,
  frameStart,
} from './grid.ts';
import { embedKernel, SPAN } from './embed-kernel.ts';
import { keyedPattern, type Pattern } from './pattern.ts';
import { encodePayload } from './code.ts';
import { kernelsFor, type Kernel } from './resample.ts';
import { Tail } from './tail.ts';

const BINS = FRAME / 2 + 1;
/** One past the bands' last bin. */
const LAST_BIN = FIRST_BIN + BANDS * BAND_BINS;
/** A slot's energy (sum of squared spectra over its inner frames) under which it is left alone: about −100 dBFS. */
const SILENT = 1e-6;
/**
 * The most a slot's mark may carry, relative to the slot's energy under 4 kHz: −28.25 dB, a bound on
 * the costly slots. At −27.5 dB (v2) the harness's eSpeak Klatt voice at 8 kHz, whose every slot
 * leans on the bound, came out 29.7 dB under the speech; −28.25 dB lifts it to 30.3 dB (each dB off
 * this bound lifts the lowest clips by about 0.6–0.8 dB; a whole clip's mark comes out 30–38 dB under
 * the speech) and takes about 0.2 off the attacked clips' mean scores.
 */
const BUDGET = 10 ** -2.825;

/**
 * The per-bin corrections for the filters of one output rate, computed once per rate: the filters'
 * responses cost tens of milliseconds at rates with many phases (22,050 and 44,100 Hz).
 */
const corrected = new Map<number, { undo: Float64Array; unfilter: Float64Array }>();

function corrections(rate: number): { undo: Float64Array; unfilter: Float64Array } {
  let c = corrected.get(rate);
  if (c) return c;
  const k = kernelsFor(rate);
  c = { undo: new Float64Array(BINS), unfilter: new Float64Array(BINS) };
  for (let b = 0; b < BINS; b++) {
    const hz = (b * RATE) / FRAME;
    const down = k ? k.down.response(hz) : 1;
    const up = k ? k.up.response(hz) : 1;
    // The FFT pair scales by FRAME; this takes it back.
    c.undo[b] = 1 / (down * up * FRAME);
    c.unfilter[b] = 1 / (down * down);
  }
  corrected.set(rate, c);
  return c;
}

export class WatermarkEmbedder {
  private readonly rate: number;
  private readonly pattern: Pattern;
  private readonly coded: Uint8Array;
  private readonly down: Kernel | undefined;
  private readonly up: Kernel | undefined;
  /** Per bin: 1 / (down gain · up gain · FRAME), so the change lands at the intended size. */
  private readonly undo: Float64Array;
  /** Per bin: 1 / down gain², so the energies are the audio's own. */
  private readonly unfilter: Float64Array;
  private readonly input = new Tail((n) => new Float32Array(n));
  private readonly x8 = new Tail();
  private readonly d8 = new Tail();
  private received = 0;
  private emitted = 0;
  private slot = 0;
  private ended = false;
  private readonly energy = new Float64Array(BANDS);
  private readonly gain = new Float64Array(BANDS);

  constructor(opts: { key: Uint8Array; payload: number; sampleRate: number }) {
    const { key, payload, sampleRate } = opts;
    if (!Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 48000)
      throw new RangeError(`sample rate ${sampleRate} is outside 8000..48000`);
    if (!Number.isInteger(payload) || payload < 0 || payload > 0xffffffff)
      throw new RangeError('the watermark payload must be an unsigned 32-bit integer');
    this.rate = sampleRate;
    this.pattern = keyedPattern(key);
    this.coded = encodePayload(payload);
    const k = kernelsFor(sampleRate);
    this.down = k?.down;
    this.up = k?.up;
    ({ undo: this.undo, unfilter: this.unfilter } = corrections(sampleRate));
    // Frame 0 starts half a hop before the audio: zeros there (and before it, for the filters).
    this.x8.base = frameStart(0);
    this.d8.base = frameStart(0);
    if (this.down) {
      const start = this.down.first(frameStart(0));
      this.input.base = start;
      this.input.pad(-start);
    } else this.x8.pad(-frameStart(0));
  }

  /**
   * Takes the next samples; returns the output that is now final. With `whole`, the output goes
   * into whole[n …] (n the output's position from the start) and the array returned is that part.
   */
  push(samples: Float32Array, whole?: Float32Array): Float32Array {
    if (this.ended) throw new Error('push after end');
    this.input.append(samples);
    this.received += samples.length;
    return this.run(this.received, whole);
  }

  /** Ends the input; returns the rest of the output (into `whole` as `push` does). */
  end(whole?: Float32Array): Float32Array {
    if (this.ended) throw new Error('end called twice');
    this.ended = true;
    const total = this.received;
    // Zeros past the end finish the last slot and the filters' reach.
    const pad = Math.ceil(((SLOT + 2 * FRAME) * this.rate) / RATE) + 64;
    this.input.pad(pad);
    return this.run(total, whole);
  }

  /** Computes everything its inputs allow and returns output up to `limit` samples in all. */
  private run(limit: number, whole: Float32Array | undefined): Float32Array {
    const inEnd = this.input.base + this.input.length;
    // 8 kHz samples whose taps have all arrived.
    const x8 = this.x8;
    if (this.down) {
      const k = this.down;
      const from = x8.base + x8.length;
      const n = Math.max(from, k.countBefore(inEnd));
      x8.reserve(n - from);
      k.decimate(this.input.data, this.input.base, from, n - from, x8.data, x8.length);
      x8.length += n - from;
    } else {
      const from = x8.base + x8.length;
      if (inEnd > from) x8.appendFrom(this.input.data, from - this.input.base, inEnd - from);
    }
    // Slots whose frames have all arrived.
    const x8End = x8.base + x8.length;
    while (frameStart((this.slot + 1) * FRAMES_PER_SLOT - 1) + FRAME <= x8End) this.markSlot(this.slot++);
    const d8Final = frameStart(this.slot * FRAMES_PER_SLOT);
    // Output samples whose difference taps are final.
    const e = this.emitted;
    const m = Math.max(e, Math.min(limit, this.up ? this.up.countBefore(d8Final) : d8Final));
    const out = whole ? whole.subarray(e, m) : new Float32Array(m - e);
    const inp = this.input;
    const d8 = this.d8;
    if (this.up) this.up.interpolateAdd(d8.data, d8.base, e, m - e, inp.data, e - inp.base, out);
    else {
      const src = inp.data,
        diff = d8.data,
        o = e - inp.base,
        at = e - d8.base;
      for (let i = 0; i < m - e; i++) out[i] = src[o + i]! + diff[at + i]!;
    }
    this.emitted = m;
    // Drop what no later step reads.
    inp.dropBefore(Math.min(m, this.down ? this.down.first(x8.base + x8.length) : x8.base + x8.length));
    x8.dropBefore(frameStart(this.slot * FRAMES_PER_SLOT));
    d8.dropBefore(this.up ? this.up.first(m) : m);
    return out;
  }

  private markSlot(slot: number): void {
    const { energy, gain, undo, unfilter, pattern, coded } = this;
    // The slot's frames' spectra and changes are the kernel's (fft.ts's FFT, two frames at a time).
    const w = embedKernel();
    const { specRe: re, specIm: im } = w;
    const x8 = this.x8;
    const first = slot * FRAMES_PER_SLOT;
    const from = frameStart(first) - x8.base;
    w.slotIn.set(x8.data.subarray(from, from + SPAN));
    w.analyse();
    energy.fill(0);
    let total = 0;
    for (let f = INNER_FIRST; f <= INNER_LAST; f++) {
      const o = f * BINS;
      for (let i = 0; i < BINS; i++) total += re[o + i]! * re[o + i]! + im[o + i]! * im[o + i]!;
      for (let b = 0; b < BANDS; b++) {
        let e = 0;
        for (let i = FIRST_BIN + b * BAND_BINS, end = i + BAND_BINS; i < end; i++) {
          e += (re[o + i]! * re[o + i]! + im[o + i]! * im[o + i]!) * unfilter[i]!;
        }
        energy[b] = energy[b]! + e;
      }
    }
    const q = slot % PERIOD;
    for (let u = 0; u < UNITS_PER_SLOT; u++) {
      const unit = q * UNITS_PER_SLOT + u;
      // The unit's value: log of the raised bands' energy over the lowered ones'.
      let up = 1e-20,
        dn = 1e-20;
      for (let i = 0; i < BANDS_PER_UNIT; i++) {
        const e = energy[pattern.bands[unit * BANDS_PER_UNIT + i]!]!;
        if (pattern.signs[unit * BANDS_PER_UNIT + i]! > 0) up += e;
        else dn += e;
      }
      const value = Math.log(up / dn);
      const bit = pattern.bit[unit]!;
      const offset = pattern.dither[unit]! + (bit >= 0 ? coded[bit]! / 2 : 0);
      const target = STEP * (Math.round(value / STEP - offset) + offset);
      let delta = target - value;
      // The weaker side takes most of the change: the least energy for the same move of the value.
      let raise = (delta * dn) / (up + dn),
        lower = (delta * up) / (up + dn);
      // A unit whose move would cost more than its share of the budget moves only part of the way:
      // every slot stays inaudible, at the price of a weaker value there.
      const cost = up * (Math.exp(raise / 2) - 1) ** 2 + dn * (Math.exp(-lower / 2) - 1) ** 2;
      const budget = (BUDGET * total) / UNITS_PER_SLOT;
      if (cost > budget) {
        const k = Math.sqrt(budget / cost);
        delta *= k;
        raise *= k;
        lower *= k;
      }
      for (let i = 0; i < BANDS_PER_UNIT; i++) {
        const b = pattern.bands[unit * BANDS_PER_UNIT + i]!;
        // Power by e^{x}, so magnitude by e^{x/2}; the difference is (gain − 1) times the audio.
        gain[b] = Math.exp((pattern.signs[unit * BANDS_PER_UNIT + i]! > 0 ? raise : -lower) / 2) - 1;
      }
    }
    const d8 = this.d8;
    d8.ensure(frameStart(first + FRAMES_PER_SLOT - 1) + FRAME);
    // Silence (digital or nearly) gets no mark: nothing to hide it in, nothing to find.
    if (total < SILENT) return;
    // Per bin, the band's gain times the bin's correction: the same for all the slot's frames (the
    // kernel scales only the bands' bins, the rest of each change's spectrum is zero).
    const scale = w.scale;
    for (let b = 0; b < BANDS; b++)
      for (let i = FIRST_BIN + b * BAND_BINS, end = i + BAND_BINS; i < end; i++) scale[i] = gain[b]! * undo[i]!;
    // Synthesis window, overlap-added.
    const at = frameStart(first) - d8.base;
    w.slotOut.set(d8.data.subarray(at, at + SPAN));
    w.synthesise(FIRST_BIN, LAST_BIN);
    d8.data.set(w.slotOut, at);
  }
}

const CHUNK = 8192;

/** The whole buffer at once: the same samples as any chunking through `WatermarkEmbedder`. */
export function embedWatermark(pcm: Float32Array, sampleRate: number, opts: { key: Uint8Array; payload: number }): Float32Array {
  const e = new WatermarkEmbedder({ ...opts, sampleRate });
  const out = new Float32Array(pcm.length);
  // In chunks, so that the embedder's buffers stay small (and in cache) whatever the length.
  for (let o = 0; o < pcm.length; o += CHUNK) e.push(pcm.subarray(o, o + CHUNK), out);
  e.end(out);
  return out;
}
