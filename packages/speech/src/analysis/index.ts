/**
 * Voice analysis, cloning and prompt reading: what the design studio builds on. No HTTP, no
 * database: the server stores the probe, the measures and the profiles these return (plain JSON).
 */
import { decodeToPcm, loadSample, type SampleProbe } from './probe.ts';
import type { VoiceMeasures } from './measure.ts';
import { measureInThread } from './thread.ts';

export { probeSample, decodeToPcm, sniffFormat, SAMPLE_MIN_SEC, SAMPLE_MAX_SEC } from './probe.ts';
export type { SampleFormat, SampleProbe } from './probe.ts';
export { measurePcm, NOISY_SNR_DB } from './measure.ts';
export type { VoiceMeasures } from './measure.ts';
export { LTAS_BANDS, ltas, ltasDistance } from './ltas.ts';
export { voiceprint, voiceprintDistance, VOICEPRINT_RATE } from './voiceprint.ts';
export { cloneProfile } from './clone.ts';
export { readPrompt, promptVoice, instructedProfile, settingsProfile, DEFAULT_VOICE_SETTINGS, TONES } from './prompt.ts';
export type { PromptTraits, Age, Tone, VoiceSettingsInput } from './prompt.ts';
export { referenceFromSample } from './reference.ts';

/** Rate the analysis works at: the WebRTC VAD's, and enough for F0, formants and the LTAS bands. */
export const ANALYSIS_RATE = 16_000;

/** Probes (throws the upload's errors), decodes once at 16 kHz and measures, in the analysis thread. */
export async function analyzeSample(
  file: string,
  opts: { signal?: AbortSignal } = {},
): Promise<{ probe: SampleProbe; measures: VoiceMeasures }> {
  const { probe, pcm } = await loadSample(file, ANALYSIS_RATE, opts);
  return { probe, measures: await measureInThread(pcm.samples, pcm.sampleRate, opts.signal) };
}

/** Seconds of a file `voiceprintOfFile` reads: the voiceprint settles long before. */
const VOICEPRINT_SECONDS = 300;

/**
 * The voiceprint of any audio file ffmpeg reads (its first five minutes, at 16 kHz), measured in the analysis thread;
 * empty when it holds too little speech.
 */
export async function voiceprintOfFile(file: string): Promise<number[]> {
  const pcm = await decodeToPcm(file, ANALYSIS_RATE);
  const samples = pcm.samples.subarray(0, VOICEPRINT_SECONDS * ANALYSIS_RATE);
  const measures = await measureInThread(samples.slice(), pcm.sampleRate);
  return measures.voiceprint ?? [];
}
