/**
 * A pool of worker threads sized to the machine, with a FIFO queue: engines are synchronous
 * WASM/JS, so they never run on the caller's event loop. A worker that dies fails its job and is
 * replaced.
 *
 * Work can wait in the queue while its caller goes away: a task whose signal aborts leaves the
 * queue at once, and a task that can no longer be handed to a worker (a sink port whose other end
 * was closed meanwhile, so `postMessage` refuses its transfer list) fails alone. Nothing the pool
 * does on a worker's message may throw: it runs outside any caller, where a throw ends the process.
 */
import os from 'node:os';
import { Worker, type MessagePort, type Transferable } from 'node:worker_threads';
import { SpeechError, reviveError } from '../core/errors.ts';
import type { Mark } from '../audio/marked.ts';
import type { AudioFormat } from '../core/types.ts';
import type { JoinSpec } from '../pipeline/pauses.ts';
import type { FromWorker, SynthesisJob, SynthesisResult, ToWorker, WorkerConfig } from './protocol.ts';

type Pending = { resolve: (v: any) => void; reject: (e: Error) => void };
type Task = { msg: ToWorker; transfer: Transferable[]; pending: Pending };

interface Slot {
  worker: Worker;
  busy: Task | undefined;
  /** The interactive lane: normal priority, for the one sentence a caller is waiting on. */
  interactive: boolean;
}

export interface PoolOptions extends WorkerConfig {
  size?: number;
  /**
   * A separate interactive lane beside the `size` background workers (default true). Without it the pool
   * has exactly `size` engine threads and a waited-on sentence takes the first free one, so a process given
   * one thread uses one core (a worker process of a scale-out deployment).
   */
  interactiveLane?: boolean;
}

export class WorkerPool {
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  /** Tasks waiting for the interactive lane (they take a background worker if one is free first). */
  private readonly urgent: Task[] = [];
  private lane: Slot | null;
  private seq = 0;
  private closed = false;
  private readonly config: WorkerConfig;

  constructor(opts: PoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? os.availableParallelism());
    this.config = opts.modelsDir ? { modelsDir: opts.modelsDir } : {};
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn(false));
    this.lane = opts.interactiveLane === false ? null : this.spawn(true);
  }

  private allSlots(): Slot[] {
    return this.lane ? [...this.slots, this.lane] : [...this.slots];
  }

  private spawn(interactive: boolean): Slot {
    const worker = new Worker(new URL('./worker-entry.mjs', import.meta.url), {
      workerData: { ...this.config, interactive } satisfies WorkerConfig,
      execArgv: [],
    });
    const slot: Slot = { worker, busy: undefined, interactive };
    worker.unref();
    worker.on('message', (msg: FromWorker) => {
      const task = slot.busy;
      if (!task || task.msg.id !== msg.id) return;
      slot.busy = undefined;
      if (msg.type === 'error')
        task.pending.reject(
          reviveError(
            msg.error.code
              ? { ...msg.error, name: 'SpeechError' }
              : Object.assign(new Error(msg.error.message), { name: msg.error.name }),
          ),
        );
      else if (msg.type === 'result') task.pending.resolve(msg.result);
      else if (msg.type === 'encoded') task.pending.resolve(msg.audio);
      else if (msg.type === 'voices') task.pending.resolve({ voices: msg.voices, models: msg.models });
      else task.pending.resolve(undefined);
      this.pump();
    });
    const died = (err: Error): void => {
      const i = this.slots.indexOf(slot);
      if (i < 0 && this.lane !== slot) return;
      slot.busy?.pending.reject(new SpeechError('INTERNAL', `synthesis worker failed: ${err.message}`, { cause: err }));
      slot.busy = undefined;
      if (this.closed) return;
      if (i >= 0) this.slots[i] = this.spawn(false);
      else this.lane = this.spawn(true);
      this.pump();
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`exited with code ${code}`)));
    return slot;
  }

  /** Hands `task` to `slot`'s worker; false (and the task failed) when it cannot be posted. */
  private start(slot: Slot, task: Task): boolean {
    try {
      slot.worker.postMessage(task.msg, task.transfer);
    } catch (e) {
      // DataCloneError: a port in the transfer list was closed while the task waited (its caller left).
      const err = e as Error;
      task.pending.reject(new SpeechError('INTERNAL', `synthesis work could not be started: ${err.message}`, { cause: err }));
      closePorts(task);
      return false;
    }
    slot.busy = task;
    slot.worker.ref();
    return true;
  }

  /** The next task that is still wanted (an aborted one has already left its queue), from `queues` in order. */
  private next(...queues: Task[][]): Task | undefined {
    for (const q of queues) if (q.length) return q.shift();
    return undefined;
  }

  private pump(): void {
    // An urgent task takes the interactive lane, else any free background worker; background work
    // never runs in the lane, so it never competes with the API at normal priority.
    if (this.lane) {
      while (!this.lane.busy) {
        const task = this.next(this.urgent);
        if (!task) break;
        this.start(this.lane, task);
      }
    }
    for (const slot of this.slots) {
      while (!slot.busy) {
        const task = this.next(this.urgent, this.queue);
        if (!task) break;
        this.start(slot, task);
      }
    }
    for (const slot of this.allSlots()) if (!slot.busy) slot.worker.unref();
  }

  private submit<T>(
    make: (id: number) => ToWorker,
    transfer: Transferable[] = [],
    urgent = false,
    signal?: AbortSignal,
  ): Promise<T> {
    if (this.closed) return Promise.reject(new SpeechError('INTERNAL', 'the synthesis pool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    return new Promise<T>((resolve, reject) => {
      const queue = urgent ? this.urgent : this.queue;
      // A caller that leaves while its task waits takes the task out of the queue: no worker runs it.
      const onAbort = (): void => {
        const i = queue.indexOf(task);
        if (i < 0) return;
        queue.splice(i, 1);
        closePorts(task);
        reject(signal!.reason ?? new Error('aborted'));
      };
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      const task: Task = {
        msg: make(++this.seq),
        transfer,
        pending: {
          resolve: (v) => {
            done();
            resolve(v);
          },
          reject: (e) => {
            done();
            reject(e);
          },
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(task);
      this.pump();
    });
  }

  /**
   * `urgent`: a sentence a caller is waiting on before anything else (a one-sentence file, a
   * stream's first sentence) goes to the interactive lane, a worker at normal priority, when it
   * is free; other work runs in the background workers at a lower priority than the API.
   */
  synthesize(
    job: SynthesisJob,
    opts: { urgent?: boolean; signal?: AbortSignal; join?: JoinSpec } = {},
  ): Promise<SynthesisResult> {
    const join = opts.join;
    return this.submit((id) => ({ type: 'synthesize', id, job, ...(join ? { join } : {}) }), [], opts.urgent, opts.signal);
  }

  /**
   * Synthesizes one sentence straight into a file encoder: the worker sends the samples on `sink`
   * (see streamed.ts) and resolves with the words and the sample count only. `signal` takes it out
   * of the queue if it is still waiting there (its sink is then closed). With `mark`, the samples
   * sent carry the watermark (the encoder then takes them as they are).
   */
  synthesizeInto(job: SynthesisJob, sink: MessagePort, signal?: AbortSignal, mark?: Mark): Promise<SynthesisResult> {
    return this.submit((id) => ({ type: 'synthesize', id, job, sink, ...(mark ? { mark } : {}) }), [sink], true, signal);
  }

  /**
   * A stream's first sentence, its first `aheadSec` seconds sent on `sink` as the engine makes them and the rest once
   * the sentence is measured (see streamed.ts); resolves with the words and the sample count. Urgent, as the caller
   * waits on it; `signal` takes it out of the queue (its sink is then closed).
   */
  synthesizeAhead(job: SynthesisJob, sink: MessagePort, aheadSec: number, signal?: AbortSignal): Promise<SynthesisResult> {
    return this.submit((id) => ({ type: 'ahead', id, job, sink, aheadSec }), [sink], true, signal);
  }

  /** Encodes PCM in a worker; the samples' buffer is transferred, so the caller must not reuse it. */
  async encode(samples: Float32Array, sampleRate: number, format: AudioFormat): Promise<Buffer> {
    const owned = samples.byteOffset === 0 && samples.byteLength === samples.buffer.byteLength ? samples : samples.slice();
    const audio = await this.submit<Uint8Array>(
      (id) => ({ type: 'encode', id, samples: owned, sampleRate, format }),
      [owned.buffer as ArrayBuffer],
    );
    return Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength);
  }

  /** Loads the engines in every worker, so the first real request is not the slow one. */
  async warmup(): Promise<void> {
    await Promise.all([
      ...this.slots.map(() => this.submit((id) => ({ type: 'warmup', id }))),
      this.submit((id) => ({ type: 'warmup', id }), [], true),
    ]);
  }

  /** Jobs waiting for a free worker. */
  get queued(): number {
    return this.queue.length + this.urgent.length;
  }

  get busy(): number {
    return this.allSlots().filter((s) => s.busy).length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of [...this.queue.splice(0), ...this.urgent.splice(0)]) {
      t.pending.reject(new SpeechError('INTERNAL', 'the synthesis pool is closed'));
      closePorts(t);
    }
    await Promise.all(this.allSlots().map((s) => s.worker.terminate()));
  }
}

/** Closes the ports a task would have handed over, so whoever holds their other ends sees them go. */
function closePorts(task: Task): void {
  if (task.msg.type === 'synthesize' || task.msg.type === 'ahead') task.msg.sink?.close();
}
