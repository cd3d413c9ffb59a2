import type { Voice } from '@polyvox/contracts';
import type { ModelInfo, VoiceInfo } from '@polyvox/speech';
import type { SpeechHost } from '../speech/speech-host.js';
import { mixableModels, toOfficialVoice } from './official.js';
import { rankVoices } from './ranking.js';

export interface Library {
  voices: Voice[];
  byId: Map<string, { voice: Voice; info: VoiceInfo }>;
  models: ModelInfo[];
}

const family = (tag: string) => tag.toLowerCase().split('-')[0]!;

export interface VoiceLibraryOptions {
  host: SpeechHost;
  /** What the official voices give as their creation time (the process's start). */
  startedAt?: string;
}

/**
 * The official library: every engine voice and variant, read once the engines are up and kept in memory (read
 * again when MODELS_DIR's models change). It depends
 * on the engines alone, so the voices service and the own voices both build on it without reaching each other.
 */
export class VoiceLibrary {
  private library: Promise<Library> | null = null;
  private following = false;
  private readonly host: SpeechHost;
  private readonly startedAt: string;

  constructor(options: VoiceLibraryOptions) {
    this.host = options.host;
    this.startedAt = options.startedAt ?? new Date().toISOString();
  }

  load(): Promise<Library> {
    this.library ??= this.host.get().then((speech) => {
      // A model added to or removed from MODELS_DIR while running: the library is read again at its next use.
      if (!this.following) {
        this.following = true;
        speech.onModelsChange(() => {
          this.library = null;
        });
      }
      const models = speech.listModels();
      const mixable = mixableModels(models);
      const modelById = new Map(models.map((m) => [m.id, m]));
      const byId = new Map<string, { voice: Voice; info: VoiceInfo }>();
      for (const info of rankVoices(speech.listVoices().map((v) => ({ info: v }))).map((v) => v.info)) {
        const voice = toOfficialVoice(info, mixable, this.startedAt, modelById.get(info.model));
        byId.set(voice.id, { voice, info });
      }
      return { voices: [...byId.values()].map((v) => v.voice), byId, models };
    });
    return this.library;
  }

  /** Whether the id names an official voice (those cannot be renamed or deleted). */
  async isOfficial(id: string): Promise<boolean> {
    return (await this.load()).byId.has(id);
  }

  /** Whether a model blends voices (its voices may go into a mix). */
  async mixable(model: string): Promise<boolean> {
    return mixableModels((await this.load()).models).has(model);
  }

  /**
   * The voices of a model that speak a language, best first: the bases a designed or cloned voice
   * is built on.
   */
  async candidates(model: string, language: string): Promise<VoiceInfo[]> {
    const want = family(language);
    const all = [...(await this.load()).byId.values()].map((v) => v.info).filter((v) => v.model === model);
    const exact = all.filter((v) => v.languages.some((l) => l.toLowerCase() === language.toLowerCase()));
    return exact.length ? exact : all.filter((v) => v.languages.some((l) => family(l) === want));
  }
}
