/**
 * Streaming resampling of 16-bit mono PCM between two rates, for ElevenLabs' `pcm_<rate>` formats (the
 * platform's PCM is 24 kHz). Rational polyphase: one table of Kaiser-windowed sinc taps per output
 * phase, with the cut-off at 90 % of the lower rate's Nyquist frequency, so downsampling does not alias.
 * Chunks may split a sample; the last call (`end`) flushes what the filter still holds.
 */
const HALF = 16;
const BETA = 7;

const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);

function bessel0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

export class PcmResampler {
  private readonly up: number;
  private readonly down: number;
  private readonly width: number;
  private readonly before: number;
  private readonly taps: Float32Array;
  /** Input samples not yet consumed; `start` is the absolute index of `pending[0]`. */
  private pending = new Float32Array(0);
  private start = 0;
  /** The next output sample's index. */
  private next = 0;
  private odd: number | null = null;

  constructor(
    readonly from: number,
    readonly to: number,
  ) {
    const g = gcd(from, to);
    this.up = to / g;
    this.down = from / g;
    const ratio = Math.min(1, this.up / this.down);
    this.width = 2 * Math.ceil(HALF / ratio);
    this.before = this.width / 2 - 1;
    // Cut-off in cycles per input sample.
    const fc = 0.5 * ratio * 0.9;
    const norm = bessel0(BETA);
    this.taps = new Float32Array(this.up * this.width);
    for (let p = 0; p < this.up; p++) {
      const frac = p / this.up;
      for (let k = 0; k < this.width; k++) {
        const x = k - this.before - frac;
        const sinc = x === 0 ? 1 : Math.sin(2 * Math.PI * fc * x) / (2 * Math.PI * fc * x);
        const w = (x / (this.width / 2)) ** 2;
        const window = w >= 1 ? 0 : bessel0(BETA * Math.sqrt(1 - w)) / norm;
        this.taps[p * this.width + k] = 2 * fc * sinc * window;
      }
    }
  }

  /** Resamples one chunk of s16le bytes; returns the s16le bytes it completes. */
  write(chunk: Buffer): Buffer {
    let bytes = chunk;
    if (this.odd !== null) {
      bytes = Buffer.concat([Buffer.from([this.odd]), chunk]);
      this.odd = null;
    }
    if (bytes.length % 2 === 1) {
      this.odd = bytes[bytes.length - 1]!;
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    const n = bytes.length / 2;
    const merged = new Float32Array(this.pending.length + n);
    merged.set(this.pending);
    for (let i = 0; i < n; i++) merged[this.pending.length + i] = bytes.readInt16LE(i * 2) / 32768;
    this.pending = merged;
    return this.drain(false);
  }

  /** Flushes the samples the filter still holds (their future is silence). */
  end(): Buffer {
    const tail = new Float32Array(this.pending.length + this.width);
    tail.set(this.pending);
    const inputEnd = this.start + this.pending.length;
    this.pending = tail;
    return this.drain(true, inputEnd);
  }

  private drain(final: boolean, inputEnd = Infinity): Buffer {
    const out: number[] = [];
    for (;;) {
      const pos = this.next * this.down;
      const i = Math.floor(pos / this.up);
      const phase = pos % this.up;
      if (final && i >= inputEnd) break;
      const first = i - this.before - this.start;
      if (first + this.width > this.pending.length) break;
      let acc = 0;
      const base = phase * this.width;
      for (let k = 0; k < this.width; k++) {
        const index = first + k;
        if (index >= 0) acc += this.pending[index]! * this.taps[base + k]!;
      }
      out.push(acc);
      this.next += 1;
    }
    // Keep what later outputs still read.
    const needed = Math.floor((this.next * this.down) / this.up) - this.before - this.start;
    if (needed > 0) {
      this.pending = this.pending.slice(needed);
      this.start += needed;
    }
    const buf = Buffer.alloc(out.length * 2);
    for (let j = 0; j < out.length; j++) {
      const s = Math.max(-1, Math.min(1, out[j]!));
      buf.writeInt16LE(Math.round(s * 32767), j * 2);
    }
    return buf;
  }
}
