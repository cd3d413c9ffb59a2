/** Messages between the pool and its worker threads. */
import type { MessagePort } from 'node:worker_threads';
import type { Mark } from '../audio/marked.ts';
import type { JoinSpec } from '../pipeline/pauses.ts';
import type { AudioFormat, EngineRequest, VoiceInfo, VoiceProfile, WordTiming } from '../types.ts';

export interface WorkerConfig {
  modelsDir?: string;
  /** The pool's interactive lane: keeps normal priority (see pool.ts). */
  interactive?: boolean;
}

export interface SynthesisJob {
  engine: string;
  voice: VoiceInfo;
  text: string;
  language?: string;
  speed: number;
  pitch: number;
  profile: VoiceProfile;
  /** Output sample rate; the worker resamples. */
  sampleRate: number;
  /** Engine rates the output format takes as they are (mp3, Ogg Opus): audio at one is not resampled. */
  keepRates?: number[];
  /** Normalize loudness to the platform target. */
  loudness: boolean;
  reference?: EngineRequest['reference'];
  /** Word times are wanted (`EngineRequest.words`). */
  words?: boolean;
  /**
   * The loudness gain (dB) this voice needed before: with it, a sentence the engine makes piece by
   * piece is gained, limited and sent to the encoder while the engine still runs (see streamed.ts).
   */
  gainDb?: number;
}

export interface SynthesisResult {
  samples: Float32Array;
  sampleRate: number;
  words: WordTiming[];
  /** Milliseconds the engine and DSP took inside the worker. */
  engineMs: number;
  dspMs: number;
  /** With a sink: the samples went to the encoder; `samples` is empty and this is their count. */
  length?: number;
  /** With a sink: the gain (dB) that would have brought this sentence to the target, to learn from. */
  gainDb?: number;
  /** With a sink: the audio sent while the engine ran was kept (within the loudness tolerance). */
  streamed?: boolean;
}

export type ToWorker =
  /** With a sink and a mark: the worker puts the watermark in the samples it sends (see streamed.ts). */
  /** `join`: the sentence is joined to the others here, in the worker, before it is sent (pipeline/pauses.ts). */
  | { type: 'synthesize'; id: number; job: SynthesisJob; sink?: MessagePort; mark?: Mark; join?: JoinSpec }
  /** A stream's first sentence: its first `aheadSec` seconds sent on `sink` as they are made (see streamed.ts). */
  | { type: 'ahead'; id: number; job: SynthesisJob; sink: MessagePort; aheadSec: number }
  | { type: 'encode'; id: number; samples: Float32Array; sampleRate: number; format: AudioFormat }
  | { type: 'voices'; id: number }
  | { type: 'warmup'; id: number };

export type FromWorker =
  | { type: 'result'; id: number; result: SynthesisResult }
  | { type: 'voices'; id: number; voices: VoiceInfo[]; models: unknown[] }
  | { type: 'encoded'; id: number; audio: Uint8Array }
  | { type: 'done'; id: number }
  | {
      type: 'error';
      id: number;
      error: { name: string; message: string; code?: string; params?: Record<string, string | number> };
    };
