/** Reads a rhythm cue back from audio: where its tones and silences are, measured on the samples' envelope. */

export interface Run {
  on: boolean;
  /** Milliseconds from the start of what was measured. */
  startMs: number;
  ms: number;
}

/**
 * On and off runs of the envelope in 1 ms blocks: a block is on when its peak passes `threshold` (a fraction of
 * full scale; the cue peaks at 0.18, silence and a watermark in it are far under 0.05).
 */
export function envelopeRuns(samples: Float32Array, rate: number, threshold = 0.05): Run[] {
  const block = rate / 1000;
  const runs: Run[] = [];
  for (let b = 0; b * block < samples.length; b++) {
    let peak = 0;
    const end = Math.min(samples.length, Math.round((b + 1) * block));
    for (let i = Math.round(b * block); i < end; i++) peak = Math.max(peak, Math.abs(samples[i]!));
    const on = peak > threshold;
    const last = runs[runs.length - 1];
    if (last && last.on === on) last.ms++;
    else runs.push({ on, startMs: b, ms: 1 });
  }
  return runs;
}

/** The cue at the start: its four tones and three gaps (ms), and the silence after it before anything else sounds. */
export function cueAtStart(
  samples: Float32Array,
  rate: number,
): { tones: number[]; gaps: number[]; silenceAfterMs: number; startMs: number } {
  const runs = envelopeRuns(samples, rate);
  const first = runs.findIndex((r) => r.on);
  const seq = runs.slice(first, first + 8);
  return {
    tones: seq.filter((_, i) => i % 2 === 0 && i < 8).map((r) => r.ms),
    gaps: seq.filter((_, i) => i % 2 === 1 && i < 7).map((r) => r.ms),
    silenceAfterMs: seq[7]?.on === false ? seq[7].ms : 0,
    startMs: runs[first]?.startMs ?? -1,
  };
}

/** The cue at the end: its four tones and three gaps (ms), and the silence before it after the last sound. */
export function cueAtEnd(samples: Float32Array, rate: number): { tones: number[]; gaps: number[]; silenceBeforeMs: number } {
  const runs = envelopeRuns(samples, rate);
  while (runs.length && !runs[runs.length - 1]!.on) runs.pop();
  const seq = runs.slice(-8);
  return {
    tones: seq.filter((_, i) => i % 2 === 1).map((r) => r.ms),
    gaps: seq.filter((_, i) => i % 2 === 0 && i > 0).map((r) => r.ms),
    silenceBeforeMs: seq[0]?.on === false ? seq[0].ms : 0,
  };
}

/** Frequency of a tone from its zero crossings between two times (seconds). */
export function toneHz(samples: Float32Array, rate: number, fromSec: number, toSec: number): number {
  const a = Math.round(fromSec * rate);
  const b = Math.round(toSec * rate);
  let crossings = 0;
  for (let i = a + 1; i < b; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return crossings / 2 / (toSec - fromSec);
}
