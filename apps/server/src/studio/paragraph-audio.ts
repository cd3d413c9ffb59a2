import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '@polyvox/contracts';
import { parseWavHeader } from '@polyvox/speech/formats';
import type { CreditsService } from '../credits/service.js';
import type { Database, StudioParagraphsTable, StudioProjectsTable } from '../platform/db/schema.js';
import { AppError, isAppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Storage } from '../platform/storage.js';
import type { Provenance } from '../provenance/service.js';
import { originOf } from '../synthesis/origin.js';
import type { Charge, SynthesisService } from '../synthesis/service.js';
import type { Kysely } from 'kysely';
import { voiceOf } from './service.js';
import { keptBySnapshot } from './snapshot.js';

/** What speaking a paragraph needs: the one synthesis service (moderation, dictionaries, price, provenance) and storage. */
export interface ParagraphAudioDeps {
  db: Kysely<Database>;
  synthesis: Pick<SynthesisService, 'prepare' | 'hold' | 'render' | 'estimate'>;
  credits: Pick<CreditsService, 'settle' | 'release' | 'holdStatus' | 'reclaim' | 'balance'>;
  provenance: Pick<Provenance, 'markFile'>;
  storage: Storage;
}

/**
 * A conversion's charge while it is open, kept on its paragraph: written once the hold is taken, cleared once it is
 * settled. A run that finds one left by a dead process settles it when the audio was stored (`hash` is what the
 * paragraph's converted_hash then says) and releases it otherwise: nothing is charged twice, nothing delivered free.
 */
const pendingSchema = z.object({
  hold_id: z.string(),
  credits: z.number(),
  characters: z.number(),
  voice_id: z.string(),
  api_key_id: z.string().nullable(),
  record_type: z.string(),
  hash: z.string(),
});
type Pending = z.infer<typeof pendingSchema>;

export interface ParagraphAudio {
  audio: Buffer;
  key: string;
  ms: number;
  sampleRate: number;
  words: { text: string; start: number; end: number }[];
}

type Project = Pick<
  StudioProjectsTable,
  'id' | 'account_id' | 'default_paragraph_voice_id' | 'speakers' | 'pronunciation_locators' | 'apply_text_normalization'
>;

const audioKey = (project: Pick<StudioProjectsTable, 'id' | 'account_id'>) =>
  `studio/${project.account_id}/${project.id}/${newId('studioAudio')}.wav`;

/** The request that speaks a paragraph: a WAV with its word timings, its project's dictionaries and normalisation. */
export function paragraphInput(project: Project, paragraph: Pick<StudioParagraphsTable, 'text' | 'speaker' | 'voice_id'>) {
  return {
    accountId: project.account_id,
    text: paragraph.text,
    voiceId: voiceOf(paragraph, project),
    route: 'studio',
    format: 'wav' as const,
    speed: 1,
    pitch: 0,
    timings: 'auto' as const,
    pronunciationLocators: JSON.parse(project.pronunciation_locators) as {
      pronunciation_dictionary_id: string;
      version_id?: string;
    }[],
    normalization: project.apply_text_normalization as 'auto' | 'on' | 'off',
  };
}

/**
 * Speaks one paragraph through the synthesis service: prepared (moderated, priced), held, rendered, marked, stored
 * under a new key, recorded on the paragraph with the hash it was made from, then settled. Its previous audio goes
 * unless a snapshot keeps it. Returns the audio.
 */
export async function speakParagraph(
  deps: ParagraphAudioDeps,
  project: Project,
  paragraph: StudioParagraphsTable,
  charge: Charge,
  signal?: AbortSignal,
): Promise<ParagraphAudio> {
  const prepared = await deps.synthesis.prepare(paragraphInput(project, paragraph));
  // Silence and notices are the export's: a paragraph is its own speech alone.
  delete prepared.request.aiLabel;
  const work = await deps.synthesis.hold(prepared, charge, signal);
  const pending: Pending = {
    hold_id: work.hold.id,
    credits: prepared.credits,
    characters: prepared.characters,
    voice_id: prepared.voiceId ?? prepared.voice.id,
    api_key_id: charge.apiKeyId ?? null,
    record_type: charge.recordType,
    hash: paragraph.content_hash,
  };
  try {
    await setParagraph(deps.db, paragraph.id, { pending_charge: JSON.stringify(pending) });
  } catch (e) {
    await work.release('paragraph not recorded');
    throw e;
  }
  let result: Awaited<ReturnType<ParagraphAudioDeps['synthesis']['render']>>['result'];
  try {
    // render releases the hold when it fails; the charge is then closed, and no longer open on the paragraph.
    ({ result } = await deps.synthesis.render(prepared, charge, { work }));
  } catch (e) {
    await setParagraph(deps.db, paragraph.id, { pending_charge: null }).catch(() => {});
    throw e;
  }
  let stored: ParagraphAudio;
  try {
    const { audio } = await deps.provenance.markFile(
      result.audio,
      prepared.contentType,
      originOf(prepared, charge, result, { holdId: work.hold.id }),
    );
    const info = parseWavHeader(audio);
    stored = {
      audio,
      key: audioKey(project),
      ms: Math.round(result.durationSec * 1000),
      sampleRate: info?.sampleRate ?? 0,
      words: (result.alignment?.words ?? []).map((w) => ({ text: w.word, start: w.start, end: w.end })),
    };
    await deps.storage.put(stored.key, audio, { contentType: 'audio/wav' });
    // The audio, and the hash it was made from, in one write: from here a crash settles rather than releases.
    await setParagraph(deps.db, paragraph.id, {
      audio_key: stored.key,
      audio_ms: stored.ms,
      sample_rate: stored.sampleRate,
      words: JSON.stringify(stored.words),
      converted_hash: paragraph.content_hash,
      conversion_error: null,
    });
  } catch (e) {
    await work.release('paragraph audio not stored');
    await setParagraph(deps.db, paragraph.id, { pending_charge: null }).catch(() => {});
    throw e;
  }
  await work.settle();
  await setParagraph(deps.db, paragraph.id, { pending_charge: null });
  if (paragraph.audio_key) await dropAudio(deps, project.id, paragraph.audio_key);
  return stored;
}

/** Deletes a paragraph's stored audio unless a snapshot still needs it. */
export async function dropAudio(deps: Pick<ParagraphAudioDeps, 'db' | 'storage'>, projectId: string, key: string): Promise<void> {
  if (!(await keptBySnapshot(deps.db, projectId, key))) await deps.storage.delete(key);
}

/**
 * Closes the charges a dead process left open on a project's paragraphs: settled where the audio was stored (the
 * paragraph says it was made from the hash spoken), released where it was not. Without `all` (a first run, which
 * may meet a paragraph being regenerated right now) a charge whose hold is still held is left to its own work.
 * `chapterId`: that chapter's paragraphs alone (a part of a whole project's conversion). Returns how many were closed.
 */
export async function closePending(
  deps: ParagraphAudioDeps,
  projectId: string,
  all: boolean,
  chapterId: string | null = null,
): Promise<number> {
  const rows = await deps.db
    .selectFrom('studio_paragraphs')
    .select(['id', 'pending_charge', 'converted_hash', 'audio_key'])
    .where('project_id', '=', projectId)
    .$if(chapterId !== null, (q) => q.where('chapter_id', '=', chapterId!))
    .where('pending_charge', 'is not', null)
    .execute();
  let closed = 0;
  for (const row of rows) {
    const checked = pendingSchema.safeParse(JSON.parse(row.pending_charge!));
    if (checked.success && !all && (await deps.credits.holdStatus(checked.data.hold_id)) === 'held') continue;
    if (checked.success) await closeOne(deps, row, checked.data);
    await setParagraph(deps.db, row.id, { pending_charge: null });
    closed += 1;
  }
  return closed;
}

async function closeOne(
  deps: ParagraphAudioDeps,
  row: { id: string; converted_hash: string | null; audio_key?: string | null },
  p: Pending,
): Promise<void> {
  if (row.converted_hash !== p.hash || !row.audio_key) {
    await deps.credits.release(p.hold_id, 'conversion interrupted');
    return;
  }
  const details = { characters: p.characters, voice_id: p.voice_id, api_key_id: p.api_key_id, record_type: p.record_type };
  if ((await deps.credits.holdStatus(p.hold_id)) === 'released') {
    try {
      await deps.credits.reclaim(p.hold_id);
    } catch (e) {
      if (!isAppError(e) || e.code !== 'INSUFFICIENT_BALANCE') throw e;
      // Not paid for: the audio is withdrawn, the paragraph converts again later.
      await setParagraph(deps.db, row.id, { converted_hash: null });
      return;
    }
  }
  await deps.credits.settle(p.hold_id, p.credits, details);
}

/** Why a paragraph's last conversion failed: an error code of the contract, its params, the hash it failed on. */
export interface ParagraphFailure {
  code: ErrorCode;
  params: Record<string, string | number>;
  hash: string;
}

const failureSchema = z.object({
  code: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
  hash: z.string(),
});
const KNOWN_CODES = new Set<string>(ERROR_CODES);

/**
 * Records why speaking a paragraph failed (an AppError's code, else INTERNAL), against the hash it failed on, so the
 * project and chapter answers can show it until the paragraph converts or changes. Returns the error recorded.
 */
export async function recordFailure(
  db: Kysely<Database>,
  paragraph: Pick<StudioParagraphsTable, 'id' | 'content_hash'>,
  e: unknown,
): Promise<AppError> {
  const error = isAppError(e) ? e : new AppError('INTERNAL', {}, { cause: e });
  const failure: ParagraphFailure = { code: error.code, params: error.params, hash: paragraph.content_hash };
  await setParagraph(db, paragraph.id, { conversion_error: JSON.stringify(failure) }).catch(() => {});
  return error;
}

/**
 * A paragraph's failure as it stands: the recorded one while the paragraph still has the content it failed on and
 * no audio of it; null otherwise (it converted since, or changed). An unknown code reads as INTERNAL.
 */
export function currentFailure(
  p: Pick<StudioParagraphsTable, 'content_hash' | 'converted_hash' | 'conversion_error'>,
): ParagraphFailure | null {
  if (!p.conversion_error || p.converted_hash === p.content_hash) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(p.conversion_error);
  } catch {
    return null;
  }
  const checked = failureSchema.safeParse(parsed);
  if (!checked.success || checked.data.hash !== p.content_hash) return null;
  const known = KNOWN_CODES.has(checked.data.code);
  return {
    code: known ? (checked.data.code as ErrorCode) : 'INTERNAL',
    params: known ? checked.data.params : {},
    hash: checked.data.hash,
  };
}

async function setParagraph(db: Kysely<Database>, id: string, values: Partial<StudioParagraphsTable>): Promise<void> {
  await db.updateTable('studio_paragraphs').set(values).where('id', '=', id).execute();
}

/** A paragraph's stored audio (no charge): NOT_FOUND while it has none. */
export async function storedAudio(storage: Storage, paragraph: Pick<StudioParagraphsTable, 'audio_key'>): Promise<Buffer> {
  const audio = paragraph.audio_key ? await storage.get(paragraph.audio_key) : null;
  if (!audio) throw new AppError('NOT_FOUND');
  return audio;
}
