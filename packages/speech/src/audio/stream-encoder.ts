/**
 * Streaming encoders: PCM chunks in, encoded bytes out as soon as the encoder has them. WAV and
 * PCM are framed here; mp3 and opus come from one ffmpeg process fed raw PCM on stdin (raw PCM
 * has no container to misread), so the stream is one valid file, not glued-together files.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { SpeechError } from '../errors.ts';
import { floatToInt16, wavHeader } from '../dsp/pcm.ts';
import type { AudioFormat } from '../types.ts';
import { codecArgs, FFMPEG } from './ffmpeg.ts';
import { lowerPriority } from '../pool/priority.ts';

export interface StreamEncoder {
  /** Feeds PCM; returns bytes ready now. */
  write(samples: Float32Array): Promise<Buffer[]>;
  /** Flushes; returns the remaining bytes. */
  end(): Promise<Buffer[]>;
  abort(): void;
}

export function createStreamEncoder(format: AudioFormat, sampleRate: number): StreamEncoder {
  if (format === 'pcm' || format === 'wav') {
    let first = format === 'wav';
    return {
      async write(samples) {
        const data = floatToInt16(samples);
        if (!first) return [data];
        first = false;
        return [wavHeader(sampleRate, 0xffffffff), data];
      },
      async end() {
        return first ? [wavHeader(sampleRate, 0)] : [];
      },
      abort() {},
    };
  }
  return new FfmpegStreamEncoder(format, sampleRate);
}

class FfmpegStreamEncoder implements StreamEncoder {
  private readonly proc: ChildProcessWithoutNullStreams;
  private pending: Buffer[] = [];
  private readonly done: Promise<void>;
  private stderr = '';
  private waiter: (() => void) | undefined;

  constructor(format: 'mp3' | 'opus', sampleRate: number) {
    this.proc = spawn(FFMPEG, [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-f',
      's16le',
      '-ar',
      String(sampleRate),
      '-ac',
      '1',
      '-i',
      'pipe:0',
      ...codecArgs(format),
      '-flush_packets',
      '1',
      'pipe:1',
    ]);
    if (this.proc.pid) lowerPriority(this.proc.pid);
    this.proc.stdout.on('data', (d: Buffer) => {
      this.pending.push(d);
      this.waiter?.();
    });
    this.proc.stderr.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-2000)));
    this.proc.stdin.on('error', () => {});
    this.done = new Promise((resolve, reject) => {
      this.proc.on('error', (e) => reject(new SpeechError('INTERNAL', `ffmpeg failed to start: ${e.message}`, { cause: e })));
      this.proc.on('close', (code, signal) =>
        code === 0
          ? resolve()
          : reject(new SpeechError('INTERNAL', `ffmpeg stream encoder exited with ${signal ?? code}: ${this.stderr.trim()}`)),
      );
    });
    this.done.catch(() => {});
  }

  private take(): Buffer[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  async write(samples: Float32Array): Promise<Buffer[]> {
    const data = floatToInt16(samples);
    if (!this.proc.stdin.write(data)) {
      // If ffmpeg has died, 'drain' never comes: its exit settles the wait instead.
      await Promise.race([new Promise<void>((r) => this.proc.stdin.once('drain', () => r())), this.done]);
    }
    if (this.proc.exitCode !== null) await this.done;
    // Give the encoder a moment to emit the frames this chunk completes, without waiting for more input.
    await new Promise<void>((resolve) => {
      const t = setTimeout(finish, 15);
      function finish(): void {
        clearTimeout(t);
        resolve();
      }
      this.waiter = finish;
    });
    this.waiter = undefined;
    return this.take();
  }

  async end(): Promise<Buffer[]> {
    this.proc.stdin.end();
    await this.done;
    return this.take();
  }

  abort(): void {
    this.proc.kill('SIGKILL');
  }
}
