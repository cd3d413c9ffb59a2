/**
 * Measuring a 5-minute sample takes a second or two of CPU: it runs in a thread of its own (started
 * on first use, at background priority, never holding the process open while idle), so the server
 * keeps answering. Aborting a measure ends the thread; the next one starts a new thread.
 */
import { Worker } from 'node:worker_threads';
import { SpeechError } from '../errors.ts';
import type { VoiceMeasures } from './measure.ts';

type Reply = { id: number; measures?: VoiceMeasures; error?: string };
type Pending = { resolve: (m: VoiceMeasures) => void; reject: (e: unknown) => void };

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let seq = 0;

function thread(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL('./measure-entry.mjs', import.meta.url), { execArgv: [] });
  w.unref();
  w.on('message', (msg: Reply) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (!pending.size) w.unref();
    if (msg.measures) p.resolve(msg.measures);
    else p.reject(new SpeechError('INTERNAL', `analysis failed: ${msg.error ?? 'unknown error'}`));
  });
  const died = (err: Error): void => {
    if (worker !== w) return;
    worker = undefined;
    for (const p of pending.values()) p.reject(new SpeechError('INTERNAL', `analysis thread failed: ${err.message}`));
    pending.clear();
  };
  w.on('error', died);
  w.on('exit', (code) => died(new Error(`exited with code ${code}`)));
  worker = w;
  return w;
}

/** measurePcm in the analysis thread; the samples' buffer moves there. */
export function measureInThread(samples: Float32Array, sampleRate: number, signal?: AbortSignal): Promise<VoiceMeasures> {
  if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
  const w = thread();
  const id = ++seq;
  return new Promise<VoiceMeasures>((resolve, reject) => {
    const onAbort = (): void => {
      if (!pending.delete(id)) return;
      reject(signal!.reason ?? new Error('aborted'));
      // The measure cannot be interrupted inside the thread: the thread goes, with whatever it was doing.
      if (worker === w) worker = undefined;
      for (const p of pending.values()) p.reject(new SpeechError('INTERNAL', 'analysis thread stopped'));
      pending.clear();
      void w.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    pending.set(id, {
      resolve: (m) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(m);
      },
      reject: (e) => {
        signal?.removeEventListener('abort', onAbort);
        reject(e);
      },
    });
    w.ref();
    const owned = samples.byteOffset === 0 && samples.byteLength === samples.buffer.byteLength ? samples : samples.slice();
    w.postMessage({ id, samples: owned, sampleRate }, [owned.buffer as ArrayBuffer]);
  });
}
