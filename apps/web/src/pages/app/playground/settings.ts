import { FORMAT_VALUES, type AudioFormat } from '../../../speech/api';

export interface SynthesisSettings {
  speed: number;
  pitch: number;
  format: AudioFormat;
}

export const DEFAULT_SETTINGS: SynthesisSettings = { speed: 1, pitch: 0, format: 'mp3' };
export const SPEED = { min: 0.5, max: 2, step: 0.05 } as const;
export const PITCH = { min: -12, max: 12, step: 1 } as const;
export const FORMATS: readonly AudioFormat[] = FORMAT_VALUES;
