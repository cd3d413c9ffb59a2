/** The one engine interface every speech engine implements, and the shapes around it. */

import type { ModelLicence } from './model-record.ts';

export type Gender = 'male' | 'female' | 'neutral';

/** The numbers an engine and the DSP stage honour: a voice is a provider, a model and this. */
export interface VoiceProfile {
  /** Mean F0 of the voice as the engine renders it, in Hz. */
  pitchHz: number;
  /** Pitch range (espeak's 0–100 scale, 50 = engine default). */
  range: number;
  /** Speaking rate multiplier, 1 = engine default. */
  rate: number;
  /** Formant / vocal-tract scale, 1 = unchanged. */
  formantScale: number;
  /** 0–1: how breathy the voice is. */
  breathiness: number;
  /** Loudness target offset in dB from the platform target. */
  gainDb: number;
  /** A weighted blend of speakers' voice vectors, for models that carry them (Kokoro, Kitten). */
  blend?: { sid: number; weight: number }[];
  /**
   * Conversion (cloned and designed voices): the long-term average spectrum to match, in dB on
   * `LTAS_BANDS` (analysis/ltas.ts). The DSP stage equalizes each sentence towards it.
   */
  ltasDb?: number[];
  /** Spectral tilt in dB per octave around 1 kHz (positive: brighter). */
  tiltDb?: number;
  /** Seed of the conversion's noise (breathiness), so one profile always sounds the same. */
  seed?: number;
  /**
   * A clone's measured F0 median (Hz): each sentence whose own median the engine put more than half a
   * semitone away is shifted onto it (engines follow a pitch target only roughly).
   */
  f0MedianHz?: number;
}

export interface VoiceInfo {
  /** Stable id, `<engine>:<model-specific id>`. */
  id: string;
  name: string;
  gender: Gender;
  /** BCP-47 tags, the primary language first. */
  languages: string[];
  /** Model id as `listModels()` names it. */
  model: string;
  engine: string;
  /** The engine's variant / speaker name (espeak variant, flite voice, speaker id…). */
  variant: string;
  /** Age group, when the engine says: adult, child, baby. */
  age?: 'adult' | 'child' | 'baby';
  profile: VoiceProfile;
  /** A sentence in the voice's primary language that its preview reads. */
  previewText: string;
  description?: string;
  /** Its quality rank (quality.ts), best highest; absent: its engine's. */
  quality?: number;
  /**
   * `espeak`: a sherpa-onnx voice whose model phonemizes with eSpeak NG, so it takes a phoneme rule as eSpeak NG's
   * mnemonics (`engines/sherpa-frontend.ts`). Absent: its engine's own (eSpeak NG, Flite, GnuSpeech), or none.
   */
  phonemes?: 'espeak';
  /**
   * With `phonemes`: the eSpeak NG voice (a language) the model's frontend phonemizes with, whose phoneme table a
   * rule's phonemes are written in (`en-us` for Kokoro's exports whatever the speaker's language).
   */
  phonemeLanguage?: string;
}

export interface ModelInfo {
  id: string;
  name: string;
  engine: string;
  /** `mixing` where its voices can be blended. */
  type: 'mixing' | 'standard' | 'cloning' | 'remote';
  languages: string[];
  genders: Gender[];
  description: string;
  voiceCount: number;
  /**
   * A zero-shot cloning model's need for the reference sample's transcript: `required` (ZipVoice
   * conditions on it) or `optional` (Pocket). Absent on other models.
   */
  referenceText?: 'required' | 'optional';
  /** Its quality rank (quality.ts); absent: its engine's. */
  quality?: number;
  /** Its licence, where it was installed from the catalogue (`npm run models -- add`). */
  licence?: ModelLicence;
}

export interface EngineCapabilities {
  /** How good its voices sound (QUALITY in quality.ts), best highest. */
  quality: number;
  languages: string[];
  mixable: boolean;
  nativeCloning: boolean;
  ssml: boolean;
  wordTimings: boolean;
  /** The engine applies pitch (semitones) itself; otherwise the DSP stage does. */
  nativePitch: boolean;
  /** The engine applies speed itself; otherwise the DSP stage does. */
  nativeSpeed: boolean;
  /**
   * The speeds (the request's times the profile's rate) the engine renders well natively; beyond them it is asked for
   * the nearest and the DSP stage stretches the rest (Sonic). Absent: any speed it is asked for.
   */
  speedRange?: readonly [number, number];
}

export interface WordTiming {
  word: string;
  /** Seconds from the start of the chunk. */
  start: number;
  end: number;
}

export interface PcmChunk {
  samples: Float32Array;
  sampleRate: number;
  words?: WordTiming[];
}

export interface EngineRequest {
  text: string;
  voice: VoiceInfo;
  /** BCP-47 language the text is in; defaults to the voice's first language. */
  language?: string;
  /** 0.25–4 (OpenAI's range), times the profile's rate. */
  speed: number;
  /** Semitones, -12..12, on top of the voice profile. */
  pitch: number;
  /** Profile to apply (a mix, a designed or cloned voice); defaults to the voice's own. */
  profile: VoiceProfile;
  /** A reference sample for engines that clone natively. */
  reference?: { samples: Float32Array; sampleRate: number; text?: string };
  /** Word times are wanted: an engine whose times cost work of their own (Flite's run of the phones) does it only then. */
  words?: boolean;
  signal?: AbortSignal;
  /**
   * Called synchronously with each piece of audio as soon as the engine has made it, by engines
   * that make a sentence piece by piece inside one call (eSpeak, when it needs no stretching
   * afterwards). The pieces, in order, are exactly the samples the engine then yields.
   */
  onAudio?: (samples: Float32Array, sampleRate: number) => void;
}

export interface Engine {
  readonly id: string;
  readonly capabilities: EngineCapabilities;
  listVoices(): VoiceInfo[];
  listModels(): ModelInfo[];
  synthesize(req: EngineRequest): AsyncIterable<PcmChunk>;
  close?(): Promise<void> | void;
}

export const AUDIO_FORMATS = ['mp3', 'wav', 'opus', 'pcm'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

export const CONTENT_TYPES: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  opus: 'audio/ogg',
  pcm: 'audio/pcm',
};

export const DEFAULT_PROFILE: VoiceProfile = {
  pitchHz: 120,
  range: 50,
  rate: 1,
  formantScale: 1,
  breathiness: 0,
  gainDb: 0,
};
