import type { Voice } from '@polyvox/contracts';
import type { VoiceInfo, VoiceProfile } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import type { OwnVoicesTable } from '../platform/db/schema.js';
import type { SpeechHost } from '../speech/speech-host.js';
import { AVATAR_URL, officialVoiceId } from '../voices/official.js';
import type { VoiceLibrary } from '../voices/library.js';
import type { FoundVoice, OwnVoiceSource } from '../voices/service.js';
import type { MixInput } from './profiles.js';
import type { DesignRepository } from './repository.js';
import type { SamplesService } from './samples.js';

export const ownPreviewUrl = (id: string) => `/voice/preview/${id}.mp3`;

/** `mixable`: the voice's model blends voices, so the voice may go into a mix of that model. */
export function ownVoiceView(row: OwnVoicesTable, mixable = false): Voice {
  return {
    id: row.id,
    name: row.name,
    gender: row.gender as Voice['gender'],
    model: row.model,
    languages: JSON.parse(row.languages) as string[],
    source: 'mine',
    type: row.type as Voice['type'],
    mix: row.mix ? (JSON.parse(row.mix) as MixInput[]) : null,
    avatar: AVATAR_URL(row.gender),
    preview_url: ownPreviewUrl(row.id),
    status: row.status,
    created_at: row.created_at,
    ...(row.prompt ? { description: row.prompt } : {}),
    mixable,
  };
}

export interface OwnVoiceLookupOptions {
  repo: DesignRepository;
  /** The official library, which an own voice's base voice is found in. */
  library: VoiceLibrary;
  host: SpeechHost;
  /** A zero-shot clone's reference sample. */
  samples: SamplesService;
}

/**
 * The accounts' own voices as requests use them: found by id or listed, each on its base engine voice with its saved
 * profile. Built on the official library alone, so the voices service (which asks it after the official voices) and the
 * own voices service (which saves and edits them) both use it without either reaching the other.
 */
export class OwnVoiceLookup implements OwnVoiceSource {
  private readonly repo: DesignRepository;
  private readonly library: VoiceLibrary;
  private readonly host: SpeechHost;
  private readonly samples: SamplesService;

  constructor(options: OwnVoiceLookupOptions) {
    this.repo = options.repo;
    this.library = options.library;
    this.host = options.host;
    this.samples = options.samples;
  }

  private mixable(model: string): Promise<boolean> {
    return this.library.mixable(model);
  }

  /** The engine voice an own voice (or a preview) is made on, or null when its engine is no longer installed. */
  async baseInfo(row: { base_voice: string; model: string; gender: string }): Promise<VoiceInfo | null> {
    const { byId, models } = await this.library.loadAll();
    const official = byId.get(officialVoiceId(row.base_voice))?.info;
    if (official) return official;
    // A zero-shot cloning model's clone voice is in no library: made again from its model, if still installed.
    const model = models.find((m) => m.id === row.model && m.type === 'cloning');
    if (!model) return null;
    const speech = await this.host.get();
    try {
      return speech.cloneVoice(model.id, model.name, row.gender as VoiceInfo['gender']);
    } catch {
      return null;
    }
  }

  async find(accountId: string, id: string): Promise<FoundVoice | null> {
    const row = await this.repo.voice(accountId, id);
    if (!row) return null;
    const base = await this.baseInfo(row);
    // The engine it was made on is no longer installed: the voice cannot speak, as if it were gone.
    if (!base) return null;
    const profile = JSON.parse(row.profile) as VoiceProfile;
    // The engine voice stays the library's, its own profile the reference the saved profile is
    // applied against (pitch and rate are relative to it); the saved profile goes beside it.
    const found: FoundVoice = { voice: ownVoiceView(row, await this.mixable(row.model)), info: base, profile };
    if (row.type === 'clone' && row.file_id) found.sampleId = row.file_id;
    // A clone on a zero-shot model speaks from its sample (and transcript) on every request.
    if (base.variant === 'clone' && row.file_id) {
      try {
        found.reference = await this.samples.reference(accountId, row.file_id, row.transcript);
      } catch (e) {
        if (e instanceof AppError && e.code === 'NOT_FOUND') return null;
        throw e;
      }
    }
    return found;
  }

  async list(accountId: string): Promise<{ voice: Voice; info: VoiceInfo }[]> {
    const out: { voice: Voice; info: VoiceInfo }[] = [];
    for (const row of await this.repo.voices(accountId)) {
      const base = await this.baseInfo(row);
      if (base) out.push({ voice: ownVoiceView(row, await this.mixable(row.model)), info: base });
    }
    return out;
  }
}
