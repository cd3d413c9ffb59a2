/** The two helpers every Kaiser-windowed sinc filter here is designed with (formats/polyphase.ts, watermark/resample.ts). */

/** The greatest common divisor: a rate ratio in its lowest terms. */
export const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);

/** Modified Bessel function of the first kind, order 0 (series; converges fast for β ≤ 20): the Kaiser window's. */
export function bessel0(x: number): number {
  let sum = 1,
    term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}
