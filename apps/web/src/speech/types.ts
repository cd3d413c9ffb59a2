/** The shapes the synthesis screens use, from the contract (types only: no zod in the bundle). */
import type { z } from 'zod';
import type {
  AUDIO_FORMATS,
  EstimateResponse,
  GENDERS,
  NormalizeResponse,
  RandomTextResponse,
  TtsConfigResponse,
  TtsJobRequest,
  TtsJobSchema,
  Voice,
  VoiceListResponse,
} from '@polyvox/contracts';

export type { Voice };
export type AudioFormat = (typeof AUDIO_FORMATS)[number];
export type Gender = (typeof GENDERS)[number];
export type VoiceList = z.infer<typeof VoiceListResponse>;

/**
 * The contract's enums, repeated as plain arrays: importing the values from @polyvox/contracts
 * would pull its zod schemas into the bundle (types.test.ts checks they stay equal).
 */
export const GENDER_VALUES: readonly Gender[] = ['male', 'female', 'neutral'];
export const FORMAT_VALUES: readonly AudioFormat[] = ['mp3', 'wav', 'opus', 'pcm'];
export type Estimate = z.infer<typeof EstimateResponse>;
/** POST /tts/normalize: the text as it will be spoken. */
export type Spoken = z.infer<typeof NormalizeResponse>;
/** How the text is read: plain text, or SSML. */
export type TextType = 'text' | 'ssml';
export type RandomText = z.infer<typeof RandomTextResponse>;

export type TtsConfig = z.infer<typeof TtsConfigResponse>;
export type ModelInfo = TtsConfig['models'][number];
export type TtsLimits = TtsConfig['limits'];

/** POST /tts's body without `stream` (which the client sets per call), and POST /tts/jobs's body. */
export type SynthesisBody = Omit<z.input<typeof TtsJobRequest>, 'format' | 'speed' | 'pitch'> & {
  format: AudioFormat;
  speed: number;
  pitch: number;
};

export type SynthesisJob = z.infer<typeof TtsJobSchema>;
