/** The shapes of the speech facade (`createSpeech`, speech.ts): its options, its results and its methods. */
import type { ModelsChange } from '../engines/sherpa.ts';
import type { ModelProblem } from '../engines/sherpa-discover.ts';
import type { AudioCache } from '../pipeline/cache.ts';
import type { Plan, SynthesisRequest } from '../pipeline/plan.ts';
import type { Timings } from '../pipeline/timings.ts';
import type { DetectedLanguage, LanguageCheck } from '../text/detect-language.ts';
import type { AudioFormat, ModelInfo, VoiceInfo, WordTiming } from '../core/types.ts';
import type { RemoteOptions } from './remote.ts';
import type { PcmEncoder } from '../audio/pcm-encoder.ts';
import type { Mark } from '../audio/marked.ts';

export interface SpeechOptions {
  /**
   * Folder of sherpa-onnx models (MODELS_DIR): release folders and Piper voices as distributed, found by
   * their layout, with `manifest.json` over them (see docs/models.md).
   */
  modelsDir?: string;
  /**
   * Follow MODELS_DIR while running (default true): a model added or removed is picked up within
   * this many milliseconds (default 3000; 0: only by `rescanModels()`).
   */
  modelsPollMs?: number;
  /** Remote providers, each enabled by its URL and key. */
  remote?: RemoteOptions;
  /** Worker threads; default os.availableParallelism(). */
  poolSize?: number;
  /** An interactive lane beside them (default true); see PoolOptions. */
  interactiveLane?: boolean;
  /**
   * Output sample rate (default 24 kHz). Without it, mp3 and Ogg Opus keep an engine's own rate when
   * the format has it (eSpeak's 22,050 Hz is an MPEG-2 rate): no resampling, nothing filtered away.
   */
  sampleRate?: number;
  /** Audio cache for whole-file synthesis and streams; false disables it. */
  cache?: AudioCache | false;
  maxTextLength?: number;
  /**
   * The server's watermark key: every sample encoded carries the mark, with a 32-bit payload derived from the
   * content (its cache key), so a cached replay carries the payload its first rendering did.
   */
  watermark?: { key: Uint8Array };
  /** Load engines in every worker at start (default true). */
  warmup?: boolean;
  /**
   * Stops the start: a warmup still running (tens of seconds on a busy machine) is cut short, the
   * threads it started are ended, and the promise rejects with the signal's reason. A shutdown that
   * comes during the start does not wait for it.
   */
  signal?: AbortSignal;
}

export interface SynthesisResult {
  audio: Buffer;
  format: AudioFormat;
  contentType: string;
  durationSec: number;
  sampleRate: number;
  characters: number;
  language: string;
  sentences: number;
  words: WordTiming[];
  /** The alignment of the text to the audio, when the request asked for it (`timings: true`). */
  timings?: Timings;
  cacheKey: string;
  cached: boolean;
  /** The 32-bit watermark payload in its sound, or null when the speech has no watermark key. */
  mark?: number | null;
  /**
   * The file was encoded while its engine still ran, gained with the voice's learnt loudness gain
   * (and came within the loudness tolerance); false when it was normalized and encoded afterwards.
   */
  encodedAhead?: boolean;
}

export interface VoiceFilter {
  model?: string;
  engine?: string;
  language?: string;
  gender?: string;
  name?: string;
  mixable?: boolean;
  /** Only neural voices (true) or only the others (false). */
  neural?: boolean;
}

export interface Speech {
  listVoices(filter?: VoiceFilter): VoiceInfo[];
  getVoice(id: string): VoiceInfo | undefined;
  listModels(): ModelInfo[];
  synthesize(req: SynthesisRequest): Promise<SynthesisResult>;
  /** Encoded audio chunks, each as soon as it is encoded. */
  synthesizeStream(req: SynthesisRequest): AsyncIterable<Buffer>;
  /** Validates and prepares a request (throws the same errors synthesis would), without synthesizing. */
  /** The request's plan; `timeable`: whether it can have timings (an engine's own word times, or an eSpeak NG language). */
  prepare(req: SynthesisRequest): Plan & { cacheKey: string; contentType: string; mark: number | null; timeable: boolean };
  renderPreview(voiceId: string, format?: AudioFormat): Promise<SynthesisResult>;
  /**
   * Blends 1 to 3 voices of one mixable model. A part is a library voice by id, or `voice`: a
   * library voice carrying a profile of its own (a caller's saved voice built on it).
   */
  mix(parts: ({ voiceId: string; weight: number } | { voice: VoiceInfo; weight: number })[]): {
    base: VoiceInfo;
    profile: VoiceInfo['profile'];
  };
  /** A voice of a zero-shot model (type `cloning`); synthesize with it and a `reference` sample. */
  cloneVoice(modelId: string, name: string, gender?: VoiceInfo['gender']): VoiceInfo;
  estimateCharacters(text: string): number;
  detectLanguage(text: string): DetectedLanguage;
  checkLanguage(text: string, voiceId: string): LanguageCheck;
  readonly poolSize: number;
  /** Whether the worker threads (the engines) have started: they start with the first synthesis or at warmup. */
  readonly enginesStarted: boolean;
  /** Remote providers that were configured but could not be reached at start. */
  readonly unavailable: ReadonlyArray<{ provider: string; code: string; message: string }>;
  /** MODELS_DIR's folders skipped at the last scan (incomplete or unreadable), each with the file at fault. */
  readonly modelProblems: ReadonlyArray<ModelProblem>;
  /** Reads MODELS_DIR now: voices of models added appear, those of models removed go. */
  rescanModels(): ModelsChange;
  /**
   * Replaces the remote providers while running (an operator's change): their voices appear or go at once, a synthesis
   * already running keeps the engine it started with. Answers which providers could not be reached (ElevenLabs lists
   * its voices first); those stay out, as at start.
   */
  setRemote(next: RemoteOptions): Promise<{ unavailable: { provider: string; code: string; message: string }[] }>;
  /**
   * An mp3 or Ogg Opus encoder of 16-bit mono PCM at `sampleRate` (speech joined outside the engines, a dialogue's
   * turns), on the encoder thread: never on the caller's event loop. `whole`: one checked file, given at `end`.
   * `pcm`: the 16-bit samples back as they were given (with `mark`, watermarked: a file another encoder makes). `mark`:
   * the watermark put in the samples on the thread, as every encode of the platform's own speech does.
   */
  openPcmEncoder(format: 'mp3' | 'opus' | 'pcm', sampleRate: number, whole?: boolean, mark?: Mark): PcmEncoder;
  /** Called after a rescan (a poll's or rescanModels') that changed the models; returns the unsubscribe. */
  onModelsChange(listener: (change: ModelsChange) => void): () => void;
  close(): Promise<void>;
}
