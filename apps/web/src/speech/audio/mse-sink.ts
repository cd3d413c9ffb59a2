/**
 * Plays audio while it streams in: chunks are appended to a MediaSource's SourceBuffer in order,
 * one at a time (a SourceBuffer takes one append until 'updateend'). The media element plays
 * `url`; `end()` marks the end of the stream once the last chunk is in.
 */
export class MseSink {
  readonly url: string;
  private readonly source: MediaSource;
  private buffer: SourceBuffer | null = null;
  private readonly queue: Uint8Array[] = [];
  private ending = false;
  private failed: Error | null = null;
  private readonly drained = new Set<() => void>();

  constructor(private readonly mimeType: string) {
    this.source = new MediaSource();
    this.url = URL.createObjectURL(this.source);
    this.source.addEventListener('sourceopen', () => this.open(), { once: true });
  }

  private open(): void {
    try {
      this.buffer = this.source.addSourceBuffer(this.mimeType);
      this.buffer.mode = 'sequence';
      this.buffer.addEventListener('updateend', () => this.pump());
      this.buffer.addEventListener('error', () => this.fail(new Error('The browser could not decode the audio stream')));
      this.pump();
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private fail(error: Error): void {
    this.failed = error;
    this.notify();
  }

  private notify(): void {
    const waiting = [...this.drained];
    this.drained.clear();
    waiting.forEach((fn) => fn());
  }

  private pump(): void {
    const buffer = this.buffer;
    if (!buffer || buffer.updating || this.failed) return;
    const next = this.queue.shift();
    if (next) {
      try {
        buffer.appendBuffer(next as Uint8Array<ArrayBuffer>);
      } catch (error) {
        this.fail(error as Error);
      }
      return;
    }
    if (this.ending && this.source.readyState === 'open') {
      try {
        this.source.endOfStream();
      } catch {
        // Already ended or detached.
      }
    }
    this.notify();
  }

  append(chunk: Uint8Array): void {
    if (this.failed) return;
    this.queue.push(chunk);
    this.pump();
  }

  /** Resolves once every chunk is appended and the stream is ended; rejects if MSE gave up. */
  end(): Promise<void> {
    this.ending = true;
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.failed) reject(this.failed);
        else if (this.source.readyState === 'ended') resolve();
        else this.drained.add(check);
      };
      check();
      this.pump(); // ends the stream now if every chunk is already in
    });
  }

  get error(): Error | null {
    return this.failed;
  }

  /** Seconds of audio appended so far. */
  bufferedSeconds(): number {
    try {
      const ranges = this.buffer?.buffered;
      return ranges && ranges.length > 0 ? ranges.end(ranges.length - 1) : 0;
    } catch {
      return 0;
    }
  }

  dispose(): void {
    URL.revokeObjectURL(this.url);
  }
}
