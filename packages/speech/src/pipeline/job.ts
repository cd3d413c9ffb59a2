/** A sentence's synthesis as a pool worker (or the calling thread) runs it, and what it gives back. */
import type { EngineRequest, VoiceInfo, VoiceProfile, WordTiming } from '../core/types.ts';

export interface SynthesisJob {
  engine: string;
  voice: VoiceInfo;
  text: string;
  language?: string;
  speed: number;
  pitch: number;
  profile: VoiceProfile;
  /** Output sample rate; the worker resamples. */
  sampleRate: number;
  /** Engine rates the output format takes as they are (mp3, Ogg Opus): audio at one is not resampled. */
  keepRates?: number[];
  /** Normalize loudness to the platform target. */
  loudness: boolean;
  reference?: EngineRequest['reference'];
  /** Word times are wanted (`EngineRequest.words`). */
  words?: boolean;
  /**
   * The loudness gain (dB) this voice needed before: with it, a sentence the engine makes piece by
   * piece is gained, limited and sent to the encoder while the engine still runs (see streamed.ts).
   */
  gainDb?: number;
}

export interface SynthesisResult {
  samples: Float32Array;
  sampleRate: number;
  words: WordTiming[];
  /** Milliseconds the engine and DSP took inside the worker. */
  engineMs: number;
  dspMs: number;
  /** With a sink: the samples went to the encoder; `samples` is empty and this is their count. */
  length?: number;
  /** With a sink: the gain (dB) that would have brought this sentence to the target, to learn from. */
  gainDb?: number;
  /** With a sink: the audio sent while the engine ran was kept (within the loudness tolerance). */
  streamed?: boolean;
}
