import type { Voice } from '@polyvox/contracts';
import type { ModelInfo, VoiceInfo } from '@polyvox/speech';
import type { SpeechHost } from '../speech/speech-host.js';
import { mixableModels, toOfficialVoice } from './official.js';
import { rankVoices } from './ranking.js';
import type { WithheldVoices } from './withheld.js';

export interface Library {
  voices: Voice[];
  byId: Map<string, { voice: Voice; info: VoiceInfo }>;
  models: ModelInfo[];
}

const family = (tag: string) => tag.toLowerCase().split('-')[0]!;

export interface VoiceLibraryOptions {
  host: SpeechHost;
  /** The official voices taken down after a report: left out of the library everywhere. */
  withheld?: WithheldVoices;
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
  private readonly withheld: WithheldVoices | null;
  /** The library without the withheld voices, for one library and one withheld set. */
  private shown: { from: Library; without: Set<string>; library: Library } | null = null;

  constructor(options: VoiceLibraryOptions) {
    this.host = options.host;
    this.startedAt = options.startedAt ?? new Date().toISOString();
    this.withheld = options.withheld ?? null;
  }

  /** The library as every route sees it: the voices taken down left out. */
  async load(): Promise<Library> {
    const [all, without] = await Promise.all([this.loadAll(), this.withheld?.ids() ?? null]);
    if (!without?.size) return all;
    if (this.shown?.from !== all || this.shown.without !== without) {
      const byId = new Map([...all.byId].filter(([id]) => !without.has(id)));
      this.shown = {
        from: all,
        without,
        library: { voices: all.voices.filter((v) => byId.has(v.id)), byId, models: all.models },
      };
    }
    return this.shown.library;
  }

  /**
   * Every engine voice, the withheld too: what an own voice made on one of them is spoken on (its owner's voice,
   * designed or cloned, is not the voice taken down; saved mixes of it are taken down with it).
   */
  loadAll(): Promise<Library> {
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
