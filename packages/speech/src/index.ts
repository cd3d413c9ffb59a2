/** @polyvox/speech: engines, voice library, DSP and encoding. No HTTP, no database. */
export { createSpeech } from './speech.ts';
export type { Speech, SpeechOptions, SynthesisResult, VoiceFilter } from './speech.ts';
export type { SynthesisRequest, Plan } from './pipeline/plan.ts';
export { SpeechError, isSpeechError, SPEECH_ERROR_CODES } from './errors.ts';
export type { SpeechErrorCode } from './errors.ts';
export * from './types.ts';
export { cacheKey, MemoryAudioCache } from './pipeline/cache.ts';
export type { AudioCache, CachedAudio, CacheKeyInput } from './pipeline/cache.ts';
export { mixVoices, MIX_MAX } from './catalogue/mix.ts';
export { detectLanguage, checkLanguage } from './text/detect-language.ts';
export type { DetectedLanguage, LanguageCheck } from './text/detect-language.ts';
export { normalizeText, countCharacters, cleanText } from './text/normalize.ts';
export { splitSentences } from './text/segment.ts';
export { previewTextFor, canonicalTag, languageFamily } from './catalogue/languages.ts';
export { estimateF0, semitonesBetween } from './dsp/f0.ts';
export { integratedLoudness, normalizeLoudness, peakDbfs, TARGET_LUFS } from './dsp/loudness.ts';
export { resample } from './dsp/resample.ts';
export { changeSpeedPitch } from './dsp/sonic.ts';
export { encodeWav, decodeWav, trimSilence } from './dsp/pcm.ts';
export { decodeAudio, FFMPEG } from './audio/ffmpeg.ts';
export { encodeAudio } from './audio/encoders.ts';
export { WorkerPool } from './pool/pool.ts';
export { SherpaEngine } from './engines/sherpa.ts';
export { parseManifest, readManifest, SHERPA_MODEL_TYPES } from './engines/sherpa-manifest.ts';
export type { SherpaModelEntry, SherpaSpeaker } from './engines/sherpa-manifest.ts';
export type { OpenAIConfig } from './engines/openai.ts';
export type { ElevenLabsConfig } from './engines/elevenlabs.ts';
export {
  analyzeSample,
  probeSample,
  decodeToPcm,
  sniffFormat,
  measurePcm,
  cloneProfile,
  readPrompt,
  promptVoice,
  referenceFromSample,
  ltas,
  ltasDistance,
  LTAS_BANDS,
  NOISY_SNR_DB,
  SAMPLE_MIN_SEC,
  SAMPLE_MAX_SEC,
  ANALYSIS_RATE,
  TONES,
} from './analysis/index.ts';
export type { SampleFormat, SampleProbe, VoiceMeasures, PromptTraits, Age, Tone } from './analysis/index.ts';
