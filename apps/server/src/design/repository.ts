import type { Kysely, Transaction } from 'kysely';
import type { Database, OwnVoicesTable, VoicePreviewsTable, VoiceSamplesTable } from '../platform/db/schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

/** A unique-key violation on either database: the number we took was taken by a concurrent request. */
/** Where a preview's timings are kept: beside its audio, gone with it. */
export const previewTimingsKey = (storageKey: string): string => `${storageKey}.timings.json`;
/** A preview's stored files: its audio and its timings (if it was timed). */
export const previewFiles = (storageKey: string): string[] => [storageKey, previewTimingsKey(storageKey)];

export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err?.code === '23505' || err?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(err?.message ?? '');
}

/** The SQL of voice design: samples, previews and own voices, always scoped to their account. */
export class DesignRepository {
  constructor(readonly db: Kysely<Database>) {}

  /**
   * The account's next number of a kind (1, 2, …): one atomic upsert, so concurrent requests each get
   * their own, and a number whose object was deleted is never given again.
   */
  async nextNumber(accountId: string, name: 'sample' | 'preview'): Promise<number> {
    const row = await this.db
      .insertInto('account_counters')
      .values({ account_id: accountId, name, value: 1 })
      .onConflict((oc) =>
        oc.columns(['account_id', 'name']).doUpdateSet((eb) => ({ value: eb('account_counters.value', '+', 1) })),
      )
      .returning('value')
      .executeTakeFirstOrThrow();
    return Number(row.value);
  }

  async insertSample(row: VoiceSamplesTable): Promise<void> {
    await this.db.insertInto('voice_samples').values(row).execute();
  }

  sample(accountId: string, id: string): Promise<VoiceSamplesTable | undefined> {
    return this.db
      .selectFrom('voice_samples')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
  }

  async samplesByIds(accountId: string, ids: string[]): Promise<Map<string, VoiceSamplesTable>> {
    if (!ids.length) return new Map();
    const rows = await this.db
      .selectFrom('voice_samples')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute();
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Which of these previews activated a voice, and which. */
  async voicesByPreview(accountId: string, previewIds: string[]): Promise<Map<string, string>> {
    if (!previewIds.length) return new Map();
    const rows = await this.db
      .selectFrom('own_voices')
      .select(['id', 'preview_id'])
      .where('account_id', '=', accountId)
      .where('preview_id', 'in', previewIds)
      .execute();
    return new Map(rows.map((r) => [r.preview_id!, r.id]));
  }

  async deleteSample(trx: Executor, accountId: string, id: string): Promise<VoiceSamplesTable | undefined> {
    return trx
      .deleteFrom('voice_samples')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .returningAll()
      .executeTakeFirst();
  }

  async insertPreview(row: VoicePreviewsTable): Promise<void> {
    await this.db.insertInto('voice_previews').values(row).execute();
  }

  preview(accountId: string, id: string): Promise<VoicePreviewsTable | undefined> {
    return this.db
      .selectFrom('voice_previews')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
  }

  /** The account's samples, newest (highest index) first. */
  async samples(accountId: string, page: number, pageSize: number): Promise<{ rows: VoiceSamplesTable[]; total: number }> {
    const rows = await this.db
      .selectFrom('voice_samples')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('idx', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute();
    const count = await this.db
      .selectFrom('voice_samples')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  async previews(accountId: string, page: number, pageSize: number): Promise<{ rows: VoicePreviewsTable[]; total: number }> {
    const rows = await this.db
      .selectFrom('voice_previews')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('version', 'desc')
      .limit(pageSize)
      .offset((page - 1) * pageSize)
      .execute();
    const count = await this.db
      .selectFrom('voice_previews')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /**
   * Deletes the account's previews older than its newest `keep`, except those that activated a
   * voice, and returns their audio keys. The rows go in one statement keyed on the version, so two
   * requests pruning at once delete each row once and never a preview that is among the newest; a
   * preview an activation is marking at that moment is locked by it (PostgreSQL waits, then sees the
   * mark; SQLite runs one transaction at a time), so it is never taken from under the activation.
   */
  async prunePreviews(accountId: string, keep: number): Promise<string[]> {
    const cut = await this.db
      .selectFrom('voice_previews')
      .select('version')
      .where('account_id', '=', accountId)
      .orderBy('version', 'desc')
      .offset(keep)
      .limit(1)
      .executeTakeFirst();
    if (!cut) return [];
    const gone = await this.db
      .deleteFrom('voice_previews')
      .where('account_id', '=', accountId)
      .where('version', '<=', cut.version)
      .where('voice_id', 'is', null)
      .returning('storage_key')
      .execute();
    return gone.flatMap((r) => previewFiles(r.storage_key));
  }

  /**
   * Marks a preview as the one a voice is being activated from, in the activation's transaction:
   * the update locks the row until that transaction ends. Undefined when it is gone (pruned,
   * deleted) or already made a voice.
   */
  markActivated(trx: Executor, accountId: string, previewId: string, voiceId: string) {
    return trx
      .updateTable('voice_previews')
      .set({ voice_id: voiceId })
      .where('id', '=', previewId)
      .where('account_id', '=', accountId)
      .where('voice_id', 'is', null)
      .returning(['storage_key'])
      .executeTakeFirst();
  }

  async deletePreviews(trx: Executor, accountId: string, ids: string[], fileId: string | null): Promise<string[]> {
    if (!ids.length && !fileId) return [];
    const gone = await trx
      .deleteFrom('voice_previews')
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([...(ids.length ? [eb('id', 'in', ids)] : []), ...(fileId ? [eb('file_id', '=', fileId)] : [])]))
      .returning('storage_key')
      .execute();
    return gone.flatMap((r) => previewFiles(r.storage_key));
  }

  async insertVoice(trx: Executor, row: OwnVoicesTable): Promise<void> {
    await trx.insertInto('own_voices').values(row).execute();
  }

  voice(accountId: string, id: string): Promise<OwnVoicesTable | undefined> {
    return this.db
      .selectFrom('own_voices')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('taken_down_at', 'is', null)
      .executeTakeFirst();
  }

  voices(accountId: string): Promise<OwnVoicesTable[]> {
    return this.db
      .selectFrom('own_voices')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('taken_down_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async updateVoice(accountId: string, id: string, changes: Partial<OwnVoicesTable>): Promise<OwnVoicesTable | undefined> {
    return this.db
      .updateTable('own_voices')
      .set(changes)
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('taken_down_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  async deleteVoice(trx: Executor, accountId: string, id: string): Promise<OwnVoicesTable | undefined> {
    return trx
      .deleteFrom('own_voices')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Keeps a cloned voice its owner deletes for the operator: its name and model, its sample's file and facts and the
   * consent given with it, until the operator's retention ends (account-admin/cloned-voices.ts sweeps it then).
   */
  async retain(trx: Executor, voice: OwnVoicesTable, at: string): Promise<string | null> {
    if (!voice.file_id) return null;
    const sample = await trx.selectFrom('voice_samples').selectAll().where('id', '=', voice.file_id).executeTakeFirst();
    if (!sample) return null;
    await trx
      .insertInto('retained_voices')
      .values({
        id: voice.id,
        account_id: voice.account_id,
        name: voice.name,
        type: voice.type,
        model: voice.model,
        created_at: voice.created_at,
        deleted_at: at,
        sample_id: sample.id,
        sample_key: sample.storage_key,
        sample_format: sample.format,
        sample_size: sample.size,
        sample_duration: sample.duration,
        sample_sha256: sample.sha256,
        sample_created_at: sample.created_at,
        consent_at: sample.consent_at,
        consent_ip: sample.consent_ip,
      })
      .execute();
    return sample.storage_key;
  }

  /** Whether another of the account's voices still uses the sample (then the sample stays). */
  async sampleInUse(trx: Executor, accountId: string, fileId: string): Promise<boolean> {
    const row = await trx
      .selectFrom('own_voices')
      .select('id')
      .where('account_id', '=', accountId)
      .where('file_id', '=', fileId)
      .executeTakeFirst();
    return row !== undefined;
  }
}
