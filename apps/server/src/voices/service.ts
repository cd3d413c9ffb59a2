import type { MessageLocale, Voice } from '@polyvox/contracts';
import type { ModelInfo, VoiceInfo } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import type { Storage } from '../platform/storage.js';
import type { SpeechHost } from '../synthesis/speech-host.js';
import { mapSpeechErrors } from '../synthesis/errors.js';
import { mixableModels, officialVoiceId, toOfficialVoice } from './official.js';
import { rankVoices } from './ranking.js';
import { localizeVoice } from './display-texts.js';

export interface VoiceQuery {
  source?: 'official' | 'mine';
  page: number;
  page_size: number;
  model?: string;
  languages?: string;
  gender?: string;
  name?: string;
  mix?: 'true' | 'false';
}

interface Library {
  voices: Voice[];
  byId: Map<string, { voice: Voice; info: VoiceInfo }>;
  models: ModelInfo[];
}

const family = (tag: string) => tag.toLowerCase().split('-')[0]!;

/** Matches a requested tag against a voice's: `en` covers `en-US`; `zh-CN` must match exactly or by family `cmn`. */
function languageMatches(voiceLanguages: string[], wanted: string[]): boolean {
  return wanted.some((w) => {
    const lw = w.toLowerCase();
    return voiceLanguages.some((l) => {
      const ll = l.toLowerCase();
      return ll === lw || (!lw.includes('-') && family(ll) === lw);
    });
  });
}

/** The official library: every engine voice and variant, served from memory once the engines are up. */
export class VoicesService {
  private library: Promise<Library> | null = null;
  private readonly previews = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly host: SpeechHost,
    private readonly storage: Storage,
    private readonly startedAt = new Date().toISOString(),
  ) {}

  load(): Promise<Library> {
    this.library ??= this.host.get().then((speech) => {
      const models = speech.listModels();
      const mixable = mixableModels(models);
      const byId = new Map<string, { voice: Voice; info: VoiceInfo }>();
      for (const info of rankVoices(speech.listVoices().map((v) => ({ info: v }))).map((v) => v.info)) {
        const voice = toOfficialVoice(info, mixable, this.startedAt);
        byId.set(voice.id, { voice, info });
      }
      return { voices: [...byId.values()].map((v) => v.voice), byId, models };
    });
    return this.library;
  }

  /** `locale`: the display texts' language; a name search matches the English or the shown name. */
  async list(
    q: VoiceQuery,
    locale: MessageLocale = 'en',
  ): Promise<{ items: Voice[]; total: number; page: number; page_size: number }> {
    if (q.source === 'mine') return { items: [], total: 0, page: q.page, page_size: q.page_size };
    const library = await this.load();
    const voices = library.voices.map((v) => localizeVoice(v, library.byId.get(v.id)!.info, locale));
    const wanted =
      q.languages
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean) ?? [];
    const name = q.name?.trim().toLowerCase();
    const filtered = voices.filter(
      (v) =>
        (!q.model || v.model === q.model) &&
        (!q.gender || v.gender === q.gender) &&
        (!name || v.name.toLowerCase().includes(name) || library.byId.get(v.id)!.voice.name.toLowerCase().includes(name)) &&
        (!wanted.length || languageMatches(v.languages, wanted)) &&
        (q.mix !== 'true' || v.mixable === true),
    );
    const start = (q.page - 1) * q.page_size;
    return { items: filtered.slice(start, start + q.page_size), total: filtered.length, page: q.page, page_size: q.page_size };
  }

  async get(id: string): Promise<{ voice: Voice; info: VoiceInfo }> {
    const found = (await this.load()).byId.get(id);
    if (!found) throw new AppError('NOT_FOUND');
    return found;
  }

  /** Renders every missing preview, one at a time, so the library's play buttons answer at once. */
  async prerenderPreviews(shouldStop: () => boolean = () => false): Promise<{ rendered: number; failed: number }> {
    const { voices } = await this.load();
    let rendered = 0;
    let failed = 0;
    for (const voice of voices) {
      if (shouldStop()) break;
      try {
        await this.preview(voice.id);
        rendered += 1;
      } catch {
        failed += 1;
      }
    }
    return { rendered, failed };
  }

  /** A voice's preview, rendered once and kept in storage. */
  async preview(id: string): Promise<Buffer> {
    const { info } = await this.get(id);
    const key = `previews/${officialVoiceId(info.id).replace(/[^a-zA-Z0-9_-]/g, '_')}.mp3`;
    let pending = this.previews.get(key);
    if (!pending) {
      pending = (async () => {
        const stored = await this.storage.get(key);
        if (stored) return stored;
        const speech = await this.host.get();
        const result = await mapSpeechErrors(() => speech.renderPreview(info.id, 'mp3'));
        await this.storage.put(key, result.audio);
        return result.audio;
      })();
      this.previews.set(key, pending);
      pending.catch(() => this.previews.delete(key));
      // Finished renders live in storage; the map only joins concurrent requests.
      pending.finally(() => this.previews.delete(key)).catch(() => undefined);
    }
    return pending;
  }
}
