import type { MessageLocale, Voice } from '@polyvox/contracts';
import type { Provenance } from '../provenance/service.js';
import type { SynthesisRequest, VoiceInfo, VoiceProfile } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import type { ByteRange, Storage, StoredStream } from '../platform/storage.js';
import { mapSpeechErrors } from '../speech/errors.js';
import type { Synthesizer } from '../speech/synthesizer.js';
import { officialVoiceId } from './official.js';
import { localizeVoice } from './display-texts.js';
import type { Library, VoiceLibrary } from './library.js';
import { openAiVoiceId } from './openai-voices.js';

export interface VoiceQuery {
  source?: 'official' | 'mine';
  page: number;
  page_size: number;
  model?: string;
  languages?: string;
  gender?: string;
  name?: string;
  mix?: 'true' | 'false';
  neural?: 'true' | 'false';
}

/** A voice as a request uses it: an official one, or one of the caller's own with its profile. */
export interface FoundVoice {
  voice: Voice;
  info: VoiceInfo;
  profile?: VoiceProfile;
  reference?: SynthesisRequest['reference'];
  /** A clone's sample. */
  sampleId?: string;
}

/** The caller's own voices (saved mixes, designed and cloned voices), kept by the design module. */
export interface OwnVoiceSource {
  find(accountId: string, id: string): Promise<FoundVoice | null>;
  list(accountId: string): Promise<{ voice: Voice; info: VoiceInfo }[]>;
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

/** The languages a reader of each console language hears first in the library (a stable sort: the ranking holds). */
const READER_LANGUAGES: Record<MessageLocale, string[]> = {
  en: ['en'],
  'zh-CN': ['zh', 'cmn'],
  'zh-TW': ['zh', 'cmn', 'yue'],
};

function readerFirst<T extends { voice: Voice }>(entries: T[], locale: MessageLocale): T[] {
  const speaks = (e: T) => languageMatches(e.voice.languages, READER_LANGUAGES[locale]);
  return [...entries.filter(speaks), ...entries.filter((e) => !speaks(e))];
}

export interface VoicesOptions {
  /** The official voices. */
  library: VoiceLibrary;
  /** Where rendered previews are kept. */
  storage: Storage;
  /** What renders a preview: the engines here, or (ROLE=api) a worker process through the queue. */
  synthesizer: Synthesizer;
  /** The callers' own voices (the design module's), looked up after the official ones; none without it. */
  ownVoices?: OwnVoiceSource | null;
  /** Records and labels each rendered preview (an official voice's is the platform's, of no account). */
  provenance: Provenance;
}

/** The official library and, for a caller, its own voices: served from memory once the engines are up. */
export class VoicesService {
  private readonly previews = new Map<string, Promise<void>>();
  private readonly library: VoiceLibrary;
  private readonly provenance: Provenance;
  private readonly storage: Storage;
  private readonly synthesizer: Synthesizer;
  private readonly own: OwnVoiceSource | null;

  constructor(options: VoicesOptions) {
    this.library = options.library;
    this.storage = options.storage;
    this.synthesizer = options.synthesizer;
    this.own = options.ownVoices ?? null;
    this.provenance = options.provenance;
  }

  load(): Promise<Library> {
    return this.library.load();
  }

  /** `locale`: the display texts' language; a name search matches the English or the shown name. */
  /** The account's own voices (none without the design module). */
  async ownVoices(accountId: string): Promise<{ voice: Voice; info: VoiceInfo }[]> {
    return this.own ? this.own.list(accountId) : [];
  }

  /** The official voice an OpenAI voice name (alloy, echo, …) stands for: the best installed (openai-voices.ts). */
  async openAiVoice(name: string): Promise<string | undefined> {
    const library = await this.load();
    return openAiVoiceId(
      name,
      [...library.byId.values()].map((v) => v.info),
    );
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
      readerFirst(
        library.voices.map((v) => ({
          voice: localizeVoice(v, library.byId.get(v.id)!.info, locale),
          info: library.byId.get(v.id)!.info,
        })),
        locale,
      ),
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
        (q.mix !== 'true' || v.mixable === true) &&
        (q.neural === undefined || (v.neural === true) === (q.neural === 'true')),
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
  isOfficial(id: string): Promise<boolean> {
    return this.library.isOfficial(id);
  }

  /**
   * The voices of a model that speak a language, best first: the bases a designed or cloned voice
   * is built on.
   */
  candidates(model: string, language: string): Promise<VoiceInfo[]> {
    return this.library.candidates(model, language);
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

  private async previewKey(id: string): Promise<{ info: VoiceInfo; key: string }> {
    const found = (await this.load()).byId.get(id);
    if (!found) throw new AppError('NOT_FOUND');
    const { info } = found;
    // .v2: rendered with provenance (labelled and watermarked); those kept from before are not served.
    return { info, key: `previews/${officialVoiceId(info.id).replace(/[^a-zA-Z0-9_-]/g, '_')}.v2.mp3` };
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
        const result = await mapSpeechErrors(() => this.synthesizer.preview(info));
        const audio = await this.provenance.labelled(result.audio, 'audio/mpeg', {
          accountId: null,
          recordType: 'library-preview',
          voiceId: officialVoiceId(info.id),
          voiceKind: 'library',
          engine: info.engine,
          format: 'mp3',
          payload: result.mark ?? null,
        });
        await this.storage.put(key, audio, { contentType: 'audio/mpeg' });
      })();
      this.previews.set(key, pending);
      pending.catch(() => this.previews.delete(key));
      // Finished renders live in storage; the map only joins concurrent requests.
      pending.finally(() => this.previews.delete(key)).catch(() => undefined);
    }
    return pending;
  }
}
