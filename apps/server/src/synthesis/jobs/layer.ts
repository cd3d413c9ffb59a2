import type { AnyJobDefinition, JobDefinition, JobHandler } from './definition.js';
import { readPayload } from './definition.js';

/**
 * Where jobs go once recorded. The database provider runs a new job in this process at once and a job whose process
 * stopped saying it is alive is taken over by another (the jobs' heartbeat rounds); the BullMQ provider names the job
 * on a Redis queue and a worker process takes it. Either way the job's row stays its truth.
 */
export interface JobProvider {
  readonly name: 'database' | 'bullmq';
  /** Whether a new job runs in this process at once (database) or waits for a worker process (BullMQ). */
  readonly runsHere: boolean;
  /** Hands a new job, already recorded, to whoever runs it. */
  submit(kind: string, id: string, reqId?: string): Promise<void>;
  /** A cancelled job: out of the queue if it still waits there, stopped in whichever process runs it. */
  cancel(kind: string, id: string): Promise<void>;
  /** Jobs waiting or running through this provider (what a queue holds; the database provider counts none). */
  depth(): Promise<number>;
  close(): Promise<void>;
}

/** A kind's handler, as registered: see `handle`. */
export interface RegisteredHandler {
  readonly kind: string;
  readonly run: JobHandler<unknown, unknown, unknown>;
}

/** Registers the handler of a kind, typed by its definition. */
export function handle<P, C, R>(definition: JobDefinition<P, C, R>, run: JobHandler<P, C, R>): RegisteredHandler {
  return { kind: definition.name, run: run as JobHandler<unknown, unknown, unknown> };
}

export interface JobLayerOptions {
  /** Every kind of job this release knows. */
  kinds: readonly AnyJobDefinition[];
  /** A handler for each of them. */
  handlers: readonly RegisteredHandler[];
  provider: JobProvider;
}

/**
 * The job layer: the kinds of job, their handlers and the provider jobs go through. `start` refuses a layer in which
 * a kind has no handler (or a handler no kind), so a release that would take a job it cannot run does not start.
 */
export class JobLayer {
  readonly provider: JobProvider;
  private readonly kinds: ReadonlyMap<string, AnyJobDefinition>;
  private readonly handlers: Map<string, RegisteredHandler['run']>;
  private started = false;

  constructor(options: JobLayerOptions) {
    this.provider = options.provider;
    this.kinds = new Map(options.kinds.map((k) => [k.name, k]));
    this.handlers = new Map();
    for (const h of options.handlers) {
      if (this.handlers.has(h.kind)) throw new Error(`job kind "${h.kind}" has two handlers registered`);
      this.handlers.set(h.kind, h.run);
    }
  }

  /** Checks that every kind has its handler; throws (naming them) when one has none. Returns the layer. */
  start(): this {
    const missing = [...this.kinds.keys()].filter((name) => !this.handlers.has(name));
    if (missing.length > 0)
      throw new Error(
        `job layer cannot start: no handler registered for job kind${missing.length > 1 ? 's' : ''} ${missing.map((n) => `"${n}"`).join(', ')}`,
      );
    const unknown = [...this.handlers.keys()].filter((name) => !this.kinds.has(name));
    if (unknown.length > 0) throw new Error(`job layer cannot start: handler for unknown job kind "${unknown[0]}"`);
    this.started = true;
    return this;
  }

  /** The handler of a kind (the layer must have started). */
  handler<P, C, R>(definition: JobDefinition<P, C, R>): JobHandler<P, C, R> {
    if (!this.started) throw new Error('job layer not started');
    const run = this.handlers.get(definition.name);
    if (!run || this.kinds.get(definition.name) !== definition) throw new Error(`unknown job kind "${definition.name}"`);
    return run as JobHandler<P, C, R>;
  }

  /** The kind of that name, if this release has it. */
  kind(name: string): AnyJobDefinition | undefined {
    return this.kinds.get(name);
  }

  /** A kind's stored payload, checked (`JobPayloadError` when it is not what the kind expects). */
  read<P, C, R>(definition: JobDefinition<P, C, R>, jobId: string, stored: unknown): P {
    return readPayload(definition, jobId, stored);
  }
}
