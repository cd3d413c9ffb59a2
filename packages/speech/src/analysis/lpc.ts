/**
 * Formants by linear prediction, as Praat does it: audio at 11 kHz (five formants under 5.5 kHz),
 * pre-emphasis, a Hamming-windowed 25 ms frame, autocorrelation and Levinson-Durbin, then the
 * roots of the predictor polynomial (Durand-Kerner); a root is a formant when its bandwidth is
 * under 500 Hz.
 */

import { lpcCoefficients } from '../dsp/lpc.ts';

export const LPC_RATE = 11_025;
const ORDER = 10;

/** Roots of the monic polynomial z^n + a1 z^(n-1) + … + an (Durand-Kerner), as [re, im] pairs. */
export function polyRoots(a: Float64Array): Float64Array {
  const n = a.length - 1;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    // Points spread on a circle slightly off the axes, the usual start.
    const ang = (2 * Math.PI * i) / n + 0.4;
    re[i] = 0.9 * Math.cos(ang);
    im[i] = 0.9 * Math.sin(ang);
  }
  for (let iter = 0; iter < 200; iter++) {
    let change = 0;
    for (let i = 0; i < n; i++) {
      // p(z) by Horner.
      let pr = 1;
      let pi = 0;
      const zr = re[i]!;
      const zi = im[i]!;
      for (let k = 1; k <= n; k++) {
        const nr = pr * zr - pi * zi + a[k]!;
        pi = pr * zi + pi * zr;
        pr = nr;
      }
      // Product of (z - z_j) over the other roots.
      let qr = 1;
      let qi = 0;
      for (let j = 0; j < n; j++) {
        if (j === i) continue;
        const dr = zr - re[j]!;
        const di = zi - im[j]!;
        const nr = qr * dr - qi * di;
        qi = qr * di + qi * dr;
        qr = nr;
      }
      const den = qr * qr + qi * qi || 1e-30;
      const sr = (pr * qr + pi * qi) / den;
      const si = (pi * qr - pr * qi) / den;
      re[i] = zr - sr;
      im[i] = zi - si;
      change = Math.max(change, Math.abs(sr) + Math.abs(si));
    }
    if (change < 1e-10) break;
  }
  const out = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    out[2 * i] = re[i]!;
    out[2 * i + 1] = im[i]!;
  }
  return out;
}

const hamming = new Map<number, Float64Array>();

/** Formant frequencies (Hz, ascending) of one frame of 11,025 Hz audio starting at `start`. */
export function frameFormants(x: Float32Array, start: number, size: number): number[] {
  let w = hamming.get(size);
  if (!w) {
    w = new Float64Array(size);
    for (let i = 0; i < size; i++) w[i] = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (size - 1));
    hamming.set(size, w);
  }
  const frame = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    const prev = start + i > 0 ? x[start + i - 1]! : 0;
    frame[i] = (x[start + i]! - 0.97 * prev) * w[i]!;
  }
  const a = lpcCoefficients(frame, ORDER);
  if (!a) return [];
  const roots = polyRoots(a);
  const out: number[] = [];
  for (let i = 0; i < ORDER; i++) {
    const r = roots[2 * i]!;
    const im = roots[2 * i + 1]!;
    if (im <= 0) continue;
    const mag = Math.hypot(r, im);
    const freq = (Math.atan2(im, r) * LPC_RATE) / (2 * Math.PI);
    const bw = (-Math.log(mag) * LPC_RATE) / Math.PI;
    if (freq > 90 && freq < LPC_RATE / 2 - 50 && bw > 0 && bw < 500) out.push(freq);
  }
  return out.sort((p, q) => p - q);
}
