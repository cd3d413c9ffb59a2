import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { cancelChannel, connection, JOBS_QUEUE, type QueueSettings } from './redis.js';
import type { JobProvider } from '../jobs/layer.js';

/** A long job's queue message: it only names the job, whose row is the truth. */
export const longJobMessage = z.object({ id: z.string().min(1), kind: z.string().optional(), reqId: z.string().optional() });
export type LongJobMessage = z.infer<typeof longJobMessage>;

export interface BullMqJobProviderOptions {
  settings: QueueSettings;
}

/**
 * Jobs through BullMQ (ROLE=api): a new job is named on the `jobs` queue and a worker process takes it (its stalled
 * check hands a dead worker's job to another, up to the attempts); a cancel takes it out of the queue and tells the
 * workers to stop it.
 */
export class BullMqJobProvider implements JobProvider {
  readonly name = 'bullmq' as const;
  readonly runsHere = false;
  private readonly settings: QueueSettings;
  private readonly queue: Queue<LongJobMessage>;
  private readonly pub: Redis;

  constructor(options: BullMqJobProviderOptions) {
    this.settings = options.settings;
    this.queue = new Queue<LongJobMessage>(JOBS_QUEUE, {
      connection: connection(this.settings.redisUrl),
      prefix: this.settings.prefix,
    });
    this.pub = connection(this.settings.redisUrl);
  }

  async submit(kind: string, id: string, reqId?: string): Promise<void> {
    // A job a worker hands back on shutdown (or whose worker died) runs again, up to the attempts.
    await this.queue.add(
      kind,
      { id, kind, ...(reqId ? { reqId } : {}) },
      { jobId: id, removeOnComplete: true, removeOnFail: true, attempts: this.settings.maxAttempts },
    );
  }

  async cancel(_kind: string, id: string): Promise<void> {
    await this.queue.remove(id).catch(() => {});
    await this.pub.publish(cancelChannel(this.settings.prefix), id);
  }

  async depth(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'active', 'prioritized', 'delayed');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.pub.disconnect();
  }
}
