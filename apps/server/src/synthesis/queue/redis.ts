import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

/** The queue of interactive synthesis (a file or a stream someone waits on) and the queue of long jobs. */
export const TTS_QUEUE = 'tts';
export const JOBS_QUEUE = 'jobs';

export interface QueueSettings {
  redisUrl: string;
  prefix: string;
  stalledSeconds: number;
  /** How long an interactive request waits for a worker to take it before it is refused (RATE_LIMITED). */
  waitSeconds?: number;
  maxAttempts: number;
  /**
   * A worker process writes its heartbeat key (`<prefix>:worker:<id>`) every third of this, expiring after this; an API
   * process that waits on a worker's audio checks the key as often and counts the worker dead once it is gone.
   */
  heartbeatSeconds?: number;
}

const DEFAULT_HEARTBEAT_SECONDS = 3;

export function connection(url: string): Redis {
  // BullMQ's blocking commands want no retry limit on the connection.
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

export const outChannel = (prefix: string, id: string) => `${prefix}:out:${id}`;
export const cancelChannel = (prefix: string) => `${prefix}:cancel`;
export const heartbeatKey = (prefix: string, worker: string) => `${prefix}:worker:${worker}`;
export const heartbeatMs = (settings: QueueSettings) => (settings.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS) * 1000;

/** Counts the work waiting in both queues: `polyvox_queue_depth` on /metrics, and a worker's readiness. */
export interface QueueProbeOptions {
  settings: QueueSettings;
}

export class QueueProbe {
  private readonly queues: Array<[string, Queue]>;

  constructor(options: QueueProbeOptions) {
    const settings = options.settings;
    this.queues = [TTS_QUEUE, JOBS_QUEUE].map((name) => [
      name,
      new Queue(name, { connection: connection(settings.redisUrl), prefix: settings.prefix }),
    ]);
  }

  async depth(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [name, queue] of this.queues) {
      const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed');
      out[name] = Object.values(counts).reduce((a, b) => a + b, 0);
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map(([, queue]) => queue.close()));
  }
}
