/**
 * ElevenLabs' output formats (`codec_rate[_bitrate]`) that Polyvox serves. mp3 and Opus are encoded at
 * the platform's own rate and bitrate (every decoder reads them from the stream); PCM is 16-bit mono at
 * the rate asked for (resampled from the platform's 24 kHz), WAV the platform's 24 kHz.
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
  'wav_24000',
] as const;

/** The rate of the platform's PCM and WAV. */
export const PCM_RATE = 24000;

export interface ElevenLabsFormat {
  format: 'mp3' | 'opus' | 'pcm' | 'wav';
  /** For PCM at another rate than the platform's: the rate to resample to. */
  resampleTo: number | null;
}

const FORMATS = new Map<string, ElevenLabsFormat>(
  ELEVENLABS_FORMATS.map((f) => {
    const [codec, rate] = f.split('_');
    const format = codec as ElevenLabsFormat['format'];
    return [f, { format, resampleTo: format === 'pcm' && Number(rate) !== PCM_RATE ? Number(rate) : null }];
  }),
);

export function elevenLabsFormat(name: string): ElevenLabsFormat | null {
  return FORMATS.get(name) ?? null;
}
