import { randomInt } from 'node:crypto';
import { LIMITS } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import type { ByteRange, Storage, StoredStream } from '../platform/storage.js';
import type { VoicePreviewsTable } from '../platform/db/schema.js';
import type { SensitiveWords } from '../platform/sensitive-words.js';
import type { HeldWork } from '../synthesis/held-work.js';
import type { Prepared, SynthesisService } from '../synthesis/service.js';
import { originOf } from '../synthesis/origin.js';
import { voiceKindOf, type Provenance } from '../provenance/service.js';
import type { Design, Designer, MixInput } from './profiles.js';
import type { Reference, SamplesService } from './samples.js';
import { previewFiles, previewTimingsKey, type DesignRepository } from './repository.js';
import { subtitles, type SubtitleFormat, type Timings } from '@polyvox/speech';

export type PreviewType = 'mix' | 'prompt' | 'clone';

export interface PreviewInput {
  type: PreviewType;
  model: string;
  models?: string[] | undefined;
  language: string;
  preview_text: string;
  prompt?: string | undefined;
  file_id?: string | undefined;
  transcript?: string | undefined;
  mix?: MixInput[] | undefined;
}

export interface PreviewVersionView {
  id: string;
  version: number;
  model: string;
  audio_url: string;
  duration: number;
  credits: number;
  activation_credits: number;
}

export const PREVIEW_FOLDER = 'voice-previews';
export const previewAudioUrl = (id: string) => `/voice/previews/${id}/audio`;

/** What a preview request made: its versions, with their holds still open until the answer is delivered. */
export interface MadePreviews {
  items: PreviewVersionView[];
  /** Settles every hold: the answer reached the client. */
  settle(): Promise<void>;
  /** Releases every hold and removes the versions: the client left before the answer. */
  discard(note: string): Promise<void>;
}

export function previewView(row: VoicePreviewsTable, sampleIndex: number | null, activation: number, voiceId: string | null) {
  return {
    id: row.id,
    version: Number(row.version),
    type: row.type as PreviewType,
    model: row.model,
    language: row.language,
    preview_text: row.preview_text,
    prompt: row.prompt,
    file_id: row.file_id,
    sample_index: sampleIndex,
    mix: row.mix ? (JSON.parse(row.mix) as MixInput[]) : null,
    credits: Number(row.credits),
    activation_credits: activation,
    duration: Math.round(Number(row.duration) * 1000) / 1000,
    audio_url: previewAudioUrl(row.id),
    voice_id: voiceId,
    created_at: row.created_at,
  };
}

export interface PreviewsOptions {
  repo: DesignRepository;
  storage: Storage;
  /** What activating a prompt or a clone voice costs. */
  fees: { text_to_voice: number; clone: number };
  synthesis: SynthesisService;
  provenance: Provenance;
  designer: Designer;
  samples: SamplesService;
  words: SensitiveWords;
}

/**
 * Previews of designed voices. Each is charged as an audio preview through the same hold → synthesize
 * → settle path as synthesis, is a numbered version of its account, and only the newest 50 are kept.
 */
export class PreviewsService {
  private readonly repo: DesignRepository;
  private readonly storage: Storage;
  private readonly fees: { text_to_voice: number; clone: number };
  private readonly synthesis: SynthesisService;
  private readonly provenance: Provenance;
  private readonly designer: Designer;
  private readonly samples: SamplesService;
  private readonly words: SensitiveWords;

  constructor(options: PreviewsOptions) {
    this.repo = options.repo;
    this.storage = options.storage;
    this.fees = options.fees;
    this.synthesis = options.synthesis;
    this.provenance = options.provenance;
    this.designer = options.designer;
    this.samples = options.samples;
    this.words = options.words;
  }

  /** What activating a preview of this type costs (a mix is saved free). */
  activationFee(type: string): number {
    return type === 'prompt' ? this.fees.text_to_voice : type === 'clone' ? this.fees.clone : 0;
  }

  private async design(
    accountId: string,
    input: PreviewInput,
    model: string,
    seed: number,
  ): Promise<Design & { reference?: Reference }> {
    switch (input.type) {
      case 'mix':
        return this.designer.mix(model, input.mix, accountId);
      case 'prompt':
        return this.designer.prompt(model, input.language, input.prompt, seed);
      case 'clone': {
        if (!input.file_id) throw new AppError('PARAMETERS_NEEDED', { field: 'file_id' });
        const { measures } = await this.samples.get(accountId, input.file_id);
        await this.samples.guard(measures);
        const design = await this.designer.clone(model, input.language, measures);
        if (!design.referenceText) return design;
        // A zero-shot cloning model: the sample itself, and what it says when the user typed it.
        const transcript = input.transcript?.trim();
        if (design.referenceText === 'required' && !transcript)
          throw new AppError('VALIDATION_FAILED', { field: 'transcript', rule: 'this model needs what the sample says' });
        return { ...design, reference: await this.samples.reference(accountId, input.file_id, transcript) };
      }
    }
  }

  /**
   * Validates the request and prices each model's version exactly as `create` will charge it (the
   * same design, text plan and price): what `estimate` answers and what `create` holds.
   */
  private async plan(accountId: string, input: PreviewInput): Promise<{ model: string; design: Design; prepared: Prepared }[]> {
    if (!input.preview_text.trim()) throw new AppError('PARAMETERS_NEEDED', { field: 'preview_text' });
    // Texts to speak, not names: the words listed for names only (impersonation) may appear in them.
    if (input.type === 'prompt' && input.prompt && this.words.find(input.prompt, 'all')) throw new AppError('SENSITIVE_WORDS');
    if (this.words.find(input.preview_text, 'all')) throw new AppError('SENSITIVE_WORDS');
    if (input.type === 'clone' && input.transcript && this.words.find(input.transcript, 'all')) {
      throw new AppError('SENSITIVE_WORDS');
    }
    // Moderation (the lists, the operator's, the provider), fail-closed by default for design: the prompt and the
    // transcript here, the preview text with its plan below.
    const review = { accountId, route: 'design', purpose: 'design' as const };
    await this.synthesis.reviewTexts(
      [input.type === 'prompt' ? input.prompt : undefined, input.type === 'clone' ? input.transcript : undefined],
      review,
    );
    const models = input.models?.length ? input.models : [input.model];
    if (new Set(models).size !== models.length)
      throw new AppError('VALIDATION_FAILED', { field: 'models', rule: 'distinct models' });
    // A random seed per request: repeated previews of one prompt are slightly different versions to pick from.
    const seed = randomInt(1, 2 ** 31);
    const planned: { model: string; design: Design; prepared: Prepared }[] = [];
    for (const model of models) {
      const design = await this.design(accountId, input, model, seed);
      await this.designer.checkText(design.base, input.preview_text);
      const prepared = await this.synthesis.prepareFor(
        { info: design.base, profile: design.profile, ...(design.reference ? { reference: design.reference } : {}) },
        // Timed where the voice can be (the console lights each word as the preview plays); the price is the same.
        { text: input.preview_text, language: input.language, format: 'mp3', speed: 1, pitch: 0, timings: 'auto', review },
      );
      planned.push({ model, design, prepared });
    }
    return planned;
  }

  /** The price of a preview request before it is made: per model, and what activating a version costs. */
  async estimate(accountId: string, input: PreviewInput) {
    const planned = await this.plan(accountId, input);
    const items = planned.map((p) => ({ model: p.model, credits: p.prepared.credits, characters: p.prepared.characters }));
    return {
      credits: items.reduce((sum, i) => sum + i.credits, 0),
      characters: items.reduce((sum, i) => sum + i.characters, 0),
      items,
      activation_credits: this.activationFee(input.type),
    };
  }

  /**
   * Makes one version per model (up to 3). Every price is held before any audio is made (402 first),
   * and a failure releases every hold and keeps no version.
   */
  async create(accountId: string, input: PreviewInput, signal: AbortSignal): Promise<MadePreviews> {
    const planned = await this.plan(accountId, input);
    const works: HeldWork[] = [];
    const made: { row: VoicePreviewsTable }[] = [];
    const releaseAll = async (note: string) => {
      for (const w of works) await w.release(note);
    };
    const removeAll = async () => {
      for (const { row } of made) {
        await this.repo.db.deleteFrom('voice_previews').where('id', '=', row.id).execute();
        for (const file of previewFiles(row.storage_key)) await this.storage.delete(file).catch(() => {});
      }
    };
    try {
      for (const p of planned) works.push(await this.synthesis.hold(p.prepared, { accountId, recordType: 'preview' }, signal));
      for (const [i, p] of planned.entries()) {
        const { result } = await this.synthesis.render(
          p.prepared,
          { accountId, recordType: 'preview' },
          { signal, work: works[i]! },
        );
        const id = newId('preview');
        const key = `${PREVIEW_FOLDER}/${id}.mp3`;
        const audio = await this.provenance.labelled(result.audio, 'audio/mpeg', {
          ...originOf(p.prepared, { accountId, recordType: 'preview' }, result, { holdId: works[i]!.hold.id }),
          voiceKind: voiceKindOf(input.type),
        });
        await this.storage.put(key, audio, { contentType: 'audio/mpeg' });
        try {
          if (result.alignment)
            await this.storage.put(previewTimingsKey(key), Buffer.from(JSON.stringify(result.alignment)), {
              contentType: 'application/json',
            });
          const version = await this.repo.nextNumber(accountId, 'preview');
          const row: VoicePreviewsTable = {
            id,
            account_id: accountId,
            version,
            type: input.type,
            model: p.model,
            language: input.language,
            preview_text: input.preview_text,
            prompt: input.type === 'prompt' ? (input.prompt ?? null) : null,
            file_id: input.type === 'clone' ? (input.file_id ?? null) : null,
            transcript: input.type === 'clone' ? input.transcript?.trim() || null : null,
            voice_id: null,
            mix: input.type === 'mix' ? JSON.stringify(input.mix) : null,
            base_voice: p.design.base.id,
            profile: JSON.stringify(p.design.profile),
            gender: p.design.base.gender,
            credits: p.prepared.credits,
            duration: result.durationSec,
            storage_key: key,
            created_at: nowIso(),
          };
          await this.repo.insertPreview(row);
          made.push({ row });
        } catch (e) {
          for (const file of previewFiles(key)) await this.storage.delete(file).catch(() => {});
          throw e;
        }
      }
    } catch (e) {
      await releaseAll(signal.aborted ? 'client left before the preview' : 'preview failed');
      await removeAll();
      throw e;
    }
    return {
      items: made.map(({ row }) => ({
        id: row.id,
        version: Number(row.version),
        model: row.model,
        audio_url: previewAudioUrl(row.id),
        duration: Math.round(Number(row.duration) * 1000) / 1000,
        credits: Number(row.credits),
        activation_credits: this.activationFee(row.type),
      })),
      settle: async () => {
        for (const w of works) await w.settle();
        // Only now, with the new versions stored, paid and delivered, do the oldest go (with their
        // audio): a preview that failed or was left prunes nothing. Concurrent requests delete each row once.
        for (const key of await this.repo.prunePreviews(accountId, LIMITS.previewVersions)) {
          await this.storage.delete(key).catch(() => {});
        }
      },
      discard: async (note) => {
        await releaseAll(note);
        await removeAll();
      },
    };
  }

  async list(accountId: string, page: number, pageSize: number) {
    const { rows, total } = await this.repo.previews(accountId, page, pageSize);
    const samples = await this.repo.samplesByIds(accountId, [...new Set(rows.flatMap((r) => (r.file_id ? [r.file_id] : [])))]);
    const voices = await this.repo.voicesByPreview(
      accountId,
      rows.map((r) => r.id),
    );
    const items = rows.map((r) =>
      previewView(
        r,
        r.file_id ? (samples.get(r.file_id)?.idx ?? null) : null,
        this.activationFee(r.type),
        voices.get(r.id) ?? null,
      ),
    );
    return {
      items: items.map((i) => ({ ...i, sample_index: i.sample_index === null ? null : Number(i.sample_index) })),
      total,
      page,
      page_size: pageSize,
    };
  }

  /** A preview's subtitles (the console's transcript), from the timings stored with its audio; none for a voice without timings. */
  async subtitles(accountId: string, id: string, format: SubtitleFormat): Promise<string> {
    const row = await this.repo.preview(accountId, id);
    const stored = row ? await this.storage.get(previewTimingsKey(row.storage_key)) : null;
    if (!stored) throw new AppError('NOT_FOUND');
    return subtitles(JSON.parse(stored.toString('utf8')) as Timings, format);
  }

  /** A preview's audio, for its owner only. */
  async audio(accountId: string, id: string, range?: ByteRange): Promise<StoredStream> {
    const row = await this.repo.preview(accountId, id);
    const audio = row ? await this.storage.getStream(row.storage_key, range) : null;
    if (!audio) throw new AppError('NOT_FOUND');
    return audio;
  }
}
