/**
 * The reference a zero-shot cloning model (sherpa-onnx ZipVoice, Pocket) gets in
 * `EngineRequest.reference`: the sample decoded at the model's rate, its silence trimmed by the VAD,
 * at most `maxSec` long (these models condition on a few seconds; longer only costs time), with the
 * transcript the user typed, if any.
 */
import type { EngineRequest } from '../core/types.ts';
import { decodeToPcm } from './probe.ts';
import { resamplePolyphase } from '../formats/polyphase.ts';
import { VAD_FRAME, VAD_RATE, vadFrames } from './vad.ts';

export async function referenceFromSample(
  file: string,
  opts: { transcript?: string; sampleRate?: number; maxSec?: number; signal?: AbortSignal } = {},
): Promise<NonNullable<EngineRequest['reference']>> {
  const sampleRate = opts.sampleRate ?? 24_000;
  const maxSec = opts.maxSec ?? 15;
  const { samples } = await decodeToPcm(file, sampleRate, opts.signal ? { signal: opts.signal } : {});
  // Leading and trailing silence only: pauses inside stay, so the transcript still matches.
  const flags = vadFrames(sampleRate === VAD_RATE ? samples : resamplePolyphase(samples, sampleRate, VAD_RATE));
  const first = flags.indexOf(1);
  const last = flags.lastIndexOf(1);
  const scale = sampleRate / VAD_RATE;
  const pad = Math.round(0.1 * sampleRate);
  const start = first < 0 ? 0 : Math.max(0, Math.round(first * VAD_FRAME * scale) - pad);
  const end = last < 0 ? samples.length : Math.min(samples.length, Math.round((last + 1) * VAD_FRAME * scale) + pad);
  const cut = samples.slice(start, Math.min(end, start + Math.round(maxSec * sampleRate)));
  const text = opts.transcript?.trim();
  return { samples: cut, sampleRate, ...(text ? { text } : {}) };
}
