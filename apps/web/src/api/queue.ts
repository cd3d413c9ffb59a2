/**
 * Holds requests until the session is ready (an anonymous account exists or a stored one is
 * confirmed). While waiting, tasks queue in order; `open` runs them, `fail` rejects them and every
 * later task until the queue is closed again for another attempt.
 */
export type QueueState = 'waiting' | 'ready' | 'failed';

interface Pending {
  run: () => void;
  reject: (error: unknown) => void;
}

export class RequestQueue {
  private state: QueueState = 'waiting';
  private failure: unknown = undefined;
  private pending: Pending[] = [];

  get status(): QueueState {
    return this.state;
  }

  get size(): number {
    return this.pending.length;
  }

  enqueue<T>(task: () => Promise<T>): Promise<T> {
    if (this.state === 'ready') return new Promise<T>((resolve) => resolve(task()));
    if (this.state === 'failed') return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run: () => resolve(new Promise<T>((r) => r(task()))), reject });
    });
  }

  /** The session is usable: run every waiting task, in the order they arrived. */
  open(): void {
    this.state = 'ready';
    this.failure = undefined;
    const waiting = this.pending;
    this.pending = [];
    for (const p of waiting) p.run();
  }

  /** A new session is being set up: later tasks wait again. */
  close(): void {
    this.state = 'waiting';
    this.failure = undefined;
  }

  /** The session could not be set up: reject what waits and what comes, until `close`. */
  fail(error: unknown): void {
    this.state = 'failed';
    this.failure = error;
    const waiting = this.pending;
    this.pending = [];
    for (const p of waiting) p.reject(error);
  }
}
