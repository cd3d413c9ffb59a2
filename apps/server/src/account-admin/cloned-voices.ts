import type { Kysely } from 'kysely';
import type { AdminClonedVoice, AdminClonedVoiceList } from '@polyvox/contracts';
import type { AuditTrail } from '../audit/trail.js';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import type { Storage } from '../platform/storage.js';
import type { OperatorAct } from './service.js';

const DAY_MS = 86_400_000;
const CONTENT_TYPES: Record<string, string> = { mp3: 'audio/mpeg', m4a: 'audio/mp4', wav: 'audio/wav' };

export interface ClonedVoicesOptions {
  db: Kysely<Database>;
  storage: Storage;
  audit: AuditTrail;
  /** Days a deleted voice's sample and consent are kept (the operator's VOICE_RETENTION_DAYS, read at each use). */
  retentionDays: () => number;
  now?: () => number;
}

/** A sample as the operator receives it, after the access was audited. */
export interface SampleFile {
  bytes: Buffer;
  contentType: string;
  filename: string;
}

/**
 * The samples and consent records behind an account's cloned voices, for the operator: those of its live voices and
 * of the voices its owner deleted (kept in `retained_voices` for the retention the operator sets, then swept with
 * their audio). Every opening of a sample is written to the audit trail with the operator's reason.
 */
export class ClonedVoices {
  private readonly now: () => number;

  constructor(private readonly o: ClonedVoicesOptions) {
    this.now = o.now ?? Date.now;
  }

  async list(accountId: string): Promise<AdminClonedVoiceList> {
    const account = await this.o.db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
    if (!account) throw new AppError('NOT_FOUND');
    const days = this.o.retentionDays();
    const [live, kept] = await Promise.all([
      this.o.db
        .selectFrom('own_voices as v')
        .leftJoin('voice_samples as s', 's.id', 'v.file_id')
        .select([
          'v.id',
          'v.name',
          'v.model',
          'v.created_at',
          'v.taken_down_at',
          's.id as sample_id',
          's.format',
          's.size',
          's.duration',
          's.sha256',
          's.created_at as sample_created_at',
          's.consent_at',
          's.consent_ip',
        ])
        .where('v.account_id', '=', accountId)
        .where('v.type', '=', 'clone')
        .execute(),
      this.o.db.selectFrom('retained_voices').selectAll().where('account_id', '=', accountId).execute(),
    ]);
    const items: AdminClonedVoice[] = [
      ...live.map((v) => ({
        id: v.id,
        name: v.name,
        model: v.model,
        status: v.taken_down_at ? ('taken_down' as const) : ('active' as const),
        created_at: v.created_at,
        deleted_at: null,
        purge_after: null,
        sample: v.sample_id
          ? {
              id: v.sample_id,
              format: v.format!,
              size: Number(v.size),
              duration: Number(v.duration),
              sha256: v.sha256 ?? null,
              created_at: v.sample_created_at!,
              consent_at: v.consent_at!,
              consent_ip: v.consent_ip!,
            }
          : null,
      })),
      ...kept.map((r) => ({
        id: r.id,
        name: r.name,
        model: r.model,
        status: 'deleted' as const,
        created_at: r.created_at,
        deleted_at: r.deleted_at,
        purge_after: new Date(Date.parse(r.deleted_at) + days * DAY_MS).toISOString(),
        sample: {
          id: r.sample_id,
          format: r.sample_format,
          size: Number(r.sample_size),
          duration: Number(r.sample_duration),
          sha256: r.sample_sha256,
          created_at: r.sample_created_at,
          consent_at: r.consent_at,
          consent_ip: r.consent_ip,
        },
      })),
    ];
    items.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1));
    return { items, retention_days: days };
  }

  /** A cloned voice's sample (live or kept after its deletion), the access audited with the operator's reason. */
  async voiceSample(act: OperatorAct, accountId: string, voiceId: string, reason: string): Promise<SampleFile> {
    const live = await this.o.db
      .selectFrom('own_voices as v')
      .innerJoin('voice_samples as s', 's.id', 'v.file_id')
      .select(['s.id', 's.storage_key', 's.format'])
      .where('v.id', '=', voiceId)
      .where('v.account_id', '=', accountId)
      .executeTakeFirst();
    const kept = live
      ? undefined
      : await this.o.db
          .selectFrom('retained_voices')
          .select(['sample_id as id', 'sample_key as storage_key', 'sample_format as format'])
          .where('id', '=', voiceId)
          .where('account_id', '=', accountId)
          .executeTakeFirst();
    const sample = live ?? kept;
    if (!sample) throw new AppError('NOT_FOUND');
    return this.open(act, accountId, sample, reason, { voice_id: voiceId, deleted: !live });
  }

  /** A sample of the account by its id (the account page's samples), the access audited likewise. */
  async sample(act: OperatorAct, accountId: string, sampleId: string, reason: string): Promise<SampleFile> {
    const sample = await this.o.db
      .selectFrom('voice_samples')
      .select(['id', 'storage_key', 'format'])
      .where('id', '=', sampleId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!sample) throw new AppError('NOT_FOUND');
    return this.open(act, accountId, sample, reason, {});
  }

  private async open(
    act: OperatorAct,
    accountId: string,
    sample: { id: string; storage_key: string; format: string },
    reason: string,
    about: object,
  ): Promise<SampleFile> {
    const bytes = await this.o.storage.get(sample.storage_key);
    if (!bytes) throw new AppError('NOT_FOUND');
    await this.o.audit.record({
      ...act,
      action: 'voice_sample.access',
      target: { type: 'voice_sample', id: sample.id },
      after: { account_id: accountId, ...about },
      reason,
    });
    return {
      bytes,
      contentType: CONTENT_TYPES[sample.format] ?? 'application/octet-stream',
      filename: `${sample.id}.${sample.format}`,
    };
  }

  /**
   * Deletes the deleted voices kept past the retention, with their sample's audio unless a live sample or another
   * kept voice still holds it; answers how many.
   */
  async sweep(): Promise<number> {
    const cutoff = new Date(this.now() - this.o.retentionDays() * DAY_MS).toISOString();
    const due = await this.o.db
      .selectFrom('retained_voices')
      .select(['id', 'sample_key'])
      .where('deleted_at', '<', cutoff)
      .limit(500)
      .execute();
    for (const row of due) {
      await this.o.db.deleteFrom('retained_voices').where('id', '=', row.id).execute();
      const [sample, other] = await Promise.all([
        this.o.db.selectFrom('voice_samples').select('id').where('storage_key', '=', row.sample_key).executeTakeFirst(),
        this.o.db.selectFrom('retained_voices').select('id').where('sample_key', '=', row.sample_key).executeTakeFirst(),
      ]);
      if (!sample && !other) await this.o.storage.delete(row.sample_key).catch(() => {});
    }
    return due.length;
  }
}
