import fs from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import { parseFile } from 'music-metadata';
import { LIMITS } from '@polyvox/contracts';
import { decodeAudio, estimateF0, isSpeechError, type VoiceInfo, type VoiceProfile } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';

export type SampleFormat = 'mp3' | 'm4a' | 'wav';

/** What the server keeps of a sample's analysis. */
export interface SampleAnalysis {
  format: SampleFormat;
  durationSec: number;
  sampleRate: number;
  /** The analysis' measures as it gave them (stored as JSON, handed back to clone a voice). */
  measures: Record<string, unknown>;
  summary: { f0_median_hz: number | null; snr_db: number | null; noisy: boolean; speech_seconds: number | null };
}

/** The containers a sample may come in, judged from the bytes. */
const FORMATS = new Map<string, SampleFormat>([
  ['audio/mpeg', 'mp3'],
  ['audio/x-m4a', 'm4a'],
  ['audio/mp4', 'm4a'],
  ['video/mp4', 'm4a'],
  ['audio/wav', 'wav'],
  ['audio/x-wav', 'wav'],
  ['audio/vnd.wave', 'wav'],
]);

const unsupported = (cause?: unknown) => new AppError('UNSUPPORTED_FILE_TYPE', {}, cause ? { cause } : {});

/**
 * Judges an uploaded sample by its bytes (never its name or declared type), decodes it and measures
 * it. A file that is not mp3, m4a or wav, or that does not decode whole (corrupt, truncated, empty),
 * is UNSUPPORTED_FILE_TYPE; a decoded length outside 10 s to 5 min is AUDIO_TOO_SHORT / AUDIO_TOO_LONG.
 */
export async function analyzeUpload(file: string): Promise<SampleAnalysis> {
  const { size } = await fs.stat(file);
  if (size === 0) throw unsupported();
  const sniffed = await fileTypeFromFile(file).catch(() => undefined);
  const format = sniffed ? FORMATS.get(sniffed.mime) : undefined;
  if (!format) throw unsupported();
  // The container's own claim of its length: a file cut short decodes to less than it says it holds.
  const declared = await parseFile(file, { duration: false, skipCovers: true })
    .then((m) => m.format.duration)
    .catch((e: unknown) => {
      throw unsupported(e);
    });
  let pcm: { samples: Float32Array; sampleRate: number };
  try {
    pcm = await decodeAudio(await fs.readFile(file), format, 16_000);
  } catch (e) {
    if (isSpeechError(e) || e instanceof Error) throw unsupported(e);
    throw e;
  }
  const durationSec = pcm.samples.length / pcm.sampleRate;
  if (durationSec <= 0) throw unsupported();
  if (declared && durationSec < declared * 0.97 - 0.1) throw unsupported(new Error(`decoded ${durationSec}s of ${declared}s`));
  if (durationSec < LIMITS.cloneMinSeconds) throw new AppError('AUDIO_TOO_SHORT');
  if (durationSec > LIMITS.cloneMaxSeconds) throw new AppError('AUDIO_TOO_LONG');
  const sampleRate = (await parseFile(file, { duration: false, skipCovers: true })).format.sampleRate ?? pcm.sampleRate;
  const f0 = estimateF0(pcm.samples, pcm.sampleRate);
  const measures = { f0MedianHz: f0.median || null, f0P10Hz: f0.p10 || null, f0P90Hz: f0.p90 || null };
  return {
    format,
    durationSec,
    sampleRate: Math.round(sampleRate),
    measures,
    summary: { f0_median_hz: f0.median || null, snr_db: null, noisy: false, speech_seconds: null },
  };
}

/** The profile that reproduces a sample's measures on `base` (until the analysis module's cloneProfile is merged). */
export function cloneOnBase(measures: Record<string, unknown>, base: VoiceInfo): VoiceProfile {
  const f0 = typeof measures.f0MedianHz === 'number' ? measures.f0MedianHz : null;
  return { ...base.profile, ...(f0 ? { pitchHz: f0 } : {}) };
}

/** The voice a description asks for (until the analysis module's prompt reader is merged). */
export function designFromPrompt(
  prompt: string,
  candidates: VoiceInfo[],
  _seed: number,
  _language: string,
): { base: VoiceInfo; profile: VoiceProfile } {
  const female = /\b(female|woman|girl)\b|女/i.test(prompt);
  const base = candidates.find((v) => v.gender === (female ? 'female' : 'male')) ?? candidates[0]!;
  return { base, profile: base.profile };
}
