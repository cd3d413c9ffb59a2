import type { VoiceInfo } from '@polyvox/speech';
import { officialVoiceId } from './official.js';

/**
 * OpenAI's voice names: the gender each sounds as, and which of that gender's best English voices
 * stands in for it (0 the best, 1 the next, …), so the names spread over the best installed voices.
 * With the built-in engines alone that is Flite: the female names Sarah (slt), the others Alan (awb),
 * Richard (rms) and Kal (kal16); once a neural model speaks English, its voices.
 */
export const OPENAI_VOICES: ReadonlyMap<string, { gender: 'female' | 'male'; slot: number }> = new Map([
  ['alloy', { gender: 'female', slot: 0 }],
  ['ash', { gender: 'male', slot: 1 }],
  ['ballad', { gender: 'male', slot: 0 }],
  ['coral', { gender: 'female', slot: 0 }],
  ['echo', { gender: 'male', slot: 1 }],
  ['fable', { gender: 'male', slot: 0 }],
  ['onyx', { gender: 'male', slot: 2 }],
  ['nova', { gender: 'female', slot: 0 }],
  ['sage', { gender: 'female', slot: 0 }],
  ['shimmer', { gender: 'female', slot: 0 }],
  ['verse', { gender: 'male', slot: 2 }],
  ['marin', { gender: 'female', slot: 0 }],
  ['cedar', { gender: 'male', slot: 1 }],
] as const);

const english = (v: VoiceInfo): boolean => v.languages.some((l) => l.toLowerCase().split('-')[0] === 'en');

/**
 * The official voice id an OpenAI voice name stands for, from the library's voices best first
 * (rankVoices): among the English voices of the best quality installed, those of its gender (else the
 * neutral ones, else any), its slot counted round them. Undefined for any other name.
 */
export function openAiVoiceId(name: string, ranked: readonly VoiceInfo[]): string | undefined {
  const want = OPENAI_VOICES.get(name.toLowerCase());
  if (!want) return undefined;
  const voices = ranked.filter(english);
  if (!voices.length) return undefined;
  const top = Math.max(...voices.map((v) => v.quality ?? 0));
  const tier = voices.filter((v) => (v.quality ?? 0) === top);
  const same = tier.filter((v) => v.gender === want.gender);
  const neutral = tier.filter((v) => v.gender === 'neutral');
  const pool = same.length ? same : neutral.length ? neutral : tier;
  return officialVoiceId(pool[want.slot % pool.length]!.id);
}
