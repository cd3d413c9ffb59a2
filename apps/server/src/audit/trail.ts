import type { Kysely } from 'kysely';
import type { OperatorRole } from '@polyvox/contracts';
import type { AuditLogTable, Database } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';

/** One operator action that changed something: who (and in which role), what, on what, before and after, why. */
export interface AuditEntry {
  operator: { accountId: string; role: OperatorRole };
  /** `<area>.<verb>`: credits.grant, account.disable, order.refund, operator.role … */
  action: string;
  target: { type: string; id: string };
  before?: unknown;
  after?: unknown;
  /** Required (non-empty, at most 500 characters) for money and account actions: their routes' schemas require it. */
  reason?: string | null;
  requestId: string;
  ip: string;
}

export interface AuditTrail {
  /** Appends the entry; given a transaction, in it (the entry commits with the change or not at all). */
  record(entry: AuditEntry, db?: Kysely<Database>): Promise<void>;
}

export const AUDIT_REASON_MAX = 500;

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

/** The audit trail in `audit_log`: rows are only ever inserted (the database's triggers refuse UPDATE and DELETE). */
export class DatabaseAuditTrail implements AuditTrail {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async record(entry: AuditEntry, db: Kysely<Database> = this.db): Promise<void> {
    if (!/^[a-z_]+\.[a-z_]+$/.test(entry.action)) throw new Error(`audit: action must be <area>.<verb>, not ${entry.action}`);
    const reason = entry.reason?.trim() || null;
    if (reason && reason.length > AUDIT_REASON_MAX) throw new Error(`audit: reason longer than ${AUDIT_REASON_MAX}`);
    await db
      .insertInto('audit_log')
      .values({
        id: newId('audit'),
        at: this.clock().toISOString(),
        operator_id: entry.operator.accountId,
        operator_role: entry.operator.role,
        action: entry.action,
        target_type: entry.target.type,
        target_id: entry.target.id,
        before: json(entry.before),
        after: json(entry.after),
        reason,
        request_id: entry.requestId,
        ip: entry.ip,
      })
      .execute();
  }
}

/** The filters of the audit trail's list and its export. */
export interface AuditQuery {
  operator?: string | undefined;
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  /** ISO times: from inclusive, to exclusive. */
  from?: string | undefined;
  to?: string | undefined;
}

export type AuditRow = AuditLogTable;

/** Reads the trail: filtered, newest first, by page; and everything a filter matches for an export. */
export class AuditReader {
  constructor(private readonly db: Kysely<Database>) {}

  private filtered(q: AuditQuery) {
    let query = this.db.selectFrom('audit_log');
    if (q.operator) query = query.where('operator_id', '=', q.operator);
    if (q.action)
      query = q.action.endsWith('.') ? query.where('action', 'like', `${q.action}%`) : query.where('action', '=', q.action);
    if (q.targetType) query = query.where('target_type', '=', q.targetType);
    if (q.targetId) query = query.where('target_id', '=', q.targetId);
    if (q.from) query = query.where('at', '>=', q.from);
    if (q.to) query = query.where('at', '<', q.to);
    return query;
  }

  async page(
    q: AuditQuery,
    page: number,
    pageSize: number,
    order: 'asc' | 'desc' = 'desc',
  ): Promise<{ items: AuditRow[]; total: number }> {
    const [items, count] = await Promise.all([
      this.filtered(q)
        .selectAll()
        .orderBy('at', order)
        .orderBy('id', order)
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute(),
      this.filtered(q)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }

  /** Every matching entry, oldest first, in batches (an export of a long trail never holds it all at once). */
  async *all(q: AuditQuery, batch = 1000): AsyncGenerator<AuditRow[]> {
    let after: { at: string; id: string } | null = null;
    for (;;) {
      let query = this.filtered(q).selectAll();
      if (after) {
        const { at, id } = after;
        query = query.where((eb) => eb.or([eb('at', '>', at), eb.and([eb('at', '=', at), eb('id', '>', id)])]));
      }
      const rows = await query.orderBy('at').orderBy('id').limit(batch).execute();
      if (rows.length) yield rows;
      if (rows.length < batch) return;
      const last = rows[rows.length - 1]!;
      after = { at: last.at, id: last.id };
    }
  }
}
