/** Messages between the encoder host and its thread. */
import type { MessagePort } from 'node:worker_threads';
import type { AudioFormat } from '../core/types.ts';
import type { Mark } from './marked.ts';

export type ToEncoder =
  | { type: 'encode'; id: number; samples: Float32Array; sampleRate: number; format: AudioFormat; mark?: Mark }
  /** `whole`: the stream's bytes are kept in the thread and come out as one checked file at `end`. */
  | { type: 'open'; id: number; stream: number; format: AudioFormat; sampleRate: number; whole?: boolean; mark?: Mark }
  | { type: 'write'; id: number; stream: number; samples: Float32Array }
  | { type: 'end'; id: number; stream: number }
  | { type: 'free'; stream: number }
  /** A whole file whose samples come on `port` from the pool worker that makes them, marked there (`ToFileSink`). */
  | { type: 'file'; id: number; format: AudioFormat; port: MessagePort }
  | { type: 'drop'; file: number };

/** From a pool worker to the encoder thread, on a file's own port. */
export type ToFileSink =
  /** The file's rate: the encoder opens now, before the first samples. */
  | { type: 'open'; sampleRate: number }
  | { type: 'pcm'; samples: Float32Array }
  /** Everything sent is the file. */
  | { type: 'end' }
  /** What was sent (if anything) is dropped: these samples are the file. */
  | { type: 'whole'; samples: Float32Array; sampleRate: number }
  /** The synthesis failed: nothing more comes. */
  | { type: 'fail' };

export type FromEncoder =
  | { type: 'encoded'; id: number; audio: Uint8Array }
  | { type: 'bytes'; id: number; chunks: Uint8Array[] }
  | { type: 'error'; id: number; error: { name: string; message: string; code?: string } };
