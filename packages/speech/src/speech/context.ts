/** What the whole-file and the streamed synthesis (whole.ts, stream.ts) share: the facade's parts, made once. */
import type { Mark } from '../audio/marked.ts';
import { NATIVE_RATES } from '../audio/encoders.ts';
import type { AiLabelPosition } from '../pipeline/ai-label.ts';
import type { Plan } from '../pipeline/plan.ts';
import type { AudioFormat } from '../core/types.ts';
import type { ChunkContext } from './chunks.ts';
import type { ContentCache } from './content-cache.ts';
import type { GainMemory } from './gains.ts';
import type { VoiceLibrary } from './library.ts';
import type { Planner } from './planning.ts';
import type { Aligner } from './reference-align.ts';
import type { SpeechThreads } from './threads.ts';

/** Seconds of a stream's (or a one-sentence file's) first sentence encoded and sent ahead of the rest of it. */
export const FIRST_SLICE_SEC = 0.3;

export interface SynthesisContext {
  /** The configured output rate. */
  sampleRate: number;
  /** Whether the rate was configured: without it, mp3 and Ogg Opus keep an engine's own rate when the format has it. */
  fixedRate: boolean;
  chunks: ChunkContext;
  threads: SpeechThreads;
  library: VoiceLibrary;
  planner: Planner;
  cache: ContentCache;
  gains: GainMemory;
  /** The mark of a content, by its cache key (none without a watermark key). */
  markOf(contentKey: string): Mark | undefined;
  /** The plan's explicit label with its gap, at `rate`, when it goes at `position`. */
  labelAt(plan: Plan, position: AiLabelPosition, rate: number, signal?: AbortSignal): Promise<Float32Array | undefined>;
  /** The reference aligner of a plan whose engine reports no word times. */
  aligner(plan: Plan, signal?: AbortSignal): Aligner;
  /** The rate each engine's sentences came at, per format: a stream's encoder opens with it. */
  streamRates: Map<string, number>;
}

/** The engine rates a format takes as they are, when no output rate is configured (eSpeak's 22,050 Hz is an MPEG-2 rate). */
export function keepRates(s: SynthesisContext, format: AudioFormat): { keepRates?: number[] } {
  return !s.fixedRate && (format === 'mp3' || format === 'opus') ? { keepRates: [...NATIVE_RATES[format]] } : {};
}

/** Whether a plan's engine runs in the pool (a local engine that no remote provider of the same id shadows). */
export function inPool(s: SynthesisContext, plan: Plan): boolean {
  return s.chunks.localEngines.has(plan.voice.engine) && !s.library.remote.has(plan.voice.engine);
}
