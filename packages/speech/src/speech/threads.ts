/**
 * The facade's threads: the synthesis pool, started with the first synthesis or at warm-up (a process that only
 * prepares and prices requests never starts an engine), and the encoder thread. A start's signal stops the warm-up.
 */
import { EncoderHost } from '../audio/encoder-host.ts';
import { WorkerPool, type PoolOptions } from '../pool/pool.ts';

export class SpeechThreads {
  readonly encoder = new EncoderHost();
  private started: WorkerPool | undefined;

  constructor(private readonly options: PoolOptions) {}

  /** The pool, started on first use. */
  get pool(): WorkerPool {
    return (this.started ??= new WorkerPool(this.options));
  }

  /** Whether the pool's threads (the engines) have started. */
  get running(): WorkerPool | undefined {
    return this.started;
  }

  /**
   * Starts the engines in every worker and the encoder at `sampleRate`, then runs `more` (the paths a first request
   * takes). An abort of `signal` ends the threads, which fails the pending work at once; the promise then rejects
   * with the signal's reason, and any failure leaves no thread behind.
   */
  async warmup(sampleRate: number, signal: AbortSignal | undefined, more: () => Promise<void>): Promise<void> {
    signal?.throwIfAborted();
    const warm = Promise.all([this.pool.warmup(), this.encoder.warmup(sampleRate)]);
    const stop = (): void => void this.close().catch(() => {});
    signal?.addEventListener('abort', stop, { once: true });
    try {
      await warm;
    } catch (e) {
      await this.close().catch(() => {});
      throw signal?.aborted ? signal.reason : e;
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    // Aborted just as the warmup ended: the threads are closing, this instance is not handed out.
    signal?.throwIfAborted();
    // A shutdown during these paths stops them (their requests carry the signal) as it stops the threads' warmup.
    try {
      await more();
    } catch (e) {
      await this.close().catch(() => {});
      throw signal?.aborted ? signal.reason : e;
    }
    signal?.throwIfAborted();
  }

  async close(): Promise<void> {
    await Promise.all([this.started?.close(), this.encoder.close()]);
  }
}
