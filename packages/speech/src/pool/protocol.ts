/** Messages between the pool and its worker threads. */
import type { MessagePort } from 'node:worker_threads';
import type { Mark } from '../audio/marked.ts';
import type { JoinSpec } from '../pipeline/pauses.ts';
import type { AudioFormat, VoiceInfo } from '../core/types.ts';

export interface WorkerConfig {
  modelsDir?: string;
  /** The pool's interactive lane: keeps normal priority (see pool.ts). */
  interactive?: boolean;
}

export type { SynthesisJob, SynthesisResult } from '../pipeline/job.ts';
import type { SynthesisJob, SynthesisResult } from '../pipeline/job.ts';

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
