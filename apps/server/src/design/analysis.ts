import fs from 'node:fs/promises';
import { parseFile } from 'music-metadata';
import {
  analyzeSample,
  cloneProfile,
  promptVoice,
  type SampleFormat,
  type VoiceInfo,
  type VoiceMeasures,
  type VoiceProfile,
} from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import { toAppError } from '../speech/errors.js';

export type { SampleFormat };

/** What the server keeps of a sample's analysis. */
export interface SampleAnalysis {
  format: SampleFormat;
  durationSec: number;
  sampleRate: number;
  /** The analysis' measures as it gave them (stored as JSON, handed back to clone a voice). */
  measures: VoiceMeasures;
  summary: { f0_median_hz: number | null; snr_db: number | null; noisy: boolean; speech_seconds: number | null };
}

const round = (v: number, digits = 1) => (Number.isFinite(v) ? Math.round(v * 10 ** digits) / 10 ** digits : null);

/** Whether an mp3 says how many frames it holds (a Xing, Info or VBRI header): only then is its declared length exact. */
async function mp3DeclaresLength(file: string): Promise<boolean> {
  const fh = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    const text = head.subarray(0, bytesRead).toString('latin1');
    return /Xing|Info|VBRI/.test(text);
  } finally {
    await fh.close();
  }
}

/**
 * A file cut short still decodes (ffmpeg stops where the bytes stop), so its decoded length is held
 * against what its own header says it holds, where that header is exact: a WAV's data size, an m4a's
 * duration, an mp3's frame count.
 */
async function cutShort(file: string, format: SampleFormat, decodedSec: number): Promise<boolean> {
  if (format === 'mp3' && !(await mp3DeclaresLength(file))) return false;
  const declared = await parseFile(file, { duration: false, skipCovers: true })
    .then((m) => m.format.duration)
    .catch(() => undefined);
  return declared !== undefined && decodedSec < declared * 0.97 - 0.2;
}

/**
 * Judges an uploaded sample by its bytes (never its name or declared type), decodes it and measures
 * it. A file that is not mp3, m4a or wav, or that does not decode whole (corrupt, truncated, empty),
 * is UNSUPPORTED_FILE_TYPE; a decoded length outside 10 s to 5 min is AUDIO_TOO_SHORT / AUDIO_TOO_LONG.
 */
export async function analyzeUpload(file: string): Promise<SampleAnalysis> {
  let analysis: Awaited<ReturnType<typeof analyzeSample>>;
  try {
    analysis = await analyzeSample(file);
  } catch (e) {
    throw toAppError(e);
  }
  const { probe, measures } = analysis;
  if (await cutShort(file, probe.format, probe.durationSec)) {
    throw new AppError('UNSUPPORTED_FILE_TYPE', {}, { cause: new Error('the file is cut short') });
  }
  return {
    format: probe.format,
    durationSec: probe.durationSec,
    sampleRate: Math.round(probe.sampleRate),
    measures,
    summary: {
      f0_median_hz: measures.f0MedianHz > 0 ? round(measures.f0MedianHz) : null,
      snr_db: round(measures.snrDb),
      noisy: measures.noisy,
      speech_seconds: round(measures.speechSec, 2),
    },
  };
}

/** The profile that reproduces a sample's measures on `base`. */
export function cloneOnBase(measures: VoiceMeasures, base: VoiceInfo): VoiceProfile {
  return cloneProfile(measures, base);
}

/** The voice a description asks for, among `candidates`; `seed` varies repeated previews a little. */
export function designFromPrompt(
  prompt: string,
  candidates: VoiceInfo[],
  seed: number,
  language: string,
): { base: VoiceInfo; profile: VoiceProfile } {
  const { base, profile } = promptVoice(prompt, candidates, seed, language);
  return { base, profile };
}
