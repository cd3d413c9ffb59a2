/**
 * The watermark search in a thread of its own: a 30 s file that carries no mark takes the whole search, about half a
 * second of CPU, which on the server's event loop would hold up every other request (the public check is open to
 * anyone). One search at a time, in order, at background priority.
 */
import { TaskThread, ownedSamples } from '../threads/task-thread.ts';
import type { WatermarkResult } from './detect.ts';

export type DetectTask = { samples: Float32Array; sampleRate: number; key: Uint8Array; payload: boolean };

const detector = new TaskThread<DetectTask, WatermarkResult>(
  new URL('./detect-entry.mjs', import.meta.url),
  'watermark detection',
);

/** `detectWatermark` in the detection thread; the samples' buffer moves there. */
export function detectInThread(
  samples: Float32Array,
  sampleRate: number,
  key: Uint8Array,
  opts: { payload?: boolean; signal?: AbortSignal } = {},
): Promise<WatermarkResult> {
  const owned = ownedSamples(samples);
  return detector.run(
    { samples: owned, sampleRate, key: key.slice(), payload: opts.payload === true },
    [owned.buffer as ArrayBuffer],
    opts.signal,
  );
}

/** Searches sent to the thread and not yet answered, the running one included. */
export const detectionsQueued = (): number => detector.queued;
