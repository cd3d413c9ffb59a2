/** The DSP stage after an engine: speed and pitch it could not do, loudness, resampling. */
import { normalizeLoudness } from '../dsp/loudness.ts';
import { resample } from '../dsp/resample.ts';
import { changeSpeedPitch } from '../dsp/sonic.ts';
import type { PcmChunk } from '../types.ts';

export const SPEECH_RESAMPLE_QUALITY = 3;

export interface PostProcessOptions {
  /** Speed the engine did not apply (1 = none). */
  speed: number;
  /** Semitones the engine did not apply. */
  semitones: number;
  loudness: boolean;
  sampleRate: number;
  /** Rates kept as they come (the encoder takes them): no resampling, no filter, nothing lost. */
  keepRates?: readonly number[];
}

export async function postProcess(chunk: PcmChunk, opts: PostProcessOptions): Promise<PcmChunk> {
  let samples = chunk.samples;
  let words = chunk.words;
  if (Math.abs(opts.speed - 1) > 1e-3 || Math.abs(opts.semitones) > 1e-3) {
    samples = await changeSpeedPitch(samples, chunk.sampleRate, opts.speed, opts.semitones);
    if (words) words = words.map((w) => ({ ...w, start: w.start / opts.speed, end: w.end / opts.speed }));
  }
  if (opts.loudness) samples = normalizeLoudness(samples, chunk.sampleRate);
  // Speex quality 3 (its VoIP setting) costs half of 6 on every sentence; what it gives up lies near
  // the top of the band, above what speech engines put there and what a 64 kb/s mp3 keeps.
  const rate = opts.keepRates?.includes(chunk.sampleRate) ? chunk.sampleRate : opts.sampleRate;
  samples = await resample(samples, chunk.sampleRate, rate, SPEECH_RESAMPLE_QUALITY);
  return words ? { samples, sampleRate: rate, words } : { samples, sampleRate: rate };
}
