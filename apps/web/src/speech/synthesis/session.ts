import {
  createJob,
  fetchJob,
  fetchJobAudio,
  fetchJobSubtitles,
  synthesizeStream,
  type AudioFormat,
  type SynthesisBody,
} from '../api';
import { cuesFromAlignment, parseVtt, type CharacterTimes, type TranscriptCue } from '../subtitles';
import { decodePeaks, type Decoded } from '../audio/decode';
import { browserMseCheck, mseTypeFor } from '../audio/formats';
import { MseSink } from '../audio/mse-sink';
import { base64Bytes } from '../audio/response';
import { estimateSeconds } from '../audio/peaks';
import { downloadable, playable } from '../audio/playable';
import { runJob, sleep } from './job-runner';

export type SynthesisPhase = 'idle' | 'waiting' | 'streaming' | 'job' | 'done' | 'error';
export type SynthesisMode = 'stream' | 'collect' | 'job';

export interface SynthesisSnapshot {
  /** Increases with every run, so views can tell a new result from an update. */
  run: number;
  phase: SynthesisPhase;
  mode: SynthesisMode | null;
  format: AudioFormat;
  startedAt: number;
  /** Audio bytes received so far. */
  bytes: number;
  /** Seconds of audio received so far, when the format tells. */
  seconds: number | null;
  /** Sentences done / in all, for a job. */
  job: { done: number; total: number } | null;
  /** What the audio element plays: a MediaSource while streaming, then (or else) a blob. */
  src: string | null;
  /** The waveform so far. */
  peaks: Float32Array | null;
  duration: number | null;
  /** The finished file, as downloaded. */
  blob: Blob | null;
  credits: number | null;
  /** The job that made it (its subtitles can be downloaded), for a job. */
  jobId: string | null;
  /** The words with their times, when the audio has timings (a job's subtitles). */
  transcript: TranscriptCue[] | null;
  error: unknown;
}

const initial: SynthesisSnapshot = {
  run: 0,
  phase: 'idle',
  mode: null,
  format: 'mp3',
  startedAt: 0,
  bytes: 0,
  seconds: null,
  job: null,
  src: null,
  peaks: null,
  duration: null,
  blob: null,
  credits: null,
  jobId: null,
  transcript: null,
  error: null,
};

const PROGRESS_EVERY_MS = 200;
const HEAD_BYTES = 4096;
const SINK_END_MS = 5000;

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

export interface SessionHooks {
  /** Called once a run has charged (or may have charged) the account: refresh the balance. */
  onCharged: () => void;
  onError: (error: unknown) => void;
}

/**
 * One playground generation at a time: POST /tts streamed (MSE playback for MP3, collected for the
 * rest) or, above the threshold, a job polled to the end. Views subscribe to its snapshots.
 */
export class SynthesisSession {
  private snapshot: SynthesisSnapshot = initial;
  private readonly listeners = new Set<() => void>();
  private controller: AbortController | null = null;
  private sink: MseSink | null = null;
  private objectUrl: string | null = null;

  constructor(private readonly hooks: SessionHooks) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): SynthesisSnapshot => this.snapshot;

  private set(patch: Partial<SynthesisSnapshot>, run: number): void {
    if (run !== this.snapshot.run) return; // a later run replaced this one
    this.snapshot = { ...this.snapshot, ...patch };
    this.listeners.forEach((l) => l());
  }

  private releaseMedia(): void {
    this.sink?.dispose();
    this.sink = null;
    if (this.objectUrl) URL.revokeObjectURL(this.objectUrl);
    this.objectUrl = null;
  }

  cancel(): void {
    this.controller?.abort();
    this.controller = null;
  }

  /** Stops whatever runs and forgets the result. */
  dispose(): void {
    this.cancel();
    this.releaseMedia();
  }

  async start(body: SynthesisBody, asJob: boolean): Promise<void> {
    this.cancel();
    this.releaseMedia();
    const controller = new AbortController();
    this.controller = controller;
    const run = this.snapshot.run + 1;
    this.snapshot = { ...initial, run, phase: asJob ? 'job' : 'waiting', format: body.format, startedAt: Date.now() };
    this.listeners.forEach((l) => l());
    try {
      if (asJob) await this.runJob(body, run, controller.signal);
      else await this.runStream(body, run, controller.signal);
    } catch (error) {
      if (isAbort(error) || controller.signal.aborted) {
        this.set(this.snapshot.blob ? { phase: 'done' } : { phase: 'idle', src: null, peaks: null, duration: null }, run);
        return;
      }
      this.set({ phase: 'error', error }, run);
      this.hooks.onError(error);
    } finally {
      if (this.controller === controller) this.controller = null;
      this.hooks.onCharged();
    }
  }

  private async runStream(body: SynthesisBody, run: number, signal: AbortSignal): Promise<void> {
    const res = await synthesizeStream(body, signal);
    const credits = Number(res.headers.get('x-credits-charged'));
    const mseType = mseTypeFor(body.format, browserMseCheck());
    this.sink = mseType ? new MseSink(mseType) : null;
    this.set(
      { phase: 'streaming', mode: this.sink ? 'stream' : 'collect', src: this.sink?.url ?? null, credits: credits || null },
      run,
    );
    if (!res.body) throw new Error('The response has no body');

    const reader = res.body.getReader();
    signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
    // Lines of JSON (audio and the characters' times), or, from a server that sends bare audio, the audio itself.
    const lines = (res.headers.get('content-type') ?? '').includes('ndjson') ? new TimedLines() : null;
    const chunks: Uint8Array[] = [];
    let total = 0;
    let head = new Uint8Array(0);
    let lastEmit = 0;
    const waveform = new ProgressiveWaveform(body.format, (decoded) =>
      this.set({ peaks: decoded.peaks, duration: decoded.duration }, run),
    );
    const take = (value: Uint8Array): void => {
      if (value.length === 0) return;
      chunks.push(value);
      total += value.length;
      if (head.length < HEAD_BYTES) head = concat(chunks, total).slice(0, HEAD_BYTES);
      if (this.sink && !this.sink.error) this.sink.append(value);
    };

    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!value || value.length === 0) continue;
      for (const audio of lines ? lines.push(value) : [value]) take(audio);
      const now = Date.now();
      if (now - lastEmit >= PROGRESS_EVERY_MS) {
        lastEmit = now;
        this.set({ bytes: total, seconds: this.secondsReceived(body.format, head, total) }, run);
        if (lines?.changed()) this.set({ transcript: cuesFromAlignment(lines.alignment) }, run);
        waveform.offer(() => concat(chunks, total));
      }
    }
    if (lines) {
      for (const audio of lines.end()) take(audio);
      if (lines.alignment.characters.length) this.set({ transcript: cuesFromAlignment(lines.alignment) }, run);
    }
    await waveform.idle();
    await this.finish(body.format, concat(chunks, total), run, signal);
  }

  private secondsReceived(format: AudioFormat, head: Uint8Array, total: number): number | null {
    const buffered = this.sink && !this.sink.error ? this.sink.bufferedSeconds() : 0;
    return buffered > 0 ? buffered : estimateSeconds(format, head, total);
  }

  private async runJob(body: SynthesisBody, run: number, signal: AbortSignal): Promise<void> {
    const job = await runJob({
      create: () => createJob(body, signal),
      get: (id) => fetchJob(id, signal),
      sleep,
      signal,
      onProgress: (j) => this.set({ job: { ...j.progress }, credits: j.credits }, run),
    });
    this.set({ mode: 'job', jobId: job.id }, run);
    const res = await fetchJobAudio(job.id, signal);
    const bytes = new Uint8Array(await res.arrayBuffer());
    // Its words and their times, for the transcript that follows the playback (a voice without timings has none).
    const transcript = await fetchJobSubtitles(job.id, 'vtt', signal).then(parseVtt, () => null);
    if (transcript?.length) this.set({ transcript }, run);
    await this.finish(body.format, bytes, run, signal);
  }

  /** The last byte is in: end the MSE stream (or switch to a blob), draw the whole waveform, keep the file. */
  private async finish(format: AudioFormat, bytes: Uint8Array, run: number, signal: AbortSignal): Promise<void> {
    if (bytes.length === 0) throw new Error('The server sent no audio');
    const play = playable(format, bytes);
    const blob = downloadable(format, bytes);
    let src = this.snapshot.src;
    // The stream ends once the element has taken every chunk; a sink that never opened falls back to a blob.
    const streamed =
      this.sink && !this.sink.error
        ? await Promise.race([
            this.sink.end().then(
              () => true,
              () => false,
            ),
            sleep(SINK_END_MS).then(() => false),
          ])
        : false;
    if (!streamed) {
      this.objectUrl = URL.createObjectURL(new Blob([play.bytes as Uint8Array<ArrayBuffer>], { type: play.type }));
      src = this.objectUrl;
    }
    if (signal.aborted) throw new DOMException('The generation was stopped', 'AbortError');
    const decoded = await decodePeaks(play.bytes);
    this.set(
      {
        phase: 'done',
        src,
        blob,
        bytes: bytes.length,
        seconds: decoded?.duration ?? estimateSeconds(format, bytes.slice(0, HEAD_BYTES), bytes.length),
        ...(decoded ? { peaks: decoded.peaks, duration: decoded.duration } : {}),
      },
      run,
    );
  }
}

/** Decodes the audio so far for the waveform while it streams: one decode at a time, spaced out as it grows. */
class ProgressiveWaveform {
  private busy: Promise<void> | null = null;
  private nextAt = 0;

  constructor(
    private readonly format: AudioFormat,
    private readonly onDecoded: (decoded: Decoded) => void,
  ) {}

  offer(bytes: () => Uint8Array): void {
    if (this.busy || Date.now() < this.nextAt) return;
    const started = Date.now();
    this.busy = decodePeaks(playable(this.format, bytes()).bytes)
      .then((decoded) => {
        if (decoded) this.onDecoded(decoded);
      })
      .finally(() => {
        this.nextAt = Date.now() + Math.max(700, (Date.now() - started) * 4);
        this.busy = null;
      });
  }

  idle(): Promise<void> {
    return this.busy ?? Promise.resolve();
  }
}

/** A timed stream's lines of JSON, read as they come: the audio of each, and the characters' times gathered. */
class TimedLines {
  private readonly decoder = new TextDecoder();
  private rest = '';
  private seen = 0;
  readonly alignment: CharacterTimes = { characters: [], character_start_times_seconds: [], character_end_times_seconds: [] };

  /** The audio of every line completed by these bytes. */
  push(bytes: Uint8Array): Uint8Array[] {
    this.rest += this.decoder.decode(bytes, { stream: true });
    const complete = this.rest.split('\n');
    this.rest = complete.pop() ?? '';
    return complete.filter((line) => line.trim() !== '').map((line) => this.line(line));
  }

  end(): Uint8Array[] {
    const last = this.rest + this.decoder.decode();
    this.rest = '';
    return last.trim() ? [this.line(last)] : [];
  }

  /** Whether characters came since the last call. */
  changed(): boolean {
    const now = this.alignment.characters.length;
    const changed = now !== this.seen;
    this.seen = now;
    return changed;
  }

  private line(text: string): Uint8Array {
    const piece = JSON.parse(text) as { audio_base64: string; alignment: CharacterTimes | null };
    if (piece.alignment) {
      this.alignment.characters.push(...piece.alignment.characters);
      this.alignment.character_start_times_seconds.push(...piece.alignment.character_start_times_seconds);
      this.alignment.character_end_times_seconds.push(...piece.alignment.character_end_times_seconds);
    }
    return base64Bytes(piece.audio_base64);
  }
}
