import type { z } from 'zod';
import type {
  AUDIO_FORMATS,
  EstimateResponse,
  GENDERS,
  RandomTextResponse,
  TtsConfigResponse,
  Voice,
  VoiceListResponse,
} from '@polyvox/contracts';
import { http } from '../api/client';
import type { QueryValue } from '../api/http';

export type { Voice };
export type AudioFormat = (typeof AUDIO_FORMATS)[number];
export type Gender = (typeof GENDERS)[number];
export type VoiceList = z.infer<typeof VoiceListResponse>;

/**
 * The contract's enums, repeated as plain arrays: importing the values from @polyvox/contracts
 * would pull its zod schemas into the bundle (api.test.ts checks they stay equal).
 */
export const GENDER_VALUES: readonly Gender[] = ['male', 'female', 'neutral'];
export const FORMAT_VALUES: readonly AudioFormat[] = ['mp3', 'wav', 'opus', 'pcm'];
export type Estimate = z.infer<typeof EstimateResponse>;
export type RandomText = z.infer<typeof RandomTextResponse>;

type ContractConfig = z.infer<typeof TtsConfigResponse>;
export type ModelInfo = ContractConfig['models'][number];
/** `job_threshold` (characters) arrives with the job API; until then every text streams. */
export type TtsLimits = ContractConfig['limits'] & { job_threshold?: number };
export interface TtsConfig {
  models: ModelInfo[];
  limits: TtsLimits;
}

export interface SynthesisBody {
  text: string;
  voice_id: string;
  language?: string;
  format: AudioFormat;
  speed: number;
  pitch: number;
}

export type JobStatus = 'running' | 'succeeded' | 'failed';
export interface SynthesisJob {
  id: string;
  status: JobStatus;
  progress: { done: number; total: number };
  credits: number;
  characters: number;
  audio_url?: string | null;
  error?: { code?: string; message?: string } | string | null;
}

export function fetchTtsConfig(signal?: AbortSignal): Promise<TtsConfig> {
  return http('GET', '/tts/config', { signal });
}

export function listVoices(query: Record<string, QueryValue>, signal?: AbortSignal): Promise<VoiceList> {
  return http('GET', '/voice', { query, signal });
}

export function fetchVoice(id: string, signal?: AbortSignal): Promise<Voice> {
  return http('GET', '/voice', { query: { id }, signal });
}

export function estimateCost(text: string, voiceId: string, signal?: AbortSignal): Promise<Estimate> {
  return http('POST', '/tts/estimate', { json: { text, voice_id: voiceId }, signal });
}

export function fetchRandomText(lang: string): Promise<RandomText> {
  return http('GET', '/api/random/text', { query: { lang } });
}

/** POST /tts with `stream: true`: the Response whose body delivers the audio as it is made. */
export function synthesizeStream(body: SynthesisBody, signal?: AbortSignal): Promise<Response> {
  return http('POST', '/tts', { json: { ...body, stream: true }, raw: true, signal });
}

export function createJob(body: SynthesisBody, signal?: AbortSignal): Promise<SynthesisJob> {
  return http('POST', '/tts/jobs', { json: body, signal });
}

export function fetchJob(id: string, signal?: AbortSignal): Promise<SynthesisJob> {
  return http('GET', `/tts/jobs/${encodeURIComponent(id)}`, { signal });
}

export function fetchJobAudio(id: string, signal?: AbortSignal): Promise<Response> {
  return http('GET', `/tts/jobs/${encodeURIComponent(id)}/audio`, { raw: true, signal });
}
