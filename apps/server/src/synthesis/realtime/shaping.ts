/**
 * What leaves a realtime socket, shaped as ElevenLabs' clients read it: a piece's audio in the socket's format
 * (resampled PCM, G.711, WAV) and base64, and its alignment under each spelling of its fields.
 */
import type { ElevenLabsFormat } from '../output/formats.js';
import { PCM_RATE } from '../output/formats.js';
import { G711Encoder, PcmResampler, wavHeader } from '../output/pcm-stream.js';
import type { ChunkAlignment } from './audio-parts.js';

export const b64 = (audio: Buffer) => audio.toString('base64');

/** An alignment with each spelling of its fields that clients read (`charStartTimesMs`, `charsStartTimesMs`, `char_start_times_ms` …). */
export function spelled(a: ChunkAlignment | null): Record<string, unknown> | null {
  if (!a) return null;
  return {
    chars: a.chars,
    charStartTimesMs: a.charStartTimesMs,
    charDurationsMs: a.charDurationsMs,
    charsStartTimesMs: a.charStartTimesMs,
    charsDurationsMs: a.charDurationsMs,
    char_start_times_ms: a.charStartTimesMs,
    chars_durations_ms: a.charDurationsMs,
  };
}

/** The platform's rendering of a piece as the ElevenLabs format asks (PCM resampled, G.711, WAV at another rate). */
export function reshape(audio: Buffer, format: ElevenLabsFormat): Buffer {
  const { encoding, resampleTo } = format;
  if (encoding === null || (encoding === 'pcm' && resampleTo === null)) return audio;
  let pcm = audio;
  if (resampleTo !== null) {
    const r = new PcmResampler(PCM_RATE, resampleTo);
    pcm = Buffer.concat([r.write(audio), r.end()]);
  }
  if (encoding === 'ulaw' || encoding === 'alaw') return new G711Encoder(encoding).write(pcm);
  if (encoding === 'wav') return Buffer.concat([wavHeader(resampleTo ?? PCM_RATE, pcm.length), pcm]);
  return pcm;
}
