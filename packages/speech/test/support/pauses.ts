/** The pauses in a file's audio (the timings and sentence-pause tests, the timings and pauses benches). */
import { concatFloat32 } from '../../src/dsp/pcm.ts';
import type { Engine, VoiceInfo } from '../../src/core/types.ts';

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

/** The longest silence strictly inside the speech (between the two sentences of a two-sentence text), if any. */
export function longestPause(samples: Float32Array, rate: number): { start: number; end: number; sec: number } {
  const found = pauses(samples, rate, 0.01).map((p) => ({ ...p, sec: p.end - p.start }));
  return found.reduce((a, b) => (b.sec > a.sec ? b : a), { start: 0, end: 0, sec: 0 });
}

/** A text as its engine speaks it in one call, sentences and all: the engine's native pauses. */
export async function nativeRendering(
  engine: Engine,
  voice: VoiceInfo,
  text: string,
): Promise<{ samples: Float32Array; sampleRate: number }> {
  const parts: Float32Array[] = [];
  let sampleRate = 0;
  const req = { text, voice, profile: voice.profile, speed: 1, pitch: 0, language: voice.languages[0]! };
  for await (const chunk of engine.synthesize(req)) {
    parts.push(chunk.samples);
    sampleRate = chunk.sampleRate;
  }
  return { samples: concatFloat32(parts), sampleRate };
}
