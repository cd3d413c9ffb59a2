/**
 * Mixing up to three voices of one model: profile numbers interpolate (pitch on a log scale), the
 * base voice is the heaviest, and where the model carries voice vectors the blend is theirs.
 */
import { SpeechError } from '../core/errors.ts';
import type { VoiceInfo, VoiceProfile } from '../core/types.ts';

export const MIX_MAX = 3;

export interface MixPart {
  voice: VoiceInfo;
  weight: number;
}

export function mixVoices(parts: MixPart[]): { base: VoiceInfo; profile: VoiceProfile } {
  if (parts.length < 1)
    throw new SpeechError('VALIDATION_FAILED', 'a mix needs at least one voice', {
      params: { field: 'mix', rule: 'at least 1' },
    });
  if (parts.length > MIX_MAX)
    throw new SpeechError('MIX_LIMIT', `at most ${MIX_MAX} voices can be mixed`, { params: { max: MIX_MAX } });
  const model = parts[0]!.voice.model;
  if (parts.some((p) => p.voice.model !== model))
    throw new SpeechError('VALIDATION_FAILED', 'mixed voices must share one model', {
      params: { field: 'mix', rule: 'one model' },
    });
  if (parts.some((p) => !(p.weight > 0)))
    throw new SpeechError('VALIDATION_FAILED', 'mix weights must be positive', { params: { field: 'mix.weight', rule: '> 0' } });
  const total = parts.reduce((a, p) => a + p.weight, 0);
  const w = parts.map((p) => p.weight / total);
  const base = parts.reduce((a, p) => (p.weight > a.weight ? p : a)).voice;
  const lin = (f: (p: VoiceProfile) => number): number => parts.reduce((a, p, i) => a + w[i]! * f(p.voice.profile), 0);
  const profile: VoiceProfile = {
    pitchHz: Math.exp(parts.reduce((a, p, i) => a + w[i]! * Math.log(p.voice.profile.pitchHz), 0)),
    range: lin((p) => p.range),
    rate: lin((p) => p.rate),
    formantScale: lin((p) => p.formantScale),
    breathiness: lin((p) => p.breathiness),
    gainDb: lin((p) => p.gainDb),
  };
  // A tilt some voice asks for (a designed one) blends like the other numbers, a voice without one counting as flat.
  if (parts.some((p) => typeof p.voice.profile.tiltDb === 'number')) profile.tiltDb = lin((p) => p.tiltDb ?? 0);
  if (base.engine === 'sherpa') {
    // A part that is itself a blend (an own mix) brings its own vectors, each at its share of the part's weight.
    const sids = new Map<number, number>();
    parts.forEach((p, i) => {
      const own = p.voice.profile.blend?.length ? p.voice.profile.blend : [{ sid: Number(p.voice.variant), weight: 1 }];
      const sum = own.reduce((a, b) => a + b.weight, 0) || 1;
      for (const b of own) sids.set(b.sid, (sids.get(b.sid) ?? 0) + (w[i]! * b.weight) / sum);
    });
    profile.blend = [...sids].map(([sid, weight]) => ({ sid, weight }));
  }
  return { base, profile };
}
