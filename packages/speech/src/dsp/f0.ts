/**
 * F0 estimation by normalised autocorrelation, frame by frame, voiced frames only.
 * Small and dependency-free: it is how tests and the clone measures judge pitch.
 */

export interface F0Options {
  minHz?: number;
  maxHz?: number;
  frameSec?: number;
  hopSec?: number;
  /** Minimum normalised autocorrelation peak for a frame to count as voiced. */
  voicingThreshold?: number;
  /** Rate the signal is decimated to before the search (default 8 kHz; 4 kHz is enough below 500 Hz). */
  targetRate?: number;
}

export interface F0Result {
  /** Median F0 of voiced frames in Hz, or 0 if nothing was voiced. */
  median: number;
  /** 10th and 90th percentile of voiced F0. */
  p10: number;
  p90: number;
  voicedFraction: number;
  track: number[];
  /** Normalised autocorrelation peak of each voiced frame (how periodic it is), beside `track`. */
  strengths: number[];
}

/** Averages groups of `factor` samples: a crude low-pass and decimation, plenty for F0 below 1 kHz. */
function decimate(samples: Float32Array, factor: number): Float32Array {
  const out = new Float32Array(Math.floor(samples.length / factor));
  for (let i = 0; i < out.length; i++) {
    let s = 0;
    for (let k = 0; k < factor; k++) s += samples[i * factor + k]!;
    out[i] = s / factor;
  }
  return out;
}

export function estimateF0(input: Float32Array, inputRate: number, opts: F0Options = {}): F0Result {
  const factor = Math.max(1, Math.floor(inputRate / (opts.targetRate ?? 8000)));
  const samples = factor > 1 ? decimate(input, factor) : input;
  const sampleRate = inputRate / factor;
  const minHz = opts.minHz ?? 50;
  const maxHz = opts.maxHz ?? 500;
  // A frame holds at least two periods of the lowest pitch searched.
  const frame = Math.round((opts.frameSec ?? Math.max(0.04, 2 / minHz)) * sampleRate);
  const hop = Math.round((opts.hopSec ?? 0.01) * sampleRate);
  const threshold = opts.voicingThreshold ?? 0.6;
  const minLag = Math.max(2, Math.floor(sampleRate / maxHz));
  const maxLag = Math.min(frame - 1, Math.ceil(sampleRate / minHz));

  let globalPeak = 0;
  for (let i = 0; i < samples.length; i++) globalPeak = Math.max(globalPeak, Math.abs(samples[i]!));
  const silence = globalPeak * 0.05;

  const track: number[] = [];
  const strengths: number[] = [];
  let frames = 0;
  const buf = new Float64Array(frame);
  for (let start = 0; start + frame + maxLag < samples.length; start += hop) {
    frames++;
    let energy = 0;
    let mean = 0;
    for (let i = 0; i < frame; i++) mean += samples[start + i]!;
    mean /= frame;
    let peak = 0;
    for (let i = 0; i < frame; i++) {
      const v = samples[start + i]! - mean;
      buf[i] = v;
      energy += v * v;
      peak = Math.max(peak, Math.abs(v));
    }
    if (peak < silence || energy === 0) continue;

    let best = 0;
    let bestLag = 0;
    const corr = new Float64Array(maxLag + 2);
    for (let lag = minLag; lag <= maxLag + 1; lag++) {
      let c = 0;
      let e2 = 0;
      for (let i = 0; i < frame; i++) {
        const w = samples[start + i + lag]! - mean;
        c += buf[i]! * w;
        e2 += w * w;
      }
      const r = c / Math.sqrt(energy * e2 + 1e-12);
      corr[lag] = r;
    }
    for (let lag = minLag + 1; lag <= maxLag; lag++) {
      const r = corr[lag]!;
      if (r > corr[lag - 1]! && r >= corr[lag + 1]! && r > best) {
        best = r;
        bestLag = lag;
      }
    }
    if (best < threshold || bestLag === 0) continue;
    // Prefer the shortest lag whose peak is nearly as strong: avoids octave-down errors.
    for (let lag = minLag + 1; lag < bestLag; lag++) {
      const r = corr[lag]!;
      if (r > corr[lag - 1]! && r >= corr[lag + 1]! && r > best * 0.9) {
        bestLag = lag;
        break;
      }
    }
    // Parabolic interpolation around the peak.
    const a = corr[bestLag - 1]!;
    const b = corr[bestLag]!;
    const c = corr[bestLag + 1]!;
    const denom = a - 2 * b + c;
    const shift = denom === 0 ? 0 : (0.5 * (a - c)) / denom;
    track.push(sampleRate / (bestLag + shift));
    strengths.push(corr[bestLag]!);
  }
  const sorted = [...track].sort((x, y) => x - y);
  const q = (p: number): number => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : 0);
  return {
    median: q(0.5),
    p10: q(0.1),
    p90: q(0.9),
    voicedFraction: frames ? track.length / frames : 0,
    track,
    strengths,
  };
}

export function semitonesBetween(fromHz: number, toHz: number): number {
  return 12 * Math.log2(toHz / fromHz);
}
