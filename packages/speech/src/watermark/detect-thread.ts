/** The detection thread: searches decoded samples for the watermark off the server's event loop, one at a time. */
import { serveTasks } from '../threads/task-thread.ts';
import { detectWatermark } from './detect.ts';
import type { DetectTask } from './thread.ts';

serveTasks((m: DetectTask) => detectWatermark(m.samples, m.sampleRate, m.key, { payload: m.payload }));
