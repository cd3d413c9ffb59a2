/** The pauses in a file's audio (the timings tests and the timings bench). */
/** Silences longer than `minSec` (frames of 10 ms under −40 dB of the loudest) strictly inside the speech. */
export function pauses(samples: Float32Array, rate: number, minSec: number): { start: number; end: number }[] {
  const frame = Math.round(rate * 0.01);
  const rms: number[] = [];
  for (let i = 0; i + frame <= samples.length; i += frame) {
    let sum = 0;
    for (let j = i; j < i + frame; j++) sum += samples[j]! ** 2;
    rms.push(Math.sqrt(sum / frame));
  }
  const floor = Math.max(...rms) * 0.01;
  const first = rms.findIndex((r) => r >= floor);
  const lastLoud = rms.length - 1 - [...rms].reverse().findIndex((r) => r >= floor);
  const out: { start: number; end: number }[] = [];
  let from = -1;
  for (let f = first; f <= lastLoud; f++) {
    if (rms[f]! < floor) {
      if (from < 0) from = f;
    } else if (from >= 0) {
      if ((f - from) * 0.01 > minSec) out.push({ start: from * 0.01, end: f * 0.01 });
      from = -1;
    }
  }
  return out;
}
