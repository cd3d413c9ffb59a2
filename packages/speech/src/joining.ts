/**
 * What joining speech made apart needs (a dialogue's turns, each by its own voice and engine): each piece's
 * ITU-R BS.1770 integrated loudness, the piece brought to one target (with the look-ahead limiter every file
 * passes), its silent edges trimmed, and an encoder that takes 16-bit PCM and gives mp3 or Ogg Opus bytes.
 */
import { integratedLoudness, normalizeLoudness, TARGET_LUFS } from './dsp/loudness.ts';
import { floatToInt16, int16ToFloat, trimSilence } from './formats/pcm.ts';

/** The loudness every file of the platform is made at (LUFS, BS.1770 integrated). */
export const SPEECH_LUFS = TARGET_LUFS;

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The BS.1770 integrated loudness (LUFS) of 16-bit mono PCM; -Infinity for silence. */
export function pcmLoudness(pcm: Uint8Array, sampleRate: number): number {
  return integratedLoudness(int16ToFloat(pcm), sampleRate);
}

/** One piece of speech brought to the target loudness, its silent edges trimmed. */
export interface MatchedPcm {
  /** The piece, 16-bit mono PCM at the rate it came at. */
  pcm: Buffer;
  /** Its loudness before (LUFS) and after. */
  before: number;
  after: number;
  /** Seconds trimmed from its start (the piece's own times move back by as much). */
  trimmedSec: number;
  /** Seconds of silence (below -45 dBFS) left at its start and at its end: part of any pause heard around it. */
  quiet: { start: number; end: number };
}

const QUIET_DB = -45;

/** The quiet samples at each edge of `x`. */
function quietEdges(x: Float32Array, sampleRate: number): { start: number; end: number } {
  const thr = Math.pow(10, QUIET_DB / 20);
  let a = 0;
  while (a < x.length && Math.abs(x[a]!) < thr) a++;
  let b = x.length;
  while (b > a && Math.abs(x[b - 1]!) < thr) b--;
  return { start: a / sampleRate, end: (x.length - b) / sampleRate };
}

/**
 * A piece of 16-bit mono PCM trimmed of the silence at its edges (below -45 dBFS, keeping `padSec`) and gained to
 * `targetLufs` (limited to -1 dBFS peaks, as every file is). Silence is returned as it is.
 */
export function matchLoudness(pcm: Uint8Array, sampleRate: number, targetLufs = SPEECH_LUFS, padSec = 0.03): MatchedPcm {
  const all = int16ToFloat(pcm);
  // Gained first (BS.1770's gates leave the silence out of the measure), then trimmed: what is quiet is quiet as heard.
  const before = integratedLoudness(all, sampleRate);
  const gained = Number.isFinite(before) ? normalizeLoudness(all, sampleRate, targetLufs) : all;
  const trimmed = trimSilence(gained, sampleRate, QUIET_DB, padSec);
  const trimmedSec = (trimmed.byteOffset - gained.byteOffset) / 4 / sampleRate;
  const after = Number.isFinite(before) ? integratedLoudness(trimmed, sampleRate) : before;
  return { pcm: asBuffer(floatToInt16(trimmed)), before, after, trimmedSec, quiet: quietEdges(trimmed, sampleRate) };
}
