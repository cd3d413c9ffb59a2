import type { ReviewContext } from '../moderation/service.js';
import type {
  LexiconRule,
  AiLabelKind,
  AiLabelPosition,
  AudioFormat,
  SynthesisRequest,
  TextNormalization,
  Timings,
  VoiceInfo,
  VoiceProfile,
  VoiceSettingsInput,
} from '@polyvox/speech';
import type { PauseTally } from '../pronunciation/pause-budget.js';

/**
 * The types every part of synthesis/ shares (the service, the jobs, the queue, the routes). A leaf: it imports
 * nothing of this module, so no file here reaches another through it.
 */

export interface TtsInput {
  text: string;
  voiceId: string;
  language?: string;
  format: AudioFormat;
  speed: number;
  pitch: number;
  /** The caller's account: its own voices (`voice_…` ids it saved) resolve only for it. */
  accountId?: string;
  /** An explicit AI label the request adds to the operator's (it never weakens it). */
  aiLabel?: AiLabelKind;
  /**
   * Align the text to the audio (the timestamp routes); refused before any charge for a voice without timings.
   * `auto`: when the voice can have them (a job, whose subtitles are asked for later), else none.
   */
  timings?: boolean | 'auto';
  /** How to speak (OpenAI's `instructions`): its delivery words move the voice's pitch, pace, range, breath and tone. */
  instructions?: string;
  /** ElevenLabs' `voice_settings` (stability, style, speaker boost) on the voice's range and tone (`settingsProfile`). */
  voiceSettings?: VoiceSettingsInput;
  /**
   * The request's `pronunciation_dictionary_locators` (at most 3, in order); absent: the account's default
   * dictionary, if it has one; empty: none.
   */
  pronunciationLocators?: PronunciationLocator[];
  /** The rules already resolved (a job's, or a caller that resolved them): used as they are. */
  lexicon?: LexiconRule[];
  /** `apply_text_normalization`: absent or `auto`, as `on`; `off`: the text is spoken as written. */
  normalization?: TextNormalization;
  /** `text_type`: `ssml` reads the text as SSML (so does text that opens with `<speak>`); plain text's `<break>`s are read either way. */
  textType?: 'text' | 'ssml';
  /** A stream's earlier pieces (a realtime socket's): the pause budget holds the stream as a whole; this piece is added. */
  pauses?: PauseTally;
  /** The route family the text came in by (`tts`, `openai`, `elevenlabs`, `jobs`, `realtime` …), kept with a refusal. */
  route?: string;
  /** Who moderation names in a refusal, for `prepareFor` (which has no account): the account, route and purpose. */
  review?: ReviewContext;
}

export interface PronunciationLocator {
  pronunciation_dictionary_id: string;
  version_id?: string | null | undefined;
}

/** Where synthesis finds a request's pronunciation rules (the pronunciation module's service). */
export interface PronunciationRules {
  rulesFor(accountId: string | undefined, locators: readonly PronunciationLocator[] | undefined): Promise<LexiconRule[]>;
}

/** The operator's explicit AI label (`AI_LABEL_EXPLICIT`, `AI_LABEL_POSITION`). */
export interface AiLabelPolicy {
  explicit: AiLabelKind | 'off';
  position: AiLabelPosition;
}

/** The voice a request speaks with: an engine voice and, for a saved or designed voice, its profile. */
export interface ResolvedVoice {
  info: VoiceInfo;
  profile?: VoiceProfile;
  reference?: SynthesisRequest['reference'];
  /** The public voice's type (preset, mix, prompt, clone), for provenance records. */
  voice?: { type: string };
  /** A clone's sample (its records point to it). */
  sampleId?: string;
}

export interface Charge {
  accountId: string;
  apiKeyId?: string | null;
  recordType: string;
}

export type Progress = (p: { done: number; total: number }) => void;

export interface Synthesized {
  audio: Buffer;
  durationSec: number;
  cached: boolean;
  /** The watermark payload in its sound (null: none embedded). */
  mark?: number | null;
  /** The alignment of its text to its audio, when the request asked for timings. */
  alignment?: Timings;
  /** Milliseconds spent holding credits, synthesizing and settling (for `server-timing`). */
  timings: { hold: number; synth: number; settle: number };
}

export interface Prepared {
  request: SynthesisRequest;
  voice: VoiceInfo;
  /** The voice's public id (`voice_…`), as records name it. */
  voiceId?: string;
  characters: number;
  credits: number;
  contentType: string;
  /** The watermark payload its sound will carry (derived from its content), or null when none is embedded. */
  mark?: number | null;
  /** Who and what made it, as the provenance record names it. */
  origin: { voiceType: string; sampleId?: string };
  /** Words of phoneme rules the voice's engine could not speak as phonemes (`x-pronunciation-fallback`). */
  pronunciationFallbacks?: string[];
}

export type { RenderedAudio } from '../speech/synthesizer.js';
