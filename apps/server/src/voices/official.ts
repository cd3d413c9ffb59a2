import type { Voice } from '@polyvox/contracts';
import type { ModelInfo, VoiceInfo } from '@polyvox/speech';

/**
 * Official voices are the engines' own voices and variants. Their public id is the engine id made
 * URL-safe behind the `voice_` prefix, so it is stable across restarts.
 */
export function officialVoiceId(engineVoiceId: string): string {
  return `voice_${engineVoiceId.replace(/:/g, '.').replace(/\+/g, '~')}`;
}

export const AVATAR_URL = (gender: string) =>
  `/assets/avatars/${gender === 'female' || gender === 'neutral' ? gender : 'male'}.svg`;

export function toOfficialVoice(v: VoiceInfo, mixable: Set<string>, startedAt: string): Voice {
  const id = officialVoiceId(v.id);
  return {
    id,
    name: v.name,
    gender: v.gender,
    model: v.model,
    languages: v.languages,
    source: 'official',
    type: 'preset',
    mix: null,
    avatar: AVATAR_URL(v.gender),
    preview_url: `/voice/preview/${id}.mp3`,
    status: 'active',
    created_at: startedAt,
    engine: v.engine,
    variant: v.variant,
    ...(v.description ? { description: v.description } : {}),
    mixable: mixable.has(v.model),
  };
}

export function mixableModels(models: ModelInfo[]): Set<string> {
  return new Set(models.filter((m) => m.type === 'mixing').map((m) => m.id));
}
