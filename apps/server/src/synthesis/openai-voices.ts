/**
 * OpenAI's voice names, each mapped to the official voice that stands in for it: the most
 * intelligible English voices (Flite's clustergen voices), female names to Sarah (slt), the others
 * spread over Alan (awb), Richard (rms) and Kal (kal16).
 */
export const OPENAI_VOICE_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({
  alloy: 'voice_flite.slt',
  ash: 'voice_flite.rms',
  ballad: 'voice_flite.awb',
  coral: 'voice_flite.slt',
  echo: 'voice_flite.rms',
  fable: 'voice_flite.awb',
  onyx: 'voice_flite.kal16',
  nova: 'voice_flite.slt',
  sage: 'voice_flite.slt',
  shimmer: 'voice_flite.slt',
  verse: 'voice_flite.kal16',
  marin: 'voice_flite.slt',
  cedar: 'voice_flite.rms',
});

/** The official voice for an OpenAI voice name, or undefined for any other name (own keys only). */
export function openAiVoiceId(name: string): string | undefined {
  const key = name.toLowerCase();
  return Object.hasOwn(OPENAI_VOICE_DEFAULTS, key) ? OPENAI_VOICE_DEFAULTS[key] : undefined;
}
