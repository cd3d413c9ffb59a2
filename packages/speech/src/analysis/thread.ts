/**
 * Measuring a 5-minute sample takes a second or two of CPU: it runs in a thread of its own (started
 * on first use, at background priority, never holding the process open while idle), so the server
 * keeps answering. Aborting a measure ends the thread; the next one starts a new thread.
 */
import { TaskThread, ownedSamples } from '../threads/task-thread.ts';
import type { VoiceMeasures } from './measure.ts';

export type MeasureTask = { samples: Float32Array; sampleRate: number };

const analysis = new TaskThread<MeasureTask, VoiceMeasures>(new URL('./measure-entry.mjs', import.meta.url), 'analysis');

/** measurePcm in the analysis thread; the samples' buffer moves there. */
export function measureInThread(samples: Float32Array, sampleRate: number, signal?: AbortSignal): Promise<VoiceMeasures> {
  const owned = ownedSamples(samples);
  return analysis.run({ samples: owned, sampleRate }, [owned.buffer as ArrayBuffer], signal);
}
