import type { JobProvider } from './layer.js';

/**
 * Jobs in the database alone (ROLE=all): a new job runs in the process that recorded it, and one whose process went
 * quiet is taken over by another process's heartbeat rounds (`SynthesisJobs.resumeStale`). Nothing is sent anywhere:
 * the row is the whole of it, and a cancel reaches the running job through its row and its process.
 */
export class DatabaseJobProvider implements JobProvider {
  readonly name = 'database' as const;
  readonly runsHere = true;

  async submit(): Promise<void> {}

  async cancel(): Promise<void> {}

  async depth(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}
