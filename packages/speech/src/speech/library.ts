/**
 * The voice library: the engines (local ones, and the remote providers configured), the voices and models they offer,
 * and the look-ups a request needs (a voice by id, a language's voice, the eSpeak NG voice that is the aligner's
 * reference). Read again when MODELS_DIR changes or the providers are replaced.
 */
import { languageFamily } from '../catalogue/languages.ts';
import { mixVoices, type MixPart } from '../catalogue/mix.ts';
import { SherpaEngine, type ModelsChange } from '../engines/sherpa.ts';
import { SpeechError } from '../core/errors.ts';
import { isNeural } from '../core/quality.ts';
import type { Engine, ModelInfo, VoiceInfo } from '../core/types.ts';
import type { VoiceFilter } from './api.ts';
import { remoteEngines, type RemoteOptions, type Unavailable } from './remote.ts';

/** The voice of `engine` that speaks `language` (its own, else one of its family), leaving out mixed variants. */
function languageVoice(voices: VoiceInfo[], language: string): VoiceInfo | undefined {
  const lower = language.toLowerCase();
  return (
    voices.find((v) => v.languages.some((l) => l.toLowerCase() === lower)) ??
    voices.find((v) => v.languages.some((l) => languageFamily(l) === languageFamily(language)))
  );
}

export class VoiceLibrary {
  readonly remote = new Map<string, Engine>();
  /** Remote providers that were configured but could not be reached (at start or at the last change). */
  readonly unavailable: Unavailable[] = [];
  readonly sherpa: SherpaEngine | undefined;
  private engines: Engine[] = [];
  private voices: VoiceInfo[] = [];
  private byId = new Map<string, VoiceInfo>();
  private mixable = new Set<string>();

  constructor(readonly local: Map<string, Engine>) {
    const sherpa = local.get('sherpa');
    this.sherpa = sherpa instanceof SherpaEngine ? sherpa : undefined;
    this.read();
  }

  /** Reads the engines' voices and models again (a model added or removed, providers replaced). */
  read(): void {
    this.engines = [...this.local.values(), ...this.remote.values()];
    // Each voice carries its quality rank: its own where its model declares one, else its engine's.
    this.voices = this.engines.flatMap((e) =>
      e.listVoices().map((v) => (v.quality === undefined ? { ...v, quality: e.capabilities.quality } : v)),
    );
    this.byId = new Map(this.voices.map((v) => [v.id, v]));
    this.mixable = new Set(
      this.engines
        .flatMap((e) => e.listModels())
        .filter((m) => m.type === 'mixing')
        .map((m) => m.id),
    );
  }

  get allEngines(): readonly Engine[] {
    return this.engines;
  }

  find(id: string): VoiceInfo | undefined {
    return this.byId.get(id);
  }

  /** A voice of `engine` for a markup part in `language`. */
  findLanguageVoice(engine: string, language: string): VoiceInfo | undefined {
    return languageVoice(
      this.voices.filter((v) => v.engine === engine && !v.variant.includes('+')),
      language,
    );
  }

  /** The eSpeak NG voice whose rendering of a language is the generic aligner's reference: the language's own, else its family's. */
  referenceVoice(language: string): VoiceInfo | undefined {
    return this.findLanguageVoice('espeak', language);
  }

  /** Whether an engine reports word times of its own. */
  timedEngine(id: string): boolean {
    return this.engines.find((e) => e.id === id)?.capabilities.wordTimings === true;
  }

  list(filter: VoiceFilter = {}): VoiceInfo[] {
    const language = filter.language?.toLowerCase();
    return this.voices.filter(
      (v) =>
        (!filter.model || v.model === filter.model) &&
        (!filter.engine || v.engine === filter.engine) &&
        (!filter.gender || v.gender === filter.gender) &&
        (!language || v.languages.some((l) => l.toLowerCase() === language || l.toLowerCase().split('-')[0] === language)) &&
        (!filter.name || v.name.toLowerCase().includes(filter.name.toLowerCase())) &&
        (filter.mixable === undefined || this.mixable.has(v.model) === filter.mixable) &&
        (filter.neural === undefined || isNeural(v.quality) === filter.neural),
    );
  }

  models(): ModelInfo[] {
    return this.engines.flatMap((e) =>
      e.listModels().map((m) => (m.quality === undefined ? { ...m, quality: e.capabilities.quality } : m)),
    );
  }

  /** Blends 1 to 3 voices of one mixable model (library voices, or library voices with a profile of their own). */
  mix(parts: ({ voiceId: string; weight: number } | { voice: VoiceInfo; weight: number })[]) {
    const resolved: MixPart[] = parts.map((p) => {
      const id = 'voice' in p ? p.voice.id : p.voiceId;
      const library = this.byId.get(id);
      if (!library) throw new SpeechError('NOT_FOUND', `voice ${id} not found`);
      // A saved voice is its library voice with another profile: everything else stays the library's.
      const voice = 'voice' in p ? { ...library, profile: p.voice.profile } : library;
      if (!this.mixable.has(voice.model))
        throw new SpeechError('VALIDATION_FAILED', `voices of ${voice.model} cannot be mixed`, {
          params: { field: 'mix', rule: 'mixable model' },
        });
      return { voice, weight: p.weight };
    });
    return mixVoices(resolved);
  }

  cloneVoice(modelId: string, name: string, gender?: VoiceInfo['gender']): VoiceInfo {
    if (!this.sherpa) throw new SpeechError('NOT_FOUND', `model ${modelId} is not installed`);
    return this.sherpa.cloneVoice(modelId, name, gender);
  }

  /**
   * Replaces the remote providers: their voices appear or go at once. Answers the change of models (every remote
   * model that stays counts as changed: its provider's address, key or voices may be others) and the providers that
   * could not be reached, which stay out.
   */
  async setRemote(next: RemoteOptions): Promise<{ change: ModelsChange; unavailable: Unavailable[] }> {
    const down: Unavailable[] = [];
    const built = await remoteEngines(next, down);
    const before = [...this.remote.values()].flatMap((e) => e.listModels().map((m) => m.id));
    this.remote.clear();
    for (const [id, engine] of built) this.remote.set(id, engine);
    this.unavailable.splice(0, this.unavailable.length, ...down);
    this.read();
    const after = [...this.remote.values()].flatMap((e) => e.listModels().map((m) => m.id));
    const change: ModelsChange = {
      added: after.filter((m) => !before.includes(m)),
      removed: before.filter((m) => !after.includes(m)),
      changed: after.filter((m) => before.includes(m)),
      problems: this.sherpa?.problems ?? [],
    };
    return { change, unavailable: down };
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close?.()));
  }
}
