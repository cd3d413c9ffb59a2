import type { Kysely, Transaction } from 'kysely';
import type { Database, PronunciationDictionariesTable, PronunciationVersionsTable } from '../platform/db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The SQL of pronunciation dictionaries and their versions; one set of queries for SQLite and PostgreSQL. */
export class PronunciationRepository {
  constructor(private readonly db: Kysely<Database>) {}

  transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /** A dictionary the account may read: its own, or a shared one (no account). */
  async visible(accountId: string | null, id: string, db: Db = this.db): Promise<PronunciationDictionariesTable | undefined> {
    return db
      .selectFrom('pronunciation_dictionaries')
      .selectAll()
      .where('id', '=', id)
      .where((eb) =>
        accountId === null
          ? eb('account_id', 'is', null)
          : eb.or([eb('account_id', '=', accountId), eb('account_id', 'is', null)]),
      )
      .executeTakeFirst();
  }

  async list(
    accountId: string | null,
    opts: { includeArchived: boolean; sort: 'creation_time_unix' | 'name'; descending: boolean; offset: number; limit: number },
  ): Promise<PronunciationDictionariesTable[]> {
    let q = this.db
      .selectFrom('pronunciation_dictionaries')
      .selectAll()
      .where((eb) =>
        accountId === null
          ? eb('account_id', 'is', null)
          : eb.or([eb('account_id', '=', accountId), eb('account_id', 'is', null)]),
      );
    if (!opts.includeArchived) q = q.where('archived_at', 'is', null);
    const dir = opts.descending ? 'desc' : 'asc';
    q = opts.sort === 'name' ? q.orderBy('name', dir).orderBy('id', dir) : q.orderBy('created_at', dir).orderBy('id', dir);
    return q.limit(opts.limit).offset(opts.offset).execute();
  }

  async insertDictionary(db: Db, row: PronunciationDictionariesTable): Promise<void> {
    await db.insertInto('pronunciation_dictionaries').values(row).execute();
  }

  async insertVersion(db: Db, row: PronunciationVersionsTable): Promise<void> {
    await db.insertInto('pronunciation_versions').values(row).execute();
  }

  async version(dictionaryId: string, versionId: string, db: Db = this.db): Promise<PronunciationVersionsTable | undefined> {
    return db
      .selectFrom('pronunciation_versions')
      .selectAll()
      .where('id', '=', versionId)
      .where('dictionary_id', '=', dictionaryId)
      .executeTakeFirst();
  }

  /** A dictionary's versions without their rules, newest first. */
  async versions(dictionaryId: string): Promise<Pick<PronunciationVersionsTable, 'id' | 'rules_num' | 'created_at'>[]> {
    return this.db
      .selectFrom('pronunciation_versions')
      .select(['id', 'rules_num', 'created_at'])
      .where('dictionary_id', '=', dictionaryId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  /** Moves the latest version from `from` to `to`: false when another change came first. */
  async advance(db: Db, id: string, from: string, to: string, rulesNum: number): Promise<boolean> {
    const r = await db
      .updateTable('pronunciation_dictionaries')
      .set({ latest_version_id: to, latest_rules_num: rulesNum })
      .where('id', '=', id)
      .where('latest_version_id', '=', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async update(
    db: Db,
    id: string,
    changes: Partial<Pick<PronunciationDictionariesTable, 'name' | 'archived_at' | 'is_default'>>,
  ): Promise<void> {
    await db.updateTable('pronunciation_dictionaries').set(changes).where('id', '=', id).execute();
  }

  /** Clears the account's default (before another becomes it). */
  async clearDefault(db: Db, accountId: string): Promise<void> {
    await db
      .updateTable('pronunciation_dictionaries')
      .set({ is_default: 0 })
      .where('account_id', '=', accountId)
      .where('is_default', '=', 1)
      .execute();
  }

  async defaultOf(accountId: string): Promise<PronunciationDictionariesTable | undefined> {
    return this.db
      .selectFrom('pronunciation_dictionaries')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('is_default', '=', 1)
      .where('archived_at', 'is', null)
      .executeTakeFirst();
  }
}
