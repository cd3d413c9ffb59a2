/**
 * ElevenLabs' output formats (`codec_rate[_bitrate]`) that Polyvox serves. mp3 and Opus are encoded at
 * the platform's own rate and bitrate (every decoder reads them from the stream); PCM and WAV are the
 * platform's 24 kHz 16-bit mono, the rate ElevenLabs' pcm_24000 and wav_24000 name.
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
  'pcm_24000',
  'wav_24000',
] as const;

const FORMATS = new Map<string, { format: 'mp3' | 'opus' | 'pcm' | 'wav' }>(
  ELEVENLABS_FORMATS.map((f) => [f, { format: f.split('_')[0] as 'mp3' | 'opus' | 'pcm' | 'wav' }]),
);

export function elevenLabsFormat(name: string): { format: 'mp3' | 'opus' | 'pcm' | 'wav' } | null {
  return FORMATS.get(name) ?? null;
}
