/** The analysis thread: measures decoded samples off the server's event loop, one at a time. */
import { serveTasks } from '../threads/task-thread.ts';
import { measurePcm } from './measure.ts';
import type { MeasureTask } from './thread.ts';

serveTasks((m: MeasureTask) => measurePcm(m.samples, m.sampleRate));
