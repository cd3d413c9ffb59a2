/** OpenAI's voice names, each mapped to the official voice that stands in for it. */
export const OPENAI_VOICE_DEFAULTS: Record<string, string> = {
  alloy: 'voice_flite.slt',
  ash: 'voice_flite.rms',
  ballad: 'voice_flite.awb',
  coral: 'voice_espeak.en-us~f2',
  echo: 'voice_espeak.en-us~m3',
  fable: 'voice_espeak.en~m3',
  onyx: 'voice_espeak.en-us~m7',
  nova: 'voice_espeak.en-us~f4',
  sage: 'voice_espeak.en~f3',
  shimmer: 'voice_espeak.en-us~f5',
  verse: 'voice_espeak.en-us~m2',
};
