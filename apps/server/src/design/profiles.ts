import { checkLanguage, type ModelInfo, type VoiceInfo, type VoiceMeasures, type VoiceProfile } from '@polyvox/speech';
import { LIMITS } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import type { SpeechHost } from '../speech/speech-host.js';
import { mapSpeechErrors } from '../speech/errors.js';
import type { VoicesService } from '../voices/service.js';
import { cloneOnBase, designFromPrompt } from './analysis.js';

export interface MixInput {
  voice_id: string;
  weight: number;
}

/** A designed voice: the engine voice it is built on and the profile that makes it itself. */
export interface Design {
  base: VoiceInfo;
  profile: VoiceProfile;
  /** A zero-shot cloning model's: whether it needs the sample's transcript (else absent). */
  referenceText?: 'required' | 'optional';
}

/** The voice of a zero-shot clone: the model's clone voice, its gender read from the sample's pitch. */
const genderOf = (f0: number): VoiceInfo['gender'] => (f0 > 0 && f0 < 165 ? 'male' : f0 >= 165 ? 'female' : 'neutral');

export interface DesignerOptions {
  /** The engines that analyse samples and build profiles. */
  host: SpeechHost;
  /** The models and voices a design is built on. */
  voices: VoicesService;
}

/** Builds the voice a mix, a prompt or a sample describes, on one model. */
export class Designer {
  private readonly host: SpeechHost;
  private readonly voices: VoicesService;

  constructor(options: DesignerOptions) {
    this.host = options.host;
    this.voices = options.voices;
  }

  async model(id: string, field = 'model'): Promise<ModelInfo> {
    const { models } = await this.voices.load();
    const model = models.find((m) => m.id === id);
    if (!model) throw new AppError('VALIDATION_FAILED', { field, rule: 'unknown model' });
    return model;
  }

  /** The preview text must be in a language the base voice speaks (LANGUAGE_UNSUPPORTED otherwise). */
  async checkText(base: VoiceInfo, text: string): Promise<void> {
    // By the voice's own languages: a zero-shot model's clone voice is in no library.
    if (!checkLanguage(text, base.languages).ok) throw new AppError('LANGUAGE_UNSUPPORTED');
  }

  /**
   * 1 to 3 voices of one mixable model (MIX_LIMIT past 3), blended by weight: library voices, and
   * the caller's own voices of that model (each its library voice with its saved profile); another
   * account's voice is not found, like a missing one.
   */
  async mix(modelId: string, parts: MixInput[] | undefined, accountId?: string): Promise<Design> {
    if (!parts?.length) throw new AppError('PARAMETERS_NEEDED', { field: 'mix' });
    if (parts.length > LIMITS.mixMax) throw new AppError('MIX_LIMIT');
    const model = await this.model(modelId);
    if (model.type !== 'mixing') throw new AppError('VALIDATION_FAILED', { field: 'model', rule: 'must be a mixing model' });
    const infos: VoiceInfo[] = [];
    for (const part of parts) {
      const { info, voice, profile } = await this.voices.get(part.voice_id, accountId);
      if (info.model !== model.id || (voice.source === 'mine' && voice.model !== model.id))
        throw new AppError('VALIDATION_FAILED', { field: 'mix', rule: 'voices of the chosen model' });
      // An own voice enters the mix as its library voice with its saved profile.
      infos.push(profile ? { ...info, profile } : info);
    }
    const speech = await this.host.get();
    const mixed = await mapSpeechErrors(async () => speech.mix(infos.map((voice, i) => ({ voice, weight: parts[i]!.weight }))));
    return { base: mixed.base, profile: mixed.profile };
  }

  /** The voice a description asks for, on the chosen model; `seed` varies repeated previews a little. */
  async prompt(modelId: string, language: string, prompt: string | undefined, seed: number): Promise<Design> {
    if (!prompt?.trim()) throw new AppError('PARAMETERS_NEEDED', { field: 'prompt' });
    await this.model(modelId);
    const candidates = await this.voices.candidates(modelId, language);
    if (!candidates.length) throw new AppError('LANGUAGE_UNSUPPORTED');
    return designFromPrompt(prompt, candidates, seed, language);
  }

  /** A profile that reproduces a sample's measures on the model's default voice for the language. */
  async clone(modelId: string, language: string, measures: VoiceMeasures): Promise<Design> {
    const model = await this.model(modelId);
    if (model.type === 'cloning') {
      // A zero-shot model imitates the sample itself: it gets the sample, and no profile of ours.
      const family = (tag: string) => tag.toLowerCase().split('-')[0]!;
      if (!model.languages.some((l) => family(l) === family(language))) throw new AppError('LANGUAGE_UNSUPPORTED');
      const speech = await this.host.get();
      const base = await mapSpeechErrors(async () => speech.cloneVoice(model.id, model.name, genderOf(measures.f0MedianHz)));
      return { base, profile: { ...base.profile }, referenceText: model.referenceText ?? 'optional' };
    }
    const candidates = await this.voices.candidates(modelId, language);
    const base = candidates[0];
    if (!base) throw new AppError('LANGUAGE_UNSUPPORTED');
    return { base, profile: cloneOnBase(measures, base) };
  }
}
