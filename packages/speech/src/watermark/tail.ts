/**
 * The recent part of a signal, addressed by absolute sample index: the streaming embedder keeps
 * only what its next steps read, so memory stays flat over hours of audio.
 */
export class Tail<A extends Float32Array | Float64Array = Float64Array> {
  /** Float64 by default; the embedder keeps its input as it arrives, in Float32, and copies no wider. */
  data: A;
  /** Absolute index of data[0]. */
  base = 0;
  length = 0;

  constructor(private readonly make: (n: number) => A = (n) => new Float64Array(n) as A) {
    this.data = make(4096);
  }

  reserve(n: number): void {
    if (this.length + n <= this.data.length) return;
    const grown = this.make(Math.max(this.data.length * 2, this.length + n));
    grown.set(this.data.subarray(0, this.length));
    this.data = grown;
  }

  pad(n: number): void {
    this.reserve(n);
    this.data.fill(0, this.length, this.length + n);
    this.length += n;
  }

  append(samples: Float32Array): void {
    this.reserve(samples.length);
    this.data.set(samples, this.length);
    this.length += samples.length;
  }

  appendFrom(src: Float32Array | Float64Array, offset: number, count: number): void {
    this.reserve(count);
    this.data.set(src.subarray(offset, offset + count), this.length);
    this.length += count;
  }

  push1(v: number): void {
    this.data[this.length++] = v;
  }

  /** Zeros up to absolute index `end` (exclusive). */
  ensure(end: number): void {
    const need = end - this.base - this.length;
    if (need > 0) this.pad(need);
  }

  addAt(start: number, values: Float64Array): void {
    const o = start - this.base;
    for (let i = 0; i < values.length; i++) this.data[o + i] = this.data[o + i]! + values[i]!;
  }

  /** Forgets samples before absolute index `index`; moves the rest down only when that frees half. */
  dropBefore(index: number): void {
    const n = Math.min(index - this.base, this.length);
    if (n <= 0 || n < this.data.length / 2) return;
    this.data.copyWithin(0, n, this.length);
    this.length -= n;
    this.base += n;
  }
}
