/** Messages between the encoder host and its thread. */
import type { AudioFormat } from '../types.ts';

export type ToEncoder =
  | { type: 'encode'; id: number; samples: Float32Array; sampleRate: number; format: AudioFormat }
  | { type: 'open'; id: number; stream: number; format: AudioFormat; sampleRate: number }
  | { type: 'write'; id: number; stream: number; samples: Float32Array }
  | { type: 'end'; id: number; stream: number }
  | { type: 'free'; stream: number };

export type FromEncoder =
  | { type: 'encoded'; id: number; audio: Uint8Array }
  | { type: 'bytes'; id: number; chunks: Uint8Array[] }
  | { type: 'error'; id: number; error: { name: string; message: string; code?: string } };
