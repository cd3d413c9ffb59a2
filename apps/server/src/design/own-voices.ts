import type { Voice } from '@polyvox/contracts';
import { voiceKindOf, type Provenance } from '../provenance/service.js';
import type { VoiceInfo } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import type { ByteRange, Storage, StoredStream } from '../platform/storage.js';
import type { OwnVoicesTable } from '../platform/db/schema.js';
import type { SensitiveWords } from '../platform/sensitive-words.js';
import type { CreditsService } from '../credits/service.js';
import type { SpeechHost } from '../speech/speech-host.js';
import { mapSpeechErrors } from '../speech/errors.js';
import type { FoundVoice, OwnVoiceSource } from '../voices/service.js';
import type { VoiceLibrary } from '../voices/library.js';
import type { Designer, MixInput } from './profiles.js';
import { ownVoiceView, type OwnVoiceLookup } from './own-voice-lookup.js';
import { isUniqueViolation, type DesignRepository } from './repository.js';
import type { SamplesService } from './samples.js';
import type { PlanPrivileges } from '../orders/privileges.js';

/** The ledger's record type of each activation fee. */
const FEE_RECORD = new Map([
  ['prompt', 'text_to_voice'],
  ['clone', 'clone'],
]);

export const OWN_VOICE_FOLDER = 'own-voices';
export { ownPreviewUrl, ownVoiceView } from './own-voice-lookup.js';
/**
 * The account's own voices: saved mixes, and prompt or clone voices activated from one of its
 * previews (the fee charged in the transaction that creates the voice). Each is its base engine voice
 * with a stored profile, usable wherever a voice id is.
 */
/**
 * The languages a designed or cloned voice is listed with: the language its preview was made in first,
 * then the base voice's other languages. The base voice is a stand-in chosen for the language (English's first voice is
 * eSpeak's British one), so its dialect says nothing of the sample's: a clone made "in English" of an
 * American speaker is English, never "British English".
 */
export function ownVoiceLanguages(asked: string, base: readonly string[]): string[] {
  if (!asked) return [...base];
  const primary = (tag: string) => tag.toLowerCase().split('-')[0];
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  // The base voice is a stand-in: its dialect of the asked language (a British eSpeak voice under an American
  // speaker's clone) is not the voice's. Its other languages, and the plain language tag, stay.
  const kept = base.filter((l) => !same(l, asked) && (primary(l) !== primary(asked) || !l.includes('-')));
  return [asked, ...kept];
}

export interface OwnVoicesOptions {
  repo: DesignRepository;
  storage: Storage;
  credits: CreditsService;
  /** The official voices (which are not the account's to rename or delete). */
  library: VoiceLibrary;
  /** Finds and lists the account's own voices, as the voices service does too. */
  lookup: OwnVoiceLookup;
  designer: Designer;
  host: SpeechHost;
  words: SensitiveWords;
  samples: SamplesService;
  plans: PlanPrivileges;
  provenance: Provenance;
}

export class OwnVoicesService implements OwnVoiceSource {
  private readonly rendering = new Map<string, Promise<string>>();

  private readonly repo: DesignRepository;
  private readonly storage: Storage;
  private readonly credits: CreditsService;
  private readonly library: VoiceLibrary;
  private readonly lookup: OwnVoiceLookup;
  private readonly designer: Designer;
  private readonly host: SpeechHost;
  private readonly words: SensitiveWords;
  private readonly samples: SamplesService;
  private readonly plans: PlanPrivileges;
  private readonly provenance: Provenance;

  constructor(options: OwnVoicesOptions) {
    this.repo = options.repo;
    this.storage = options.storage;
    this.credits = options.credits;
    this.library = options.library;
    this.lookup = options.lookup;
    this.designer = options.designer;
    this.host = options.host;
    this.words = options.words;
    this.samples = options.samples;
    this.plans = options.plans;
    this.provenance = options.provenance;
  }

  private checkName(name: string): string {
    const trimmed = name.trim();
    if (!trimmed) throw new AppError('PARAMETERS_NEEDED', { field: 'name' });
    if (this.words.find(trimmed)) throw new AppError('SENSITIVE_WORDS');
    return trimmed;
  }

  private mixable(model: string): Promise<boolean> {
    return this.library.mixable(model);
  }

  find(accountId: string, id: string): Promise<FoundVoice | null> {
    return this.lookup.find(accountId, id);
  }

  list(accountId: string): Promise<{ voice: Voice; info: VoiceInfo }[]> {
    return this.lookup.list(accountId);
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
    const baseInfo = await this.lookup.baseInfo(preview);
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
      languages: JSON.stringify(ownVoiceLanguages(preview.language, baseInfo.languages)),
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
    if (await this.library.isOfficial(input.id)) throw new AppError('FORBIDDEN');
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

  /**
   * Deletes the voice with its audio, its previews and its sample (unless another voice uses it). A clone's sample
   * file and consent stay for the operator for the retention the operator sets (`retained_voices`), out of the
   * owner's reach and every route's.
   */
  async delete(accountId: string, id: string): Promise<void> {
    if (await this.library.isOfficial(id)) throw new AppError('FORBIDDEN');
    const keys: string[] = [];
    let kept: string | null = null;
    await this.repo.db.transaction().execute(async (trx) => {
      const row = await this.repo.deleteVoice(trx, accountId, id);
      if (!row) throw new AppError('NOT_FOUND');
      kept = await this.repo.retain(trx, row, nowIso());
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
    for (const key of keys) if (key !== kept) await this.storage.delete(key).catch(() => {});
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
        const audio = await this.provenance.labelled(result.audio, 'audio/mpeg', {
          accountId,
          recordType: 'voice-preview',
          voiceId: id,
          voiceKind: voiceKindOf(row.type),
          engine: info.engine,
          format: 'mp3',
          payload: result.mark ?? null,
          sampleId: row.type === 'clone' ? row.file_id : null,
        });
        await this.storage.put(key, audio, { contentType: 'audio/mpeg' });
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
