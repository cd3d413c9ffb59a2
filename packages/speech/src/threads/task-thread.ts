/**
 * A thread of its own for one kind of CPU-bound task that must not hold up the server's event loop (measuring a clone
 * sample, searching a file for the watermark, validating a C2PA manifest's hashes): started on first use, never holding the process open while idle, its
 * tasks taken in the order they came. If the thread dies, its pending tasks fail and the next task starts
 * a new one. A task cannot be interrupted inside the thread, so aborting one ends the thread, and the tasks queued
 * behind it fail with it.
 */
import { Worker, parentPort } from 'node:worker_threads';
import { SpeechError } from '../core/errors.ts';
import { lowerPriority } from './priority.ts';

type Reply<R> = { id: number; result?: R; error?: string };
type Pending<R> = { resolve: (r: R) => void; reject: (e: unknown) => void };

export class TaskThread<T extends object, R> {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending<R>>();
  private seq = 0;

  /** `entry`: the thread's module, a URL the caller makes next to its own module (where the server's build looks for it). */
  constructor(
    private readonly entry: URL,
    private readonly what: string,
  ) {}

  /** Tasks sent and not yet answered, the one running included. */
  get queued(): number {
    return this.pending.size;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.entry, { execArgv: [] });
    w.unref();
    w.on('message', (msg: Reply<R>) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (!this.pending.size) w.unref();
      if (msg.error === undefined) p.resolve(msg.result as R);
      else p.reject(new SpeechError('INTERNAL', `${this.what} failed: ${msg.error}`));
    });
    const died = (err: Error): void => {
      if (this.worker !== w) return;
      this.worker = undefined;
      for (const p of this.pending.values()) p.reject(new SpeechError('INTERNAL', `${this.what} thread failed: ${err.message}`));
      this.pending.clear();
    };
    w.on('error', died);
    w.on('exit', (code) => died(new Error(`exited with code ${code}`)));
    this.worker = w;
    return w;
  }

  /** Runs `task` in the thread; the buffers in `transfer` move there, so the caller must not use them again. */
  run(task: T, transfer: ArrayBuffer[], signal?: AbortSignal): Promise<R> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    const w = this.thread();
    const id = ++this.seq;
    return new Promise<R>((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.pending.delete(id)) return;
        reject(signal!.reason ?? new Error('aborted'));
        if (this.worker === w) this.worker = undefined;
        for (const p of this.pending.values()) p.reject(new SpeechError('INTERNAL', `${this.what} thread stopped`));
        this.pending.clear();
        void w.terminate();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (r) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(r);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      w.ref();
      w.postMessage({ ...task, id }, transfer);
    });
  }

  /** Ends the thread; what is pending fails. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(new SpeechError('INTERNAL', `${this.what} thread closed`));
    this.pending.clear();
    await w?.terminate();
  }
}

/**
 * The thread's side: lowers its priority (unless its tasks are on a request's path: `foreground`) and answers each task
 * with `handle`'s result or its error's message (a promise's, once it settles).
 */
export function serveTasks<T, R>(handle: (task: T) => R | Promise<R>, opts: { foreground?: boolean } = {}): void {
  if (!opts.foreground) lowerPriority();
  const port = parentPort!;
  port.on('message', (m: T & { id: number }) => {
    const failed = (e: unknown): Reply<R> => ({ id: m.id, error: e instanceof Error ? e.message : String(e) });
    let result: R | Promise<R>;
    try {
      result = handle(m);
    } catch (e) {
      port.postMessage(failed(e));
      return;
    }
    if (!(result instanceof Promise)) port.postMessage({ id: m.id, result } satisfies Reply<R>);
    else
      result.then(
        (r) => port.postMessage({ id: m.id, result: r } satisfies Reply<R>),
        (e: unknown) => port.postMessage(failed(e)),
      );
  });
}

/** A view's samples as a buffer of their own, so that transferring it detaches nothing the caller still uses. */
export const ownedSamples = (s: Float32Array): Float32Array =>
  s.byteOffset === 0 && s.byteLength === s.buffer.byteLength ? s : s.slice();
