import type { Kysely } from 'kysely';
import { voiceprintDistance } from '@polyvox/speech';
import type { AuditEntry, AuditTrail } from '../audit/trail.js';
import type { Database, ProtectedVoicesTable } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/database.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Storage } from '../platform/storage.js';
import { PROTECTED_VOICE_THRESHOLD } from './threshold.js';

export const PROTECTED_CATEGORIES = ['public_figure', 'library', 'taken_down', 'other'] as const;
export type ProtectedCategory = (typeof PROTECTED_CATEGORIES)[number];

/** Who acts, for the audit entry: the operator, the request and the address. */
export type OperatorAct = Pick<AuditEntry, 'operator' | 'requestId' | 'ip'>;

export interface ProtectedVoiceView {
  id: string;
  name: string;
  category: ProtectedCategory;
  source_voice_id: string | null;
  report_id: string | null;
  has_sample: boolean;
  created_by: string;
  created_at: string;
}

export interface NewProtectedVoice {
  name: string;
  category: ProtectedCategory;
  voiceprint: number[];
  storageKey?: string | null;
  sourceVoiceId?: string | null;
  reportId?: string | null;
}

const view = (r: ProtectedVoicesTable): ProtectedVoiceView => ({
  id: r.id,
  name: r.name,
  category: r.category as ProtectedCategory,
  source_voice_id: r.source_voice_id,
  report_id: r.report_id,
  has_sample: r.storage_key !== null,
  created_by: r.created_by,
  created_at: r.created_at,
});

/**
 * The operator's list of protected voices (public figures, the library's own speakers, voices taken down after a
 * report), each kept as the voiceprint of a sample. A clone sample whose voiceprint lies within the threshold of one
 * is refused (`422 VOICE_PROTECTED`) before anything is kept or charged.
 */
export class ProtectedVoices {
  constructor(private readonly o: { db: Kysely<Database>; audit: AuditTrail; storage: Storage }) {}

  /** Throws VOICE_PROTECTED when the voiceprint matches a protected voice; an empty one (too little speech) matches none. */
  async check(print: readonly number[] | undefined): Promise<void> {
    if (!print?.length) return;
    const rows = await this.o.db.selectFrom('protected_voices').select(['id', 'voiceprint']).execute();
    for (const row of rows) {
      const d = voiceprintDistance(print, JSON.parse(row.voiceprint) as number[]);
      if (d <= PROTECTED_VOICE_THRESHOLD)
        throw new AppError('VOICE_PROTECTED', {}, { cause: new Error(`matches ${row.id} at ${d.toFixed(3)}`) });
    }
  }

  async list(page: number, pageSize: number): Promise<{ items: ProtectedVoiceView[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.o.db
        .selectFrom('protected_voices')
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute(),
      this.o.db
        .selectFrom('protected_voices')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(view), total: Number(count.n) };
  }

  /**
   * Adds a voice, with its audit entry in the same transaction (given one, in it). A voiceprint that says nothing
   * (too little speech) protects nothing: VALIDATION_FAILED.
   */
  async add(
    act: OperatorAct,
    input: NewProtectedVoice,
    reason: string | null,
    trx?: Kysely<Database>,
  ): Promise<ProtectedVoiceView> {
    if (!input.voiceprint.length) throw new AppError('VALIDATION_FAILED', { field: 'file', rule: 'must hold speech' });
    const row: ProtectedVoicesTable = {
      id: newId('protectedVoice'),
      name: input.name,
      category: input.category,
      voiceprint: JSON.stringify(input.voiceprint),
      storage_key: input.storageKey ?? null,
      source_voice_id: input.sourceVoiceId ?? null,
      report_id: input.reportId ?? null,
      created_by: act.operator.accountId,
      created_at: nowIso(),
    };
    const write = async (db: Kysely<Database>) => {
      await db.insertInto('protected_voices').values(row).execute();
      await this.o.audit.record(
        {
          ...act,
          action: 'protected_voice.add',
          target: { type: 'protected_voice', id: row.id },
          after: { name: row.name, category: row.category, source_voice_id: row.source_voice_id, report_id: row.report_id },
          reason,
        },
        db,
      );
    };
    if (trx) await write(trx);
    else await this.o.db.transaction().execute(write);
    return view(row);
  }

  /** Removes a voice from the list (its sample too), audited with the reason. */
  async remove(act: OperatorAct, id: string, reason: string): Promise<void> {
    const gone = await this.o.db.transaction().execute(async (trx) => {
      const row = await trx.deleteFrom('protected_voices').where('id', '=', id).returningAll().executeTakeFirst();
      if (!row) throw new AppError('NOT_FOUND');
      await this.o.audit.record(
        {
          ...act,
          action: 'protected_voice.remove',
          target: { type: 'protected_voice', id },
          before: { name: row.name, category: row.category },
          reason,
        },
        trx,
      );
      return row;
    });
    if (gone.storage_key) await this.o.storage.delete(gone.storage_key).catch(() => {});
  }
}
