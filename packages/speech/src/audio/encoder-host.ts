/**
 * The server side of the encoder thread: whole-file encodes and streams, each a promise per
 * message. The thread starts on first use; if it dies, its pending work fails and the next call
 * starts a new one.
 */
import { Worker, type MessagePort } from 'node:worker_threads';
import type { Mark } from './marked.ts';
import { SpeechError, reviveError } from '../core/errors.ts';
import type { AudioFormat } from '../core/types.ts';
import type { FromEncoder, ToEncoder } from './encoder-protocol.ts';
import { transferList } from './transfer.ts';
import { ownedSamples } from '../threads/task-thread.ts';

/** Streaming encoder: PCM chunks in, encoded bytes out as soon as the encoder has them. */
export interface StreamEncoder {
  /** Feeds PCM; returns bytes ready now. */
  write(samples: Float32Array): Promise<Buffer[]>;
  /** Flushes; returns the remaining bytes. */
  end(): Promise<Buffer[]>;
  abort(): void;
}

type Pending = { resolve: (m: FromEncoder) => void; reject: (e: Error) => void };
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

const toBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export class EncoderHost {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private streams = 0;
  private closed = false;

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./encoder-entry.mjs', import.meta.url), { execArgv: [] });
    worker.unref();
    worker.on('message', (msg: FromEncoder) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (!this.pending.size) worker.unref();
      if (msg.type === 'error')
        p.reject(
          reviveError(msg.error.code ? { ...msg.error, name: 'SpeechError' } : Object.assign(new Error(msg.error.message))),
        );
      else p.resolve(msg);
    });
    const died = (err: Error): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const p of this.pending.values()) p.reject(new SpeechError('INTERNAL', `encoder thread failed: ${err.message}`));
      this.pending.clear();
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private call(
    msg: WithoutId<Exclude<ToEncoder, { type: 'free' } | { type: 'drop' }>>,
    transfer: (ArrayBuffer | MessagePort)[] = [],
  ): Promise<FromEncoder> {
    if (this.closed) return Promise.reject(new SpeechError('INTERNAL', 'the encoder is closed'));
    const id = ++this.seq;
    const worker = this.thread();
    return new Promise((resolve, reject) => {
      try {
        // Throws (DataCloneError) for a port in `transfer` whose other end was closed meanwhile.
        worker.postMessage({ ...msg, id }, transferList(transfer));
      } catch (e) {
        const err = e as Error;
        reject(new SpeechError('INTERNAL', `the encoder could not take the work: ${err.message}`, { cause: err }));
        return;
      }
      this.pending.set(id, { resolve, reject });
      worker.ref();
    });
  }

  /** Encodes a whole file; the samples' buffer is transferred, so the caller must not reuse it. */
  async encode(samples: Float32Array, sampleRate: number, format: AudioFormat, mark?: Mark): Promise<Buffer> {
    const own = ownedSamples(samples);
    const r = await this.call({ type: 'encode', samples: own, sampleRate, format, ...(mark ? { mark } : {}) }, [
      own.buffer as ArrayBuffer,
    ]);
    if (r.type !== 'encoded') throw new SpeechError('INTERNAL', 'unexpected encoder reply');
    return toBuffer(r.audio);
  }

  /**
   * A whole file whose samples a pool worker sends on the other end of `port` (see
   * pool/streamed.ts), encoded in the encoder thread as they arrive. The worker has put the
   * watermark in them already. `drop()` gives it up.
   */
  file(format: AudioFormat, port: MessagePort): { audio: Promise<Buffer>; drop(): void } {
    const id = this.seq + 1;
    const audio = this.call({ type: 'file', format, port }, [port]).then((r) => {
      if (r.type !== 'encoded') throw new SpeechError('INTERNAL', 'unexpected encoder reply');
      return toBuffer(r.audio);
    });
    return {
      audio,
      drop: () => {
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        p.reject(new SpeechError('INTERNAL', 'the file was dropped'));
        this.worker?.postMessage({ type: 'drop', file: id } satisfies ToEncoder);
        if (!this.pending.size) this.worker?.unref();
      },
    };
  }

  /**
   * Opens a stream whose bytes, concatenated, are one valid file. With `whole`, writes return
   * nothing and `end` returns the whole file, checked like `encode`'s (an mp3's Info frame then
   * carries the exact length): a file encoded piece by piece as its samples come.
   */
  stream(format: AudioFormat, sampleRate: number, whole = false, mark?: Mark): StreamEncoder {
    const stream = ++this.streams;
    const opened = this.call({
      type: 'open',
      stream,
      format,
      sampleRate,
      ...(whole ? { whole } : {}),
      ...(mark ? { mark } : {}),
    });
    opened.catch(() => {});
    let done = false;
    const chunks = (r: FromEncoder): Buffer[] => (r.type === 'bytes' ? r.chunks.map(toBuffer) : []);
    return {
      write: async (samples) => {
        await opened;
        const own = ownedSamples(samples);
        return chunks(await this.call({ type: 'write', stream, samples: own }, [own.buffer as ArrayBuffer]));
      },
      end: async () => {
        await opened;
        done = true;
        return chunks(await this.call({ type: 'end', stream }));
      },
      abort: () => {
        if (done || !this.worker) return;
        done = true;
        this.worker.postMessage({ type: 'free', stream } satisfies ToEncoder);
      },
    };
  }

  /**
   * Starts the thread and runs each codec a few times: WebAssembly is compiled lazily and
   * optimized after its first runs, which would otherwise cost the first requests hundreds of ms.
   */
  async warmup(sampleRate: number): Promise<void> {
    const second = (i: number) => Float32Array.from({ length: sampleRate }, (_, k) => 0.2 * Math.sin((k * (i + 2)) / 7));
    for (let i = 0; i < 4; i++) {
      await this.encode(second(i), sampleRate, 'mp3');
      await this.encode(second(i), sampleRate, 'opus');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(new SpeechError('INTERNAL', 'the encoder is closed'));
    this.pending.clear();
    await w?.terminate();
  }
}
