import type { MessageLocale, Voice } from '@polyvox/contracts';
import type { ModelInfo, SynthesisRequest, VoiceInfo, VoiceProfile } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import type { ByteRange, Storage, StoredStream } from '../platform/storage.js';
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

/** A voice as a request uses it: an official one, or one of the caller's own with its profile. */
export interface FoundVoice {
  voice: Voice;
  info: VoiceInfo;
  profile?: VoiceProfile;
  reference?: SynthesisRequest['reference'];
}

/** The caller's own voices (saved mixes, designed and cloned voices), kept by the design module. */
export interface OwnVoiceSource {
  find(accountId: string, id: string): Promise<FoundVoice | null>;
  list(accountId: string): Promise<{ voice: Voice; info: VoiceInfo }[]>;
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
  private readonly previews = new Map<string, Promise<void>>();
  private own: OwnVoiceSource | null = null;

  constructor(
    private readonly host: SpeechHost,
    private readonly storage: Storage,
    private readonly startedAt = new Date().toISOString(),
  ) {}

  /** Wired once at start: the design module answers for voices that are not official. */
  setOwnVoices(source: OwnVoiceSource): void {
    this.own = source;
  }

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
  /** The account's own voices (none without the design module). */
  async ownVoices(accountId: string): Promise<{ voice: Voice; info: VoiceInfo }[]> {
    return this.own ? this.own.list(accountId) : [];
  }

  async list(
    q: VoiceQuery,
    locale: MessageLocale = 'en',
    accountId?: string,
  ): Promise<{ items: Voice[]; total: number; page: number; page_size: number }> {
    if (q.source === 'mine') {
      const mine = accountId && this.own ? await this.own.list(accountId) : [];
      return this.filter(q, mine, new Map(mine.map((v) => [v.voice.id, v])));
    }
    const library = await this.load();
    return this.filter(
      q,
      library.voices.map((v) => ({
        voice: localizeVoice(v, library.byId.get(v.id)!.info, locale),
        info: library.byId.get(v.id)!.info,
      })),
      library.byId,
    );
  }

  /** The library's filters and paging, over official or own voices alike. */
  private filter(
    q: VoiceQuery,
    entries: { voice: Voice; info: VoiceInfo }[],
    byId: Map<string, { voice: Voice }>,
  ): { items: Voice[]; total: number; page: number; page_size: number } {
    const voices = entries.map((e) => e.voice);
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
        (!name || v.name.toLowerCase().includes(name) || byId.get(v.id)!.voice.name.toLowerCase().includes(name)) &&
        (!wanted.length || languageMatches(v.languages, wanted)) &&
        (q.mix !== 'true' || v.mixable === true),
    );
    const start = (q.page - 1) * q.page_size;
    return { items: filtered.slice(start, start + q.page_size), total: filtered.length, page: q.page, page_size: q.page_size };
  }

  /**
   * A voice by its public id: the official library first (a map lookup), then, for a caller, its own
   * voices. Another account's voice answers NOT_FOUND, as a missing one does.
   */
  async get(id: string, accountId?: string): Promise<FoundVoice> {
    const found = (await this.load()).byId.get(id);
    if (found) return found;
    const own = accountId && this.own ? await this.own.find(accountId, id) : null;
    if (!own) throw new AppError('NOT_FOUND');
    return own;
  }

  /** Whether the id names an official voice (those cannot be renamed or deleted). */
  async isOfficial(id: string): Promise<boolean> {
    return (await this.load()).byId.has(id);
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

  /** Renders every missing preview, one at a time, so the library's play buttons answer at once. */
  async prerenderPreviews(shouldStop: () => boolean = () => false): Promise<{ rendered: number; failed: number }> {
    const { voices } = await this.load();
    let rendered = 0;
    let failed = 0;
    for (const voice of voices) {
      if (shouldStop()) break;
      try {
        await this.ensurePreview(voice.id);
        rendered += 1;
      } catch {
        failed += 1;
      }
    }
    return { rendered, failed };
  }

  private renderer: ((request: SynthesisRequest) => Promise<{ audio: Buffer }>) | null = null;

  /** ROLE=api: previews are rendered by the worker processes (through the queue), not by engines here. */
  setRenderer(render: (request: SynthesisRequest) => Promise<{ audio: Buffer }>): void {
    this.renderer = render;
  }

  private async previewKey(id: string): Promise<{ info: VoiceInfo; key: string }> {
    const found = (await this.load()).byId.get(id);
    if (!found) throw new AppError('NOT_FOUND');
    const { info } = found;
    return { info, key: `previews/${officialVoiceId(info.id).replace(/[^a-zA-Z0-9_-]/g, '_')}.mp3` };
  }

  /** A voice's preview, streamed from storage (the asked range of it); rendered and kept the first time. */
  async preview(id: string, range?: ByteRange): Promise<StoredStream> {
    const { key } = await this.previewKey(id);
    const kept = await this.storage.getStream(key, range);
    if (kept) return kept;
    await this.ensurePreview(id);
    const made = await this.storage.getStream(key, range);
    if (!made) throw new AppError('NOT_FOUND');
    return made;
  }

  /** Renders a voice's preview into storage unless it is there already. */
  async ensurePreview(id: string): Promise<void> {
    const { info, key } = await this.previewKey(id);
    let pending = this.previews.get(key);
    if (!pending) {
      pending = (async () => {
        if (await this.storage.exists(key)) return;
        const render = this.renderer;
        const result = await mapSpeechErrors(async () =>
          render
            ? render({ text: info.previewText, voice: info, format: 'mp3', language: info.languages[0]!, checkLanguage: false })
            : (await this.host.get()).renderPreview(info.id, 'mp3'),
        );
        await this.storage.put(key, result.audio, { contentType: 'audio/mpeg' });
      })();
      this.previews.set(key, pending);
      pending.catch(() => this.previews.delete(key));
      // Finished renders live in storage; the map only joins concurrent requests.
      pending.finally(() => this.previews.delete(key)).catch(() => undefined);
    }
    return pending;
  }
}
