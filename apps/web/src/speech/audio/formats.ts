import type { AudioFormat } from '../types';

/** The content types POST /tts answers with, per format. */
export const FORMAT_MIME: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  opus: 'audio/ogg',
  pcm: 'audio/pcm',
};

export const FORMAT_EXTENSION: Record<AudioFormat, string> = {
  mp3: 'mp3',
  wav: 'wav',
  opus: 'opus',
  pcm: 'pcm',
};

/** Raw PCM from the platform: signed 16-bit little-endian, mono, 24 kHz. */
export const PCM_SAMPLE_RATE = 24_000;

/**
 * Formats that can play while they stream in, through Media Source Extensions. Chromium, Firefox
 * and Safari take MP3 ('audio/mpeg'); Ogg Opus, WAV and raw PCM are not MSE types anywhere, so
 * those (and MP3 where MSE is missing) are collected and played when the last byte is in.
 */
export function mseTypeFor(format: AudioFormat, isTypeSupported: ((type: string) => boolean) | null): string | null {
  if (format !== 'mp3' || !isTypeSupported) return null;
  try {
    return isTypeSupported('audio/mpeg') ? 'audio/mpeg' : null;
  } catch {
    return null;
  }
}

/** The browser's check, or null where MediaSource does not exist. */
export function browserMseCheck(): ((type: string) => boolean) | null {
  const ms = (globalThis as { MediaSource?: { isTypeSupported(type: string): boolean } }).MediaSource;
  return ms ? (type: string) => ms.isTypeSupported(type) : null;
}
