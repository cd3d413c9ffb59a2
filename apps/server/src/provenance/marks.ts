/** The records of audio that left the platform (table `content_marks`), by ProduceID and by watermark payload. */
import type { Kysely } from 'kysely';
import type { ContentMarksTable, Database } from '../platform/db/schema.js';

export type MarkRow = ContentMarksTable;

/** PostgreSQL returns a bigint as a string. */
const read = (row: MarkRow): MarkRow => ({ ...row, payload: row.payload === null ? null : Number(row.payload) });

export class ContentMarks {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: MarkRow): Promise<void> {
    await this.db.insertInto('content_marks').values(row).execute();
  }

  /** The hash of a stream's sound, once it has all left. */
  async setAudioDigest(produceId: string, sha256: string): Promise<void> {
    await this.db.updateTable('content_marks').set({ audio_sha256: sha256 }).where('produce_id', '=', produceId).execute();
  }

  /** A clone sample's hash and consent, as its records keep them. */
  sample(id: string): Promise<{ sha256: string | null; consent_at: string } | undefined> {
    return this.db.selectFrom('voice_samples').select(['sha256', 'consent_at']).where('id', '=', id).executeTakeFirst();
  }

  async byProduceId(produceId: string): Promise<MarkRow | undefined> {
    const row = await this.db.selectFrom('content_marks').selectAll().where('produce_id', '=', produceId).executeTakeFirst();
    return row && read(row);
  }

  /** The records whose audio carries this payload, oldest first (a cached replay shares its first rendering's). */
  async byPayload(payload: number, limit = 20): Promise<MarkRow[]> {
    const rows = await this.db
      .selectFrom('content_marks')
      .selectAll()
      .where('payload', '=', payload)
      .orderBy('created_at')
      .orderBy('produce_id')
      .limit(limit)
      .execute();
    return rows.map(read);
  }
}
