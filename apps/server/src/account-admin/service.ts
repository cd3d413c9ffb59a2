import { sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type {
  AccountSearchQuery,
  AccountStatus,
  AccountStatusResponse,
  AdminAccountDetail,
  AdminAccountPage,
  AdminAccountSummary,
  AdminLedgerResponse,
  AdminAccountOrdersResponse,
} from '@polyvox/contracts';
import type { AccountsTable, Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { nowIso, type Dialect } from '../platform/db/database.js';
import type { CreditsService } from '../credits/service.js';
import type { SessionService } from '../sessions/sessions.js';
import type { AuditEntry, AuditTrail } from '../audit/trail.js';

/** Who acts, and from where: what every audit entry carries besides the action (`auditActor` of http/auth.ts). */
export type OperatorAct = Pick<AuditEntry, 'operator' | 'requestId' | 'ip'>;

/**
 * What stops a disabled account's work everywhere: its work in flight and realtime sockets in every process (the
 * composition broadcasts), and its queued or running jobs. Its holds are released here afterwards.
 */
export interface AccountStopper {
  stop(accountId: string): Promise<{ jobs: number }>;
}

export interface AccountAdminOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  credits: Pick<CreditsService, 'adjust' | 'releaseAll'>;
  sessions: Pick<SessionService, 'revokeAll'>;
  audit: AuditTrail;
  stopper: AccountStopper;
}

/** The newest this many keys, voices, samples and sessions are listed on an account's page. */
export const LIST_LIMIT = 100;

type AccountRow = Selectable<AccountsTable>;

function summary(row: AccountRow): AdminAccountSummary {
  return {
    id: row.id,
    email: row.email,
    mobile: row.mobile,
    name: row.name,
    anonymous: Number(row.anonymous) === 1,
    credits: Number(row.credits),
    vip_level: row.vip_level,
    vip_expire: row.vip_expire,
    status: (row.status ?? 'active') as AccountStatus,
    disabled_at: row.disabled_at ?? null,
    created_at: row.created_at,
  };
}

/** `%`, `_` and `\` taken literally in a PostgreSQL LIKE pattern (whose escape character is `\`). */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `column` starts with `prefix`, through an index on either database: PostgreSQL's LIKE with a fixed prefix uses the
 * `text_pattern_ops` indexes of migration 0016; SQLite (whose LIKE ignores case and takes no index here) a range of
 * its binary order, up to the prefix followed by the highest code point.
 */
function startsWith(dialect: Dialect, column: 'accounts.email' | 'api_keys.prefix', prefix: string) {
  if (dialect === 'postgres') return sql<SqlBool>`${sql.ref(column)} LIKE ${`${likeLiteral(prefix)}%`}`;
  return sql<SqlBool>`(${sql.ref(column)} >= ${prefix} AND ${sql.ref(column)} < ${`${prefix}\u{10FFFF}`})`;
}

/** The forms a phone number may be stored in: as typed, digits with `+`, and a mainland number with +86. */
function phoneForms(q: string): string[] {
  const digits = q.replace(/[\s\-()]/g, '');
  if (!/^\+?\d{5,16}$/.test(digits)) return [];
  const bare = digits.replace(/^\+/, '');
  const forms = new Set([q, digits, `+${bare}`]);
  if (/^1\d{10}$/.test(bare)) forms.add(`+86${bare}`);
  return [...forms];
}

/**
 * The operator's view of accounts: search, an account's page, and the actions on it (grant, deduct, disable, enable,
 * end its sessions), each written to the audit trail in the transaction that makes the change.
 */
export class AccountAdminService {
  private readonly db: Kysely<Database>;
  private readonly dialect: Dialect;
  private readonly credits: AccountAdminOptions['credits'];
  private readonly sessions: AccountAdminOptions['sessions'];
  private readonly audit: AuditTrail;
  private readonly stopper: AccountStopper;

  constructor(options: AccountAdminOptions) {
    this.db = options.db;
    this.dialect = options.dialect;
    this.credits = options.credits;
    this.sessions = options.sessions;
    this.audit = options.audit;
    this.stopper = options.stopper;
  }

  /**
   * Accounts matching `q` by whichever key it can be: an account id, an order id, an API key (or its prefix) or key id,
   * an email (whole, or its beginning), a phone number. Each is an indexed lookup; paged on the server.
   */
  async search(query: AccountSearchQuery): Promise<{ items: AdminAccountSummary[]; total: number }> {
    const q = query.q?.trim() ?? '';
    const where = (eb: ExpressionBuilder<Database, 'accounts'>) => {
      const conditions: Expression<SqlBool>[] = [];
      if (query.status) conditions.push(eb('accounts.status', '=', query.status));
      if (q) conditions.push(eb.or(this.matches(eb, q)));
      return eb.and(conditions);
    };
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('accounts')
        .selectAll()
        .where(where)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(query.page_size)
        .offset((query.page - 1) * query.page_size)
        .execute(),
      this.db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(where)
        .executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(summary), total: Number(count.n) };
  }

  private matches(eb: ExpressionBuilder<Database, 'accounts'>, q: string): Expression<SqlBool>[] {
    const lower = q.toLowerCase();
    const out: Expression<SqlBool>[] = [eb('accounts.id', '=', q)];
    if (q.startsWith('ord_'))
      out.push(eb('accounts.id', 'in', eb.selectFrom('orders').select('orders.account_id').where('orders.id', '=', q)));
    if (q.startsWith('key_'))
      out.push(eb('accounts.id', 'in', eb.selectFrom('api_keys').select('api_keys.account_id').where('api_keys.id', '=', q)));
    if (q.startsWith('pvx_')) {
      // The stored prefix is the key's first 12 characters: a whole key or a longer piece names it by those.
      const prefix = q.slice(0, 12);
      const keys = eb.selectFrom('api_keys').select('api_keys.account_id');
      out.push(
        eb(
          'accounts.id',
          'in',
          prefix.length === 12
            ? keys.where('api_keys.prefix', '=', prefix)
            : keys.where(startsWith(this.dialect, 'api_keys.prefix', prefix)),
        ),
      );
    }
    if (lower.includes('@')) out.push(eb('accounts.email', '=', lower));
    if (!/\s/.test(lower) && lower.length >= 2 && !q.startsWith('pvx_'))
      out.push(startsWith(this.dialect, 'accounts.email', lower));
    const phones = phoneForms(q);
    if (phones.length) out.push(eb('accounts.mobile', 'in', phones));
    return out;
  }

  private async row(accountId: string, db: Kysely<Database> = this.db): Promise<AccountRow> {
    const row = await db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return row;
  }

  async detail(accountId: string): Promise<AdminAccountDetail> {
    const row = await this.row(accountId);
    const held = await this.db
      .selectFrom('credit_holds')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('n'))
      .where('account_id', '=', accountId)
      .where('status', '=', 'held')
      .executeTakeFirstOrThrow();
    return {
      ...summary(row),
      disabled_reason: row.disabled_reason ?? null,
      referral_code: row.referral_code,
      channel: row.channel,
      records_balance: Number(row.records_balance),
      held: Number(held.n),
      updated_at: row.updated_at,
    };
  }

  /** The account with its keys, voices, samples and sessions (the newest LIST_LIMIT of each). */
  async page(accountId: string): Promise<AdminAccountPage> {
    const account = await this.detail(accountId);
    const now = nowIso();
    const [keys, voices, samples, sessions] = await Promise.all([
      this.db
        .selectFrom('api_keys')
        .select(['id', 'name', 'prefix', 'credit_limit', 'used', 'created_at', 'last_used_at', 'deleted_at'])
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .limit(LIST_LIMIT)
        .execute(),
      this.db
        .selectFrom('own_voices')
        .select(['id', 'name', 'type', 'model', 'status', 'created_at'])
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .limit(LIST_LIMIT)
        .execute(),
      this.db
        .selectFrom('voice_samples')
        .select(['id', 'idx', 'format', 'size', 'duration', 'consent_at', 'consent_ip', 'created_at'])
        .where('account_id', '=', accountId)
        .orderBy('idx', 'desc')
        .limit(LIST_LIMIT)
        .execute(),
      this.db
        .selectFrom('sessions')
        .select(['created_at', 'expires_at', 'revoked_at', 'user_agent'])
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .limit(LIST_LIMIT)
        .execute(),
    ]);
    return {
      account,
      keys: keys.map((k) => ({
        ...k,
        credit_limit: k.credit_limit === null ? null : Number(k.credit_limit),
        used: Number(k.used),
      })),
      voices,
      samples: samples.map((s) => ({
        ...s,
        idx: Number(s.idx),
        size: Number(s.size),
        duration: Number(s.duration),
      })),
      sessions: sessions.map((s) => ({ ...s, live: s.revoked_at === null && s.expires_at > now })),
      list_limit: LIST_LIMIT,
    };
  }

  /** Every ledger entry of the account (holds and releases too), newest first, paged; and their sum. */
  async ledger(accountId: string, page: number, pageSize: number): Promise<Omit<AdminLedgerResponse, 'page' | 'page_size'>> {
    await this.row(accountId);
    const [rows, totals] = await Promise.all([
      this.db
        .selectFrom('credit_ledger')
        .select([
          'id',
          'kind',
          'record_type',
          'amount',
          'balance_after',
          'charge',
          'characters',
          'voice_id',
          'api_key_id',
          'order_id',
          'hold_id',
          'note',
          'reason',
          'created_at',
        ])
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute(),
      this.db
        .selectFrom('credit_ledger')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('sum')])
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      items: rows.map((r) => ({
        ...r,
        amount: Number(r.amount),
        balance_after: Number(r.balance_after),
        charge: r.charge === null ? null : Number(r.charge),
        characters: r.characters === null ? null : Number(r.characters),
        reason: r.reason ?? null,
      })),
      total: Number(totals.n),
      ledger_sum: Number(totals.sum),
    };
  }

  async orders(
    accountId: string,
    page: number,
    pageSize: number,
  ): Promise<Omit<AdminAccountOrdersResponse, 'page' | 'page_size'>> {
    await this.row(accountId);
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('orders')
        .select([
          'id',
          'product_id',
          'product_kind',
          'credits',
          'amount',
          'currency',
          'status',
          'method',
          'created_at',
          'paid_at',
          'refunded_at',
        ])
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute(),
      this.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      items: rows.map((r) => ({ ...r, credits: Number(r.credits), amount: Number(r.amount) })),
      total: Number(count.n),
    };
  }

  /**
   * Grants (`amount` > 0) or deducts (< 0) credits with the reason the user sees on the record; a deduction that would
   * take the balance below zero is refused (INSUFFICIENT_BALANCE) and nothing is written.
   */
  async adjust(
    act: OperatorAct,
    accountId: string,
    amount: number,
    reason: string,
  ): Promise<{ balance: number; recordId: string }> {
    return this.db.transaction().execute(async (trx) => {
      const before = await this.row(accountId, trx);
      const balance = await this.credits.adjust(trx, accountId, amount, reason);
      const record = await trx
        .selectFrom('credit_ledger')
        .select('id')
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      await this.audit.record(
        {
          ...act,
          action: amount > 0 ? 'credits.grant' : 'credits.deduct',
          target: { type: 'account', id: accountId },
          before: { balance: Number(before.credits) },
          after: { balance, amount, record_id: record.id },
          reason,
        },
        trx,
      );
      return { balance, recordId: record.id };
    });
  }

  /**
   * Disables the account: its sessions end (in the transaction that disables it, with the audit entry), then its work
   * in flight and its realtime sockets stop in every process, its jobs are cancelled and every credit it still holds
   * is released. It can no longer sign in, and its keys are refused (ACCOUNT_DISABLED).
   */
  /** `after`: more the audit entry records (a report's id, when a report led to it). */
  async disable(act: OperatorAct, accountId: string, reason: string, after: object = {}): Promise<AccountStatusResponse> {
    if (accountId === act.operator.accountId) throw new AppError('FORBIDDEN');
    const sessionsEnded = await this.db.transaction().execute(async (trx) => {
      const before = await this.row(accountId, trx);
      const at = nowIso();
      await trx
        .updateTable('accounts')
        .set({ status: 'disabled', disabled_at: before.status === 'disabled' ? before.disabled_at : at, disabled_reason: reason })
        .where('id', '=', accountId)
        .execute();
      const ended = await this.endSessions(trx, accountId);
      await this.audit.record(
        {
          ...act,
          action: 'account.disable',
          target: { type: 'account', id: accountId },
          before: { status: before.status ?? 'active' },
          after: { status: 'disabled', sessions_ended: ended, ...after },
          reason,
        },
        trx,
      );
      return ended;
    });
    const { jobs } = await this.stopper.stop(accountId);
    const released = await this.credits.releaseAll(accountId, 'account disabled');
    return {
      account: await this.detail(accountId),
      sessions_ended: sessionsEnded,
      released_credits: released,
      jobs_cancelled: jobs,
    };
  }

  /** Enables a disabled account again: it signs in anew (its ended sessions stay ended); its keys work again. */
  async enable(act: OperatorAct, accountId: string, reason: string): Promise<AccountStatusResponse> {
    await this.db.transaction().execute(async (trx) => {
      const before = await this.row(accountId, trx);
      await trx
        .updateTable('accounts')
        .set({ status: 'active', disabled_at: null, disabled_reason: null })
        .where('id', '=', accountId)
        .execute();
      await this.audit.record(
        {
          ...act,
          action: 'account.enable',
          target: { type: 'account', id: accountId },
          before: { status: before.status ?? 'active', disabled_reason: before.disabled_reason ?? null },
          after: { status: 'active' },
          reason,
        },
        trx,
      );
    });
    return { account: await this.detail(accountId), sessions_ended: 0, released_credits: 0, jobs_cancelled: 0 };
  }

  /** Ends every live session of the account (it signs in again). */
  async endAllSessions(act: OperatorAct, accountId: string, reason: string): Promise<AccountStatusResponse> {
    const ended = await this.db.transaction().execute(async (trx) => {
      await this.row(accountId, trx);
      const n = await this.endSessions(trx, accountId);
      await this.audit.record(
        {
          ...act,
          action: 'account.sessions_end',
          target: { type: 'account', id: accountId },
          after: { sessions_ended: n },
          reason,
        },
        trx,
      );
      return n;
    });
    return { account: await this.detail(accountId), sessions_ended: ended, released_credits: 0, jobs_cancelled: 0 };
  }

  private async endSessions(trx: Kysely<Database>, accountId: string): Promise<number> {
    const live = await trx
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', nowIso())
      .executeTakeFirstOrThrow();
    await this.sessions.revokeAll(accountId, trx);
    return Number(live.n);
  }
}
