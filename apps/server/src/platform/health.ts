/** One part a process needs to do its work: the database, Redis, storage, a worker's queue. */
export interface ReadinessCheck {
  name: string;
  /** Resolves when the part answers; throws (or takes longer than the timeout) when it does not. */
  check: () => Promise<unknown>;
}

export interface ReadinessReport {
  ready: boolean;
  /** The parts that failed, in the order they were registered. */
  failed: string[];
  checks: Record<string, { ok: boolean; ms: number; error?: string }>;
}

/**
 * The checks behind `/readyz`. The app registers the database, Redis (when set) and storage; the queue module adds its
 * queue for a worker. All run at once, each bounded by `timeoutMs`, so one part that hangs cannot hold the answer.
 */
export class Readiness {
  private readonly checks: ReadinessCheck[] = [];

  constructor(private readonly timeoutMs = 2000) {}

  add(name: string, check: () => Promise<unknown>): void {
    this.checks.push({ name, check });
  }

  get names(): string[] {
    return this.checks.map((c) => c.name);
  }

  async run(): Promise<ReadinessReport> {
    const results = await Promise.all(
      this.checks.map(async ({ name, check }) => {
        const started = performance.now();
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
            }),
          ]);
          return { name, ok: true, ms: elapsed(started) };
        } catch (e) {
          return { name, ok: false, ms: elapsed(started), error: e instanceof Error ? e.message : String(e) };
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const checks: ReadinessReport['checks'] = {};
    for (const { name, ...rest } of results) checks[name] = rest;
    const failed = results.filter((r) => !r.ok).map((r) => r.name);
    return { ready: failed.length === 0, failed, checks };
  }
}

const elapsed = (started: number) => Math.round((performance.now() - started) * 100) / 100;
