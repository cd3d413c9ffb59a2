import type { SynthesisRequest, Timings, VoiceInfo } from '@polyvox/speech';
import type { SpeechHost } from './speech-host.js';

/** Audio made whole: its bytes, its length, and whether it came from the cache. */
export interface RenderedAudio {
  audio: Buffer;
  durationSec: number;
  cached: boolean;
  /** The watermark payload in its sound (null: none embedded). */
  mark?: number | null;
  /** The alignment of its text, when the request asked for timings. */
  timings?: Timings;
}

/** Where a call runs for: the request id that the logs of every process it reaches carry. */
export interface SynthesisCall {
  reqId?: string;
}

/**
 * What turns a request into audio. `LocalSynthesizer` runs the engines of this process; the queued one
 * (`QueuedSynthesizer`, synthesis/queue/synthesizer.ts) sends the request through BullMQ to a worker process and reads its audio
 * back. The request's own signal stops either.
 */
export interface Synthesizer {
  /** A whole file. */
  synthesize(request: SynthesisRequest, call?: SynthesisCall): Promise<RenderedAudio>;
  /** Encoded audio as it is made; ending the iteration early stops the synthesis. */
  synthesizeStream(request: SynthesisRequest, call?: SynthesisCall): AsyncIterable<Buffer>;
  /** An official voice's preview (its preview text, as MP3). */
  preview(info: VoiceInfo): Promise<{ audio: Buffer; mark?: number | null }>;
}

export interface LocalSynthesizerOptions {
  host: SpeechHost;
}

/** The engines in this process (ROLE=all, and a worker process). */
export class LocalSynthesizer implements Synthesizer {
  private readonly host: SpeechHost;

  constructor(options: LocalSynthesizerOptions) {
    this.host = options.host;
  }

  async synthesize(request: SynthesisRequest): Promise<RenderedAudio> {
    return (await this.host.get()).synthesize(request);
  }

  async *synthesizeStream(request: SynthesisRequest): AsyncGenerator<Buffer> {
    const speech = await this.host.get();
    yield* speech.synthesizeStream(request);
  }

  async preview(info: VoiceInfo): Promise<{ audio: Buffer; mark?: number | null }> {
    return (await this.host.get()).renderPreview(info.id, 'mp3');
  }
}

/** A preview rendered as any request is (by a synthesizer with no preview path of its own). */
export function previewRequest(info: VoiceInfo): SynthesisRequest {
  return { text: info.previewText, voice: info, format: 'mp3', language: info.languages[0]!, checkLanguage: false };
}
