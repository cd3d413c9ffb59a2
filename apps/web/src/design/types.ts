/**
 * The voice-design shapes of the contract ("Models and voices"): previews, clone samples, mixes.
 * Types only, so no zod reaches the bundle.
 */
import type { z } from 'zod';
import type {
  CreateVoiceRequest,
  MixEntry as MixEntrySchema,
  PatchVoiceRequest,
  PreviewEstimateResponse,
  PreviewListResponse,
  PreviewRequest,
  PreviewResponse,
  PreviewSchema,
  PreviewVersion,
  SampleListResponse,
  SampleUploadResponse,
} from '@polyvox/contracts';
import type { Voice } from '../speech/types';

export type { Voice };

/** The contract's preview types, repeated as a plain array (types.test.ts checks they stay equal). */
export const PREVIEW_TYPE_VALUES = ['mix', 'prompt', 'clone'] as const;
export type PreviewType = (typeof PREVIEW_TYPE_VALUES)[number];

export type MixEntry = z.infer<typeof MixEntrySchema>;
export type PreviewBody = z.input<typeof PreviewRequest>;
/** One version made by a preview request, with what activating it costs. */
export type PreviewCreated = z.infer<typeof PreviewVersion>;
export type PreviewAnswer = z.infer<typeof PreviewResponse>;
/** A version in the history: what produced it, and the voice activated from it, if any. */
export type Preview = z.infer<typeof PreviewSchema>;
export type PreviewList = z.infer<typeof PreviewListResponse>;
export type CloneSample = z.infer<typeof SampleUploadResponse>;
export type SampleList = z.infer<typeof SampleListResponse>;
export type PreviewEstimate = z.infer<typeof PreviewEstimateResponse>;
export type SaveVoiceBody = z.input<typeof CreateVoiceRequest>;
export type RenameVoiceBody = Pick<z.input<typeof PatchVoiceRequest>, 'id' | 'name'>;
