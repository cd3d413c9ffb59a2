/**
 * Rational polyphase resampling in plain JS: a Kaiser-windowed sinc, one table of taps per output
 * phase, computed once per pair of rates. Every sentence that an engine makes at a rate the format
 * lacks (eSpeak's 22,050 Hz for Ogg Opus at 24 kHz) goes through it, so it must be cheap: the
 * Speex WebAssembly build spent about 2 ns per tap, this loop well under one. `Pcm16Resampler`
 * runs it over a stream of 16-bit PCM bytes (ElevenLabs' `pcm_<rate>` formats).
 */
import { floatToInt16, int16ToFloat, Int16Chunks } from './pcm.ts';
import { bessel0, gcd } from './kaiser.ts';

/** Taps on each side of the centre at the input rate: 32 in all, between Speex's qualities 2 and 3. */
const HALF = 16;
/** Passband edge as a fraction of the lower rate's Nyquist frequency (Speex q3 uses 0.917). */
const BANDWIDTH = 0.9;
/** Kaiser β for about 70 dB of stopband: far under what a 32 kb/s Opus or 64 kb/s mp3 keeps. */
const BETA = 7;

interface Design {
  /** Output samples per `down` input samples. */
  up: number;
  down: number;
  /** Taps per phase. */
  width: number;
  /** Input samples before the centre that each output reads. */
  before: number;
  /** `up` phases of `width` taps each. */
  taps: Float32Array;
}

const designs = new Map<string, Design>();

function design(from: number, to: number): Design {
  const key = `${from}:${to}`;
  const kept = designs.get(key);
  if (kept) return kept;
  const g = gcd(from, to);
  const up = to / g,
    down = from / g;
  // Cut-off in cycles per input sample: under the lower of the two Nyquist frequencies.
  const ratio = Math.min(1, to / from);
  const cutoff = 0.5 * BANDWIDTH * ratio;
  // Going down, the kernel widens with the ratio so the filter stays as sharp in output terms.
  // Even, so a phase's taps come in fours (the inner loop keeps four sums).
  const half = 2 * Math.ceil(HALF / ratio / 2);
  const width = 2 * half;
  const taps = new Float32Array(up * width);
  const norm = bessel0(BETA);
  for (let p = 0; p < up; p++) {
    const frac = p / up;
    let sum = 0;
    for (let k = 0; k < width; k++) {
      // Distance in input samples from this tap to the output instant.
      const t = k - (half - 1) - frac;
      const x = 2 * cutoff * t;
      const sinc = Math.abs(x) < 1e-9 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const r = t / half;
      const w = Math.abs(r) >= 1 ? 0 : bessel0(BETA * Math.sqrt(1 - r * r)) / norm;
      const h = 2 * cutoff * sinc * w;
      taps[p * width + k] = h;
      sum += h;
    }
    // Each phase passes DC at exactly unit gain: no ripple at the output rate's period.
    for (let k = 0; k < width; k++) taps[p * width + k] = taps[p * width + k]! / sum;
  }
  const d: Design = { up, down, width, before: half - 1, taps };
  designs.set(key, d);
  return d;
}

/** `samples` at `from` Hz to `to` Hz, the same duration (round(n · to / from) samples), no delay. */
export function resamplePolyphase(samples: Float32Array, from: number, to: number): Float32Array {
  if (from === to || samples.length === 0) return samples;
  const { up, down, width, before, taps } = design(from, to);
  const n = samples.length;
  const outLength = Math.round((n * to) / from);
  // Zeros around the input so no output needs a bounds check.
  const padded = new Float32Array(n + width + 2);
  padded.set(samples, before);
  const out = new Float32Array(outLength);
  let base = 0,
    phase = 0;
  for (let o = 0; o < outLength; o++) {
    out[o] = dot(padded, base, taps, phase * width, width);
    phase += down;
    while (phase >= up) {
      phase -= up;
      base++;
    }
  }
  return out;
}

/**
 * `resamplePolyphase` down by a whole number (`from` a multiple of `to`), for the watermark detector,
 * which reads every clip at 8 kHz: one phase whose taps are symmetric about the centre (the last one
 * is zero), so each pair of input samples the same distance either side is added before its one
 * multiplication, half the multiplications and loads of taps. The same sums in another order: the
 * same output to the float, but for a last-bit rounding now and then. Other ratios go to `resamplePolyphase`.
 */
export function decimatePolyphase(samples: Float32Array, from: number, to: number): Float32Array {
  if (from === to || samples.length === 0 || from % to !== 0) return resamplePolyphase(samples, from, to);
  const { down, width, before, taps } = design(from, to);
  // Centre tap at `before`; taps[before − i] = taps[before + i]; taps[width − 1] = 0.
  for (let i = 1; i <= before; i++) if (taps[before - i] !== taps[before + i]) return resamplePolyphase(samples, from, to);
  if (taps[width - 1] !== 0 || before % 2 !== 1) return resamplePolyphase(samples, from, to);
  const n = samples.length;
  const outLength = Math.round((n * to) / from);
  // In doubles (the same values), as are the taps: the loop below then converts nothing.
  const padded = new Float64Array(n + width + 2);
  padded.set(samples, before);
  const out = new Float32Array(outLength);
  const half = Float64Array.from(taps.subarray(0, before + 1));
  const centre = half[before]!,
    span = 2 * before;
  for (let o = 0, base = 0; o < outLength; o++, base += down) {
    // Pairs i = 0 … before − 1 (taps[i] with the samples at i and span − i), two sums.
    let a0 = centre * padded[base + before]!,
      a1 = 0;
    for (let i = 0; i < before - 1; i += 2) {
      a0 += half[i]! * (padded[base + i]! + padded[base + span - i]!);
      a1 += half[i + 1]! * (padded[base + i + 1]! + padded[base + span - i - 1]!);
    }
    a0 += half[before - 1]! * (padded[base + before - 1]! + padded[base + before + 1]!);
    out[o] = a0 + a1;
  }
  return out;
}

/**
 * `resamplePolyphase` for audio that arrives piece by piece: the same output, sample for sample,
 * each given out as soon as the input its taps read has arrived; `end` gives the rest.
 */
export class PolyphaseStream {
  private readonly d: Design | undefined;
  /** The padded input so far (the leading zeros, then every sample received). */
  private buf: Float32Array;
  private len: number;
  private received = 0;
  private produced = 0;
  private base = 0;
  private phase = 0;

  constructor(
    private readonly from: number,
    private readonly to: number,
  ) {
    this.d = from === to ? undefined : design(from, to);
    this.buf = new Float32Array(8192);
    this.len = this.d ? this.d.before : 0;
  }

  push(samples: Float32Array): Float32Array {
    if (!this.d) return samples;
    this.append(samples);
    this.received += samples.length;
    return this.run(Infinity);
  }

  end(): Float32Array {
    if (!this.d) return new Float32Array(0);
    this.append(new Float32Array(this.d.width + 2));
    return this.run(Math.round((this.received * this.to) / this.from));
  }

  private append(samples: Float32Array): void {
    if (this.len + samples.length > this.buf.length) {
      const grown = new Float32Array(Math.max(this.buf.length * 2, this.len + samples.length));
      grown.set(this.buf.subarray(0, this.len));
      this.buf = grown;
    }
    this.buf.set(samples, this.len);
    this.len += samples.length;
  }

  /** Outputs whose taps are all in, up to `total` outputs in all. */
  private run(total: number): Float32Array {
    const { up, down, width, taps } = this.d!;
    const padded = this.buf;
    let base = this.base,
      phase = this.phase,
      o = this.produced;
    // At most one output per `down / up` input samples past the current one, plus rounding.
    const room = Math.max(0, Math.ceil(((this.len - width - base + 1) * up) / down) + 2);
    const out = new Float32Array(Math.min(room, Math.max(0, total - o)));
    const first = o;
    while (o < total && base + width <= this.len && o - first < out.length) {
      out[o - first] = dot(padded, base, taps, phase * width, width);
      o++;
      phase += down;
      while (phase >= up) {
        phase -= up;
        base++;
      }
    }
    this.base = base;
    this.phase = phase;
    this.produced = o;
    this.compact();
    return o - first === out.length ? out : out.slice(0, o - first);
  }

  /** Drops the input no later output reads, once it is most of the buffer: a long stream keeps only its tail. */
  private compact(): void {
    if (this.base < 65536 || this.base * 2 < this.len) return;
    this.buf.copyWithin(0, this.base, this.len);
    this.len -= this.base;
    this.base = 0;
  }
}

/**
 * `PolyphaseStream` over 16-bit little-endian mono PCM bytes, in chunks of any length (a chunk may split a sample):
 * `write` returns the PCM bytes each chunk completes, `end` the rest. The same bytes however the input is cut.
 */
export class Pcm16Resampler {
  private readonly chunks = new Int16Chunks();
  private readonly stream: PolyphaseStream;

  constructor(
    readonly from: number,
    readonly to: number,
  ) {
    this.stream = new PolyphaseStream(from, to);
  }

  write(chunk: Uint8Array): Uint8Array {
    const whole = this.chunks.take(chunk);
    if (this.from === this.to) return whole;
    return floatToInt16(this.stream.push(int16ToFloat(whole)));
  }

  end(): Uint8Array {
    return floatToInt16(this.stream.end());
  }
}

/**
 * One output sample: the input from `base` times the phase's taps from `t`, `width` of each (a multiple of 4). Four
 * independent sums: one chain of dependent additions would wait on each add's latency.
 */
function dot(padded: Float32Array, base: number, taps: Float32Array, t: number, width: number): number {
  let a0 = 0,
    a1 = 0,
    a2 = 0,
    a3 = 0;
  for (let k = 0; k < width; k += 4) {
    a0 += padded[base + k]! * taps[t + k]!;
    a1 += padded[base + k + 1]! * taps[t + k + 1]!;
    a2 += padded[base + k + 2]! * taps[t + k + 2]!;
    a3 += padded[base + k + 3]! * taps[t + k + 3]!;
  }
  return a0 + a1 + a2 + a3;
}
