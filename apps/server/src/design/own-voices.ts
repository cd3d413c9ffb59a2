import type { Voice } from '@polyvox/contracts';
import type { VoiceInfo, VoiceProfile } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import type { ByteRange, Storage, StoredStream } from '../platform/storage.js';
import type { OwnVoicesTable } from '../platform/db/schema.js';
import type { SensitiveWords } from '../platform/sensitive-words.js';
import type { CreditsService } from '../credits/service.js';
import type { SpeechHost } from '../synthesis/speech-host.js';
import { mapSpeechErrors } from '../synthesis/errors.js';
import { AVATAR_URL, mixableModels, officialVoiceId } from '../voices/official.js';
import type { FoundVoice, OwnVoiceSource, VoicesService } from '../voices/service.js';
import type { Designer, MixInput } from './profiles.js';
import { isUniqueViolation, type DesignRepository } from './repository.js';
import type { SamplesService } from './samples.js';
import type { PlanPrivileges } from '../orders/privileges.js';

/** The ledger's record type of each activation fee. */
const FEE_RECORD = new Map([
  ['prompt', 'text_to_voice'],
  ['clone', 'clone'],
]);

export const OWN_VOICE_FOLDER = 'own-voices';
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

/**
 * The account's own voices: saved mixes, and prompt or clone voices activated from one of its
 * previews (the fee charged in the transaction that creates the voice). Each is its base engine voice
 * with a stored profile, usable wherever a voice id is.
 */
export class OwnVoicesService implements OwnVoiceSource {
  private readonly rendering = new Map<string, Promise<string>>();

  constructor(
    private readonly repo: DesignRepository,
    private readonly storage: Storage,
    private readonly credits: CreditsService,
    private readonly voices: VoicesService,
    private readonly designer: Designer,
    private readonly host: SpeechHost,
    private readonly words: SensitiveWords,
    private readonly samples: SamplesService,
    private readonly plans: PlanPrivileges,
  ) {}

  private checkName(name: string): string {
    const trimmed = name.trim();
    if (!trimmed) throw new AppError('PARAMETERS_NEEDED', { field: 'name' });
    if (this.words.find(trimmed)) throw new AppError('SENSITIVE_WORDS');
    return trimmed;
  }

  private async mixable(model: string): Promise<boolean> {
    return mixableModels((await this.voices.load()).models).has(model);
  }

  private async baseInfo(row: { base_voice: string; model: string; gender: string }): Promise<VoiceInfo | null> {
    const { byId, models } = await this.voices.load();
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

  async createMix(
    accountId: string,
    input: { name: string; model?: string | undefined; mix?: MixInput[] | undefined },
  ): Promise<Voice> {
    const name = this.checkName(input.name);
    if (!input.model) throw new AppError('PARAMETERS_NEEDED', { field: 'model' });
    const design = await this.designer.mix(input.model, input.mix, accountId);
    const now = nowIso();
    const row: OwnVoicesTable = {
      id: newId('voice'),
      account_id: accountId,
      name,
      type: 'mix',
      model: design.base.model,
      gender: design.base.gender,
      languages: JSON.stringify(design.base.languages),
      base_voice: design.base.id,
      profile: JSON.stringify(design.profile),
      mix: JSON.stringify(input.mix),
      prompt: null,
      file_id: null,
      transcript: null,
      preview_id: null,
      audio_key: null,
      status: 'active',
      created_at: now,
      updated_at: now,
    };
    // The plan's count of own voices is checked in the transaction that saves, with the account row locked.
    await this.repo.db.transaction().execute(async (trx) => {
      await this.plans.reserveOwnVoice(trx, accountId);
      await this.repo.insertVoice(trx, row);
    });
    return ownVoiceView(row, await this.mixable(row.model));
  }

  /**
   * Activates a prompt or clone voice from one of the account's previews of that type (409
   * PREVIEW_REQUIRED otherwise, another account's preview included). The plan's limit of own voices,
   * the fee and the voice are one transaction: a full plan or no balance means no voice, and a failed
   * insert charges nothing.
   */
  async activate(
    accountId: string,
    input: { type: 'prompt' | 'clone'; name: string; preview_id?: string | undefined },
  ): Promise<Voice> {
    const name = this.checkName(input.name);
    if (!input.preview_id) throw new AppError('PREVIEW_REQUIRED');
    const preview = await this.repo.preview(accountId, input.preview_id);
    if (!preview || preview.type !== input.type) throw new AppError('PREVIEW_REQUIRED');
    const baseInfo = await this.baseInfo(preview);
    if (!baseInfo) throw new AppError('PREVIEW_REQUIRED');
    const recordType = FEE_RECORD.get(input.type)!;
    const fee = this.credits.config.activation_fees[input.type === 'prompt' ? 'text_to_voice' : 'clone'];
    const id = newId('voice');
    const audioKey = `${OWN_VOICE_FOLDER}/${id}.mp3`;
    const now = nowIso();
    const row: OwnVoicesTable = {
      id,
      account_id: accountId,
      name,
      type: input.type,
      model: preview.model,
      gender: preview.gender,
      languages: JSON.stringify(baseInfo.languages),
      base_voice: preview.base_voice,
      profile: preview.profile,
      mix: null,
      prompt: preview.prompt,
      file_id: preview.file_id,
      transcript: preview.transcript,
      preview_id: preview.id,
      audio_key: audioKey,
      status: 'active',
      created_at: now,
      updated_at: now,
    };
    try {
      await this.repo.db.transaction().execute(async (trx) => {
        // Beyond the plan's own voices: refused before the fee, in the transaction that would save it.
        await this.plans.reserveOwnVoice(trx, accountId);
        // The preview is marked (and locked) first: a prune running now waits, then leaves it; one
        // that went first took it, and the activation stops here, charging nothing.
        const marked = await this.repo.markActivated(trx, accountId, preview.id, id);
        if (!marked) throw new AppError('PREVIEW_REQUIRED');
        const audio = await this.storage.get(marked.storage_key);
        if (!audio) throw new AppError('PREVIEW_REQUIRED');
        await this.storage.put(audioKey, audio, { contentType: 'audio/mpeg' });
        await this.credits.charge(trx, accountId, fee, { record_type: recordType, voice_id: id, note: `activate ${preview.id}` });
        await this.repo.insertVoice(trx, row);
      });
    } catch (e) {
      await this.storage.delete(audioKey).catch(() => {});
      // This preview already made a voice (a repeated or concurrent activation): nothing was charged.
      if (isUniqueViolation(e)) throw new AppError('PREVIEW_REQUIRED');
      throw e;
    }
    return ownVoiceView(row, await this.mixable(row.model));
  }

  async get(accountId: string, id: string): Promise<Voice> {
    const row = await this.repo.voice(accountId, id);
    if (!row) throw new AppError('NOT_FOUND');
    return ownVoiceView(row, await this.mixable(row.model));
  }

  /** Renames; a mix's voices may change; an activated voice's prompt or sample may not (VOICE_LOCKED). */
  async patch(
    accountId: string,
    input: {
      id: string;
      name?: string | undefined;
      prompt?: string | undefined;
      file_id?: string | undefined;
      mix?: MixInput[] | undefined;
    },
  ): Promise<Voice> {
    if (await this.voices.isOfficial(input.id)) throw new AppError('FORBIDDEN');
    const row = await this.repo.voice(accountId, input.id);
    if (!row) throw new AppError('NOT_FOUND');
    const changes: Partial<OwnVoicesTable> = { updated_at: nowIso() };
    if (input.name !== undefined) changes.name = this.checkName(input.name);
    const promptChanges = input.prompt !== undefined && input.prompt !== row.prompt;
    const sampleChanges = input.file_id !== undefined && input.file_id !== row.file_id;
    if (promptChanges || sampleChanges) {
      if (row.type === 'prompt' || row.type === 'clone') throw new AppError('VOICE_LOCKED');
      throw new AppError('VALIDATION_FAILED', {
        field: promptChanges ? 'prompt' : 'file_id',
        rule: 'only for prompt or clone voices',
      });
    }
    if (input.mix !== undefined) {
      if (row.type !== 'mix') throw new AppError('VOICE_LOCKED');
      const design = await this.designer.mix(row.model, input.mix, accountId);
      Object.assign(changes, {
        mix: JSON.stringify(input.mix),
        profile: JSON.stringify(design.profile),
        base_voice: design.base.id,
        gender: design.base.gender,
        languages: JSON.stringify(design.base.languages),
        audio_key: null,
      });
    }
    const updated = await this.repo.updateVoice(accountId, input.id, changes);
    if (!updated) throw new AppError('NOT_FOUND');
    if (changes.audio_key === null && row.audio_key) await this.storage.delete(row.audio_key).catch(() => {});
    return ownVoiceView(updated, await this.mixable(updated.model));
  }

  /** Deletes the voice with its audio, its previews and its sample (unless another voice uses it). */
  async delete(accountId: string, id: string): Promise<void> {
    if (await this.voices.isOfficial(id)) throw new AppError('FORBIDDEN');
    const keys: string[] = [];
    await this.repo.db.transaction().execute(async (trx) => {
      const row = await this.repo.deleteVoice(trx, accountId, id);
      if (!row) throw new AppError('NOT_FOUND');
      if (row.audio_key) keys.push(row.audio_key);
      const sampleFree = row.file_id && !(await this.repo.sampleInUse(trx, accountId, row.file_id));
      keys.push(
        ...(await this.repo.deletePreviews(
          trx,
          accountId,
          row.preview_id ? [row.preview_id] : [],
          sampleFree ? row.file_id : null,
        )),
      );
      if (sampleFree && row.file_id) {
        const sample = await this.repo.deleteSample(trx, accountId, row.file_id);
        if (sample) keys.push(sample.storage_key);
        this.samples.forget(row.file_id);
      }
    });
    for (const key of keys) await this.storage.delete(key).catch(() => {});
  }

  /** An own voice's preview: the activating preview's audio, or (a mix) rendered once and kept. */
  async previewAudio(accountId: string, id: string, range?: ByteRange): Promise<StoredStream> {
    const row = await this.repo.voice(accountId, id);
    if (!row) throw new AppError('NOT_FOUND');
    if (row.audio_key) {
      const kept = await this.storage.getStream(row.audio_key, range);
      if (kept) return kept;
    }
    let pending = this.rendering.get(id);
    if (!pending) {
      pending = (async () => {
        const found = await this.find(accountId, id);
        if (!found) throw new AppError('NOT_FOUND');
        const speech = await this.host.get();
        const { info, profile, reference } = found;
        const result = await mapSpeechErrors(() =>
          speech.synthesize({
            text: info.previewText,
            voice: info,
            ...(profile ? { profile } : {}),
            ...(reference ? { reference } : {}),
            format: 'mp3',
            language: info.languages[0]!,
            checkLanguage: false,
          }),
        );
        const key = `${OWN_VOICE_FOLDER}/${id}.mp3`;
        await this.storage.put(key, result.audio, { contentType: 'audio/mpeg' });
        await this.repo.updateVoice(accountId, id, { audio_key: key });
        return key;
      })();
      this.rendering.set(id, pending);
      pending.finally(() => this.rendering.delete(id)).catch(() => undefined);
    }
    const made = await this.storage.getStream(await pending, range);
    if (!made) throw new AppError('NOT_FOUND');
    return made;
  }
}
