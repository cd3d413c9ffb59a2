/**
 * A recording made in the page becomes a sample like an uploaded one: 16-bit mono WAV (one of the
 * three formats the server takes; `encodeWav` of `@polyvox/speech/formats`), checked for the same 10 s to 5 min before it is sent. No React.
 */
import { LIMITS } from '@polyvox/contracts';

/** Where the recorder stops by itself: the longest sample the server takes. */
export const RECORD_MAX_SECONDS = LIMITS.cloneMaxSeconds;

export type RecordingProblem = 'short' | 'long' | null;

export function checkRecording(seconds: number): RecordingProblem {
  if (!(seconds >= LIMITS.cloneMinSeconds)) return 'short';
  if (seconds > LIMITS.cloneMaxSeconds) return 'long';
  return null;
}

/** Mixes channels down to one. */
export function toMono(channels: Float32Array[]): Float32Array {
  if (channels.length === 1) return channels[0]!;
  const n = Math.min(...channels.map((c) => c.length));
  const out = new Float32Array(n);
  for (const c of channels) for (let i = 0; i < n; i++) out[i]! += c[i]! / channels.length;
  return out;
}

/** The level meter's reading: the RMS of one analyser frame as 0..100 (−60 dBFS and below is 0). */
export function levelOf(frame: Float32Array): number {
  let sum = 0;
  for (const v of frame) sum += v * v;
  const rms = Math.sqrt(sum / Math.max(1, frame.length));
  const db = 20 * Math.log10(rms || 1e-9);
  return Math.round(Math.max(0, Math.min(100, ((db + 60) / 60) * 100)));
}

/** "1:05": the duration counter. */
export function clock(seconds: number): string {
  const s = Math.floor(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
