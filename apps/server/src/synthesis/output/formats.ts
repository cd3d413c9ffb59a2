import { z } from 'zod';
import type { VoiceSettingsInput } from '@polyvox/speech';
/**
 * ElevenLabs' output formats (`codec_rate[_bitrate]`) that Polyvox serves: every one ElevenLabs' API lists.
 * PCM is 16-bit mono at the rate asked for (resampled from the platform's 24 kHz); WAV is that PCM in a
 * RIFF header; `ulaw_8000` and `alaw_8000` are G.711 bytes at 8 kHz without a header, as ElevenLabs sends
 * them. mp3 and Opus are encoded at the platform's own rate and bitrate (every decoder reads them from the
 * stream; Ogg Opus always decodes at 48 kHz).
 */
export const ELEVENLABS_FORMATS = [
  'mp3_22050_32',
  'mp3_24000_48',
  'mp3_44100_32',
  'mp3_44100_64',
  'mp3_44100_96',
  'mp3_44100_128',
  'mp3_44100_192',
  'opus_48000_32',
  'opus_48000_64',
  'opus_48000_96',
  'opus_48000_128',
  'opus_48000_192',
  'pcm_8000',
  'pcm_16000',
  'pcm_22050',
  'pcm_24000',
  'pcm_32000',
  'pcm_44100',
  'pcm_48000',
  'wav_8000',
  'wav_16000',
  'wav_22050',
  'wav_24000',
  'wav_32000',
  'wav_44100',
  'wav_48000',
  'ulaw_8000',
  'alaw_8000',
] as const;

/** The rate of the platform's PCM and WAV. */
export const PCM_RATE = 24000;

export interface ElevenLabsFormat {
  /** What the platform synthesizes: its own mp3, Opus or WAV, or PCM that is reshaped on the way out. */
  format: 'mp3' | 'opus' | 'pcm' | 'wav';
  /** For PCM at another rate than the platform's: the rate to resample to. */
  resampleTo: number | null;
  /** How the (resampled) PCM leaves: as it is, in a WAV header, or companded to G.711. */
  encoding: 'pcm' | 'wav' | 'ulaw' | 'alaw' | null;
  contentType: string | null;
}

const CONTENT_TYPES = new Map([
  ['wav', 'audio/wav'],
  ['ulaw', 'audio/basic'],
  ['alaw', 'audio/x-alaw-basic'],
]);

function describe(name: string): ElevenLabsFormat {
  const [codec, rateText] = name.split('_') as [string, string];
  const rate = Number(rateText);
  const resampleTo = rate !== PCM_RATE ? rate : null;
  if (codec === 'mp3' || codec === 'opus') return { format: codec, resampleTo: null, encoding: null, contentType: null };
  // The platform's own WAV is 24 kHz: served as it is; other rates are its PCM resampled and wrapped.
  if (codec === 'wav' && resampleTo === null) return { format: 'wav', resampleTo: null, encoding: null, contentType: null };
  const encoding = codec as 'pcm' | 'wav' | 'ulaw' | 'alaw';
  return { format: 'pcm', resampleTo, encoding, contentType: CONTENT_TYPES.get(encoding) ?? null };
}

const FORMATS = new Map<string, ElevenLabsFormat>(ELEVENLABS_FORMATS.map((f) => [f, describe(f)]));

export function elevenLabsFormat(name: string): ElevenLabsFormat | null {
  return FORMATS.get(name) ?? null;
}

/**
 * ElevenLabs' `voice_settings`: `speed` is the request's speed; `stability`, `style` and `use_speaker_boost` move the
 * voice's pitch range and tone (`settingsProfile` in the speech package: lower stability and more style widen the
 * range, no speaker boost a slightly duller tone); `similarity_boost` is accepted without effect. ElevenLabs'
 * defaults (0.5, 0.75, 0, true) leave the voice exactly as it is; values outside 0–1 count as the nearest end.
 */
export const VoiceSettings = z
  .object({
    stability: z.number().nullish(),
    similarity_boost: z.number().nullish(),
    style: z.number().nullish(),
    use_speaker_boost: z.boolean().nullish(),
    speed: z.number().min(0.5).max(2).nullish(),
  })
  .passthrough();
export type VoiceSettings = z.infer<typeof VoiceSettings>;

/** The settings as the synthesis service takes them (absent when none are given). */
export function voiceSettingsInput(s: VoiceSettings | null | undefined): { voiceSettings?: VoiceSettingsInput } {
  if (!s) return {};
  return {
    voiceSettings: {
      stability: s.stability,
      similarityBoost: s.similarity_boost,
      style: s.style,
      speakerBoost: s.use_speaker_boost,
    },
  };
}
