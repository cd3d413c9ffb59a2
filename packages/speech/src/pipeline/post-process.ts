/**
 * The DSP stage after an engine: speed and pitch it could not do, voice conversion (cloned and
 * designed voices only), loudness, resampling.
 */
import { convertVoice, f0Correction, type Conversion } from '../dsp/convert.ts';
import { normalizeLoudness } from '../dsp/loudness.ts';
import { resamplePolyphase } from '../formats/polyphase.ts';
import { changeSpeedPitch } from '../dsp/sonic.ts';
import type { PcmChunk } from '../core/types.ts';

export interface PostProcessOptions {
  /** Speed the engine did not apply (1 = none). */
  speed: number;
  /** Semitones the engine did not apply. */
  semitones: number;
  loudness: boolean;
  sampleRate: number;
  /** Rates kept as they come (the encoder takes them): no resampling, no filter, nothing lost. */
  keepRates?: readonly number[];
  /** Formant warp, tilt, LTAS matching and breathiness a profile asks for (absent: none, nothing touched). */
  convert?: Conversion;
}

export async function postProcess(chunk: PcmChunk, opts: PostProcessOptions): Promise<PcmChunk> {
  let samples = chunk.samples;
  let words = chunk.words;
  if (Math.abs(opts.speed - 1) > 1e-3 || Math.abs(opts.semitones) > 1e-3) {
    samples = await changeSpeedPitch(samples, chunk.sampleRate, opts.speed, opts.semitones);
    if (words) words = words.map((w) => ({ ...w, start: w.start / opts.speed, end: w.end / opts.speed }));
  }
  // After pitch and speed, so the equalizer sees the spectrum that is heard; before loudness, which levels the result.
  if (opts.convert?.f0TargetHz) {
    const st = f0Correction(samples, chunk.sampleRate, opts.convert.f0TargetHz);
    if (st) samples = await changeSpeedPitch(samples, chunk.sampleRate, 1, st);
  }
  if (opts.convert) samples = convertVoice(samples, chunk.sampleRate, opts.convert);
  if (opts.loudness) samples = normalizeLoudness(samples, chunk.sampleRate);
  // A 32-tap polyphase filter in JS: Speex's WebAssembly build at quality 3 cost about twice as
  // much on every sentence, for a difference far under what the encoders keep.
  const rate = opts.keepRates?.includes(chunk.sampleRate) ? chunk.sampleRate : opts.sampleRate;
  samples = resamplePolyphase(samples, chunk.sampleRate, rate);
  return words ? { samples, sampleRate: rate, words } : { samples, sampleRate: rate };
}
