import type { AudioFormat } from '../types';
import { FORMAT_MIME, PCM_SAMPLE_RATE } from './formats';
import { fixWavSizes, pcmToWav } from '@polyvox/speech/formats';

/**
 * What the browser can play and decode from the bytes POST /tts sent: a streamed WAV with its real
 * sizes, raw PCM wrapped in WAV, MP3 and Ogg Opus as they are.
 */
export function playable(format: AudioFormat, bytes: Uint8Array): { bytes: Uint8Array; type: string } {
  if (format === 'wav') return { bytes: fixWavSizes(bytes), type: 'audio/wav' };
  if (format === 'pcm') return { bytes: pcmToWav(bytes, PCM_SAMPLE_RATE), type: 'audio/wav' };
  return { bytes, type: FORMAT_MIME[format] };
}

/** The file the download button saves: the bytes as sent, except a WAV gets its real sizes. */
export function downloadable(format: AudioFormat, bytes: Uint8Array): Blob {
  const out = format === 'wav' ? fixWavSizes(bytes) : bytes;
  return new Blob([out as Uint8Array<ArrayBuffer>], { type: FORMAT_MIME[format] });
}
