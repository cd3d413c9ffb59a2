import { sql, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { HistoryListQuery } from '@polyvox/contracts';
import type { Database, HistoryItemsTable } from '../platform/db/schema.js';

export type HistoryRow = Selectable<HistoryItemsTable>;

/** `needle` inside `column`, ignoring case, with no pattern characters (a search term is taken literally). */
function contains(dialect: 'sqlite' | 'postgres', column: string, needle: string) {
  const lowered = needle.toLowerCase();
  return dialect === 'postgres'
    ? sql<SqlBool>`strpos(lower(${sql.ref(column)}), ${lowered}) > 0`
    : sql<SqlBool>`instr(lower(${sql.ref(column)}), ${lowered}) > 0`;
}

/** The history's SQL: one query for SQLite and PostgreSQL. */
export class HistoryRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
  ) {}

  async insert(row: HistoryRow): Promise<void> {
    await this.db.insertInto('history_items').values(row).execute();
  }

  /** The settle entry of a hold: what was charged and the balance after it (null: none yet). */
  async settlement(holdId: string): Promise<{ charge: number; balanceAfter: number } | null> {
    const row = await this.db
      .selectFrom('credit_ledger')
      .select(['charge', 'balance_after'])
      .where('hold_id', '=', holdId)
      .where('kind', '=', 'settle')
      .executeTakeFirst();
    return row ? { charge: Number(row.charge ?? 0), balanceAfter: Number(row.balance_after) } : null;
  }

  /**
   * The rows that were paid for: those recorded after their hold's settlement, and those recorded before it (a job's)
   * whose hold has since been settled, filled in with the balance around the charge. A row whose hold is not settled
   * (yet, or ever: a job that could not be paid) is left out; the sweeper removes it with the rest.
   */
  async settleRows(rows: HistoryRow[]): Promise<HistoryRow[]> {
    const paid: HistoryRow[] = [];
    for (const row of rows) {
      if (row.balance_after !== null || !row.hold_id) {
        paid.push(row);
        continue;
      }
      const settled = await this.settlement(row.hold_id);
      if (!settled) continue;
      paid.push(row);
      row.credits = settled.charge;
      row.balance_after = settled.balanceAfter;
      row.balance_before = settled.balanceAfter + settled.charge;
      await this.db
        .updateTable('history_items')
        .set({ credits: row.credits, balance_before: row.balance_before, balance_after: row.balance_after })
        .where('id', '=', row.id)
        .execute();
    }
    return paid;
  }

  async get(accountId: string, id: string): Promise<HistoryRow | undefined> {
    return this.db
      .selectFrom('history_items')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
  }

  /**
   * A page of the account's items, newest first (or oldest, `asc`), after the cursor item; one more than asked, so the
   * caller knows whether there are more.
   */
  async page(accountId: string, q: HistoryListQuery, cursor: HistoryRow | undefined): Promise<HistoryRow[]> {
    const asc = q.sort_direction === 'asc';
    let query = this.db.selectFrom('history_items').selectAll().where('account_id', '=', accountId);
    if (cursor) {
      const op = asc ? '>' : '<';
      query = query.where((eb) =>
        eb.or([
          eb('created_at', op, cursor.created_at),
          eb.and([eb('created_at', '=', cursor.created_at), eb('id', op, cursor.id)]),
        ]),
      );
    }
    if (q.voice_id) query = query.where('voice_id', '=', q.voice_id);
    if (q.model_id) query = query.where('model_id', '=', q.model_id);
    if (q.date_after_unix !== undefined)
      query = query.where('created_at', '>=', new Date(q.date_after_unix * 1000).toISOString());
    if (q.date_before_unix !== undefined)
      query = query.where('created_at', '<', new Date(q.date_before_unix * 1000).toISOString());
    const term = q.search?.trim();
    if (term) {
      const dialect = this.dialect;
      query = query.where((eb) =>
        eb.or([contains(dialect, 'text', term), contains(dialect, 'voice_name', term), eb('id', '=', term)]),
      );
    }
    const direction = asc ? 'asc' : 'desc';
    return query
      .orderBy('created_at', direction)
      .orderBy('id', direction)
      .limit(q.page_size + 1)
      .execute();
  }

  /**
   * Of these voice ids, those taken down after a report: an account's voice marked (`own_voices.taken_down_at`, its
   * saved mixes with it) or an official one withheld (`voice_takedowns`).
   */
  async takenDown(voiceIds: readonly string[]): Promise<Set<string>> {
    const ids = [...new Set(voiceIds)];
    if (!ids.length) return new Set();
    const [own, official] = await Promise.all([
      this.db.selectFrom('own_voices').select('id').where('id', 'in', ids).where('taken_down_at', 'is not', null).execute(),
      this.db.selectFrom('voice_takedowns').select('voice_id as id').where('voice_id', 'in', ids).execute(),
    ]);
    return new Set([...own, ...official].map((r) => r.id));
  }

  async delete(accountId: string, id: string): Promise<HistoryRow | undefined> {
    const row = await this.get(accountId, id);
    if (!row) return undefined;
    await this.db.deleteFrom('history_items').where('id', '=', id).where('account_id', '=', accountId).execute();
    return row;
  }

  /** Items made before `before` (ISO), oldest first, at most `limit`. */
  async expired(before: string, limit: number): Promise<Pick<HistoryRow, 'id' | 'audio_key'>[]> {
    return this.db
      .selectFrom('history_items')
      .select(['id', 'audio_key'])
      .where('created_at', '<', before)
      .orderBy('created_at')
      .limit(limit)
      .execute();
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length) await this.db.deleteFrom('history_items').where('id', 'in', ids).execute();
  }
}
