import type { AudioFormat } from '../types';
import { PCM_SAMPLE_RATE } from './formats';
import { mp3Seconds, parseWavHeader } from '@polyvox/speech/formats';

/** The waveform drawn from at most this many points, whatever the length. */
export const MAX_PEAKS = 4000;

/**
 * The loudest absolute sample per bucket across channels: the peaks wavesurfer draws, so it
 * need not decode the audio again.
 */
export function computePeaks(channels: readonly Float32Array[], buckets = MAX_PEAKS): Float32Array {
  const length = channels[0]?.length ?? 0;
  const count = Math.max(0, Math.min(buckets, length));
  const peaks = new Float32Array(count);
  if (count === 0) return peaks;
  const size = length / count;
  for (let b = 0; b < count; b++) {
    const start = Math.floor(b * size);
    const end = Math.max(start + 1, Math.floor((b + 1) * size));
    let max = 0;
    for (const channel of channels) {
      for (let i = start; i < end; i++) {
        const v = Math.abs(channel[i] ?? 0);
        if (v > max) max = v;
      }
    }
    peaks[b] = Math.min(1, max);
  }
  return peaks;
}

/**
 * Seconds of audio in the bytes received so far, from the format's own header: exact for WAV and
 * PCM, close for constant-bitrate MP3, unknown (null) for Ogg Opus.
 */
export function estimateSeconds(format: AudioFormat, head: Uint8Array, totalBytes: number): number | null {
  if (totalBytes <= 0) return 0;
  switch (format) {
    case 'mp3':
      return mp3Seconds(head, totalBytes);
    case 'wav': {
      const info = parseWavHeader(head);
      return info && info.byteRate > 0 ? Math.max(0, totalBytes - info.dataOffset) / info.byteRate : null;
    }
    case 'pcm':
      return totalBytes / (PCM_SAMPLE_RATE * 2);
    default:
      return null;
  }
}
