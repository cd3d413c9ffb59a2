/** The analysis thread: measures decoded samples off the server's event loop, one at a time. */
import { parentPort } from 'node:worker_threads';
import { lowerPriority } from '../pool/priority.ts';
import { measurePcm } from './measure.ts';

lowerPriority();

const port = parentPort!;
port.on('message', (m: { id: number; samples: Float32Array; sampleRate: number }) => {
  try {
    port.postMessage({ id: m.id, measures: measurePcm(m.samples, m.sampleRate) });
  } catch (e) {
    port.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
