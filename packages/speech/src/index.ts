/**
 * @polyvox/speech: engines, voice library, DSP and encoding. No HTTP, no database.
 *
 * The public API, and only it: the engine facade (`createSpeech`) with its request, result, voice and format types;
 * its errors; the cache interface and the in-memory store; voice analysis, cloning and prompt reading (what voice
 * design builds on); the character count the price is made of and the language check; the ffmpeg binary's path; and
 * the scan of a models folder (what the operator's `models` command shows).
 * Audio formats (16-bit PCM, WAV, G.711, resampling, MP3 frames), for Node and the browser alike, are the subpath
 * `@polyvox/speech/formats`. Everything else (engines, pool, pipeline, DSP) is internal: the package's own tests
 * import it by relative path, and the benchmarks the few parts they time alone through `@polyvox/speech/measure`.
 */
export { createSpeech, testRemoteProvider } from './speech.ts';
export type { RemoteOptions, Speech, SpeechOptions, SynthesisResult, VoiceFilter } from './speech.ts';
export type { ModelsChange } from './engines/sherpa.ts';
export { scanModelsDir } from './engines/sherpa-discover.ts';
export type { ModelProblem, ModelScan } from './engines/sherpa-discover.ts';
export type { SynthesisRequest, Plan, TextNormalization } from './pipeline/plan.ts';
export { TEXT_NORMALIZATIONS, spokenText } from './pipeline/plan.ts';
export { PAUSE_MS, type SentenceEnd } from './pipeline/pauses.ts';
export { AI_LABEL_KINDS, AI_LABEL_POSITIONS, strongerLabel } from './pipeline/ai-label.ts';
export type { AiLabel, AiLabelKind, AiLabelPosition } from './pipeline/ai-label.ts';
export { SpeechError, isSpeechError, SPEECH_ERROR_CODES } from './core/errors.ts';
export type { SpeechErrorCode } from './core/errors.ts';
export { AUDIO_FORMATS, CONTENT_TYPES } from './core/types.ts';
export type { AudioFormat, Gender, ModelInfo, VoiceInfo, VoiceProfile, WordTiming } from './core/types.ts';
export { QUALITY, isNeural } from './core/quality.ts';
export { MODEL_RECORD_FILE, readModelRecord } from './core/model-record.ts';
export type { ModelLicence, ModelRecord } from './core/model-record.ts';
export { discoverModels } from './engines/sherpa-discover.ts';
export type { CharacterAlignment, TimedWord, Timings } from './pipeline/timings.ts';
export { subtitles, cues, formatCues, SUBTITLE_FORMATS, LINE_CHARS } from './pipeline/subtitles.ts';
export type { SubtitleFormat, Cue } from './pipeline/subtitles.ts';
export { MemoryAudioCache } from './pipeline/cache.ts';
export type { AudioCache, CachedAudio } from './pipeline/cache.ts';
export type { OpenAIConfig } from './engines/openai.ts';
export type { ElevenLabsConfig } from './engines/elevenlabs.ts';
export { countCharacters } from './text/normalize.ts';
export { xsampaToIpa } from './text/xsampa.ts';
/** A pronunciation rule as a request carries it (`SynthesisRequest.lexicon`); the plan applies them. */
export type { LexiconRule } from './text/lexicon.ts';
/** A request's markup (SSML, ElevenLabs' breaks) as the plan reads it (`SynthesisRequest.markup`): the server reads the XML. */
export { SAY_AS_KINDS, SILENT_DB } from './text/markup.ts';
export type { MarkupDocument, MarkupPart, MarkupRule, SayAsKind } from './text/markup.ts';
export { checkLanguage } from './text/detect-language.ts';
export type { DetectedLanguage, LanguageCheck } from './text/detect-language.ts';
export { FFMPEG, decodeAudio } from './audio/ffmpeg.ts';
export { BITRATES } from './audio/encoders.ts';
/** A child process (ffmpeg encoding an export) lowered below the server's event loop, as the engines' are. */
export { lowerPriority } from './threads/priority.ts';
export { TaskThread, serveTasks } from './threads/task-thread.ts';
export {
  analyzeSample,
  probeSample,
  decodeToPcm,
  measurePcm,
  cloneProfile,
  readPrompt,
  promptVoice,
  instructedProfile,
  settingsProfile,
  DEFAULT_VOICE_SETTINGS,
  referenceFromSample,
  voiceprint,
  voiceprintDistance,
  voiceprintOfFile,
  VOICEPRINT_RATE,
} from './analysis/index.ts';
export type { SampleFormat, SampleProbe, VoiceMeasures, PromptTraits, Age, Tone, VoiceSettingsInput } from './analysis/index.ts';
/** Semitones from one frequency to another: how measured F0s (Hz) compare with a profile's pitch (semitones). */
export { semitonesBetween } from './dsp/f0.ts';
/** Joining speech made apart (a dialogue's turns): BS.1770 loudness of 16-bit PCM and matching it; `Speech.openPcmEncoder` encodes it. */
export { SPEECH_LUFS, pcmLoudness, matchLoudness } from './joining.ts';
export type { MatchedPcm } from './joining.ts';
export type { PcmEncoder } from './audio/pcm-encoder.ts';
