import type { Voice } from '@polyvox/contracts';
import { isNeural, type ModelInfo, type VoiceInfo } from '@polyvox/speech';

/**
 * Official voices are the engines' own voices and variants. Their public id is the engine id made
 * URL-safe behind the `voice_` prefix, so it is stable across restarts.
 */
export function officialVoiceId(engineVoiceId: string): string {
  return `voice_${engineVoiceId.replace(/:/g, '.').replace(/\+/g, '~')}`;
}

export const AVATAR_URL = (gender: string) =>
  `/assets/avatars/${gender === 'female' || gender === 'neutral' ? gender : 'male'}.svg`;

/** What the library says of a model's licence: its name, and whether it forbids commercial use. */
export function licenceFields(m: ModelInfo | undefined): { licence?: string; non_commercial?: boolean } {
  if (!m?.licence) return {};
  return { licence: m.licence.name, ...(m.licence.commercial ? {} : { non_commercial: true }) };
}

export function toOfficialVoice(v: VoiceInfo, mixable: Set<string>, startedAt: string, model?: ModelInfo): Voice {
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
    neural: isNeural(v.quality),
    ...licenceFields(model),
  };
}

export function mixableModels(models: ModelInfo[]): Set<string> {
  return new Set(models.filter((m) => m.type === 'mixing').map((m) => m.id));
}
