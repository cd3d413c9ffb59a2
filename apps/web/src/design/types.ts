/**
 * The voice-design shapes of the contract ("Models and voices" in the HTTP contract): previews,
 * clone samples, mixes. Types only, so no zod reaches the bundle.
 */
import type { Voice } from '../speech/types';

export type { Voice };

export const PREVIEW_TYPES = ['prompt', 'clone', 'mix'] as const;
export type PreviewType = (typeof PREVIEW_TYPES)[number];

export interface MixEntry {
  voice_id: string;
  weight: number;
}

/** POST /voice/previews */
export interface PreviewBody {
  type: PreviewType;
  model: string;
  language: string;
  preview_text: string;
  prompt?: string;
  file_id?: string;
  mix?: MixEntry[];
}

/** POST /voice/previews' answer (201); the fee fields are read when the server sends them. */
export interface PreviewCreated {
  id: string;
  version: number;
  audio_url: string;
  duration: number;
  credits: number;
  activation_credits?: number | null;
}

/** One entry of GET /voice/previews: the version and what produced it. */
export interface Preview extends PreviewCreated {
  type: PreviewType;
  model: string;
  language: string;
  preview_text: string;
  prompt?: string | null;
  file_id?: string | null;
  sample_index?: number | null;
  mix?: MixEntry[] | null;
  voice_id?: string | null;
  created_at: string;
}

export interface PreviewList {
  items: Preview[];
  total: number;
  page: number;
  page_size: number;
}

/** POST /files_upload?type=clone's answer; `noisy` when the measured signal-to-noise ratio is low. */
export interface CloneSample {
  id: string;
  index: number;
  format: string;
  size: number;
  duration: number;
  sample_rate: number;
  noisy?: boolean;
  snr_db?: number | null;
}

/** PUT /voice */
export type SaveVoiceBody =
  | { type: 'mix'; name: string; model: string; mix: MixEntry[] }
  | { type: 'prompt' | 'clone'; name: string; preview_id: string };

/** PATCH /voice */
export interface RenameVoiceBody {
  id: string;
  name: string;
}
