import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type {
  AccountSearchQuery,
  AdminAccountDetail,
  AdminAccountPage,
  AdminAccountSummary,
  AdminLedgerResponse,
  AdminAccountOrdersResponse,
} from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { nowIso, type Dialect } from '../platform/db/database.js';
import { LIST_LIMIT, phoneForms, startsWith, summary, type AccountRow } from './lookup.js';

/** The operator's reading of accounts: search, an account's page, its ledger and its orders (AccountAdminService's). */
export class AccountReads {
  protected readonly db: Kysely<Database>;
  protected readonly dialect: Dialect;

  constructor(options: { db: Kysely<Database>; dialect: Dialect }) {
    this.db = options.db;
    this.dialect = options.dialect;
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

  protected async row(accountId: string, db: Kysely<Database> = this.db): Promise<AccountRow> {
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

  /** The account with its keys, voices, samples, sessions and the reports about it (the newest LIST_LIMIT of each). */
  async page(accountId: string): Promise<AdminAccountPage> {
    const account = await this.detail(accountId);
    const now = nowIso();
    const [keys, voices, samples, sessions, reports] = await Promise.all([
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
      // Reports of misuse naming the account (its voice reported, or reported audio whose provenance leads to it).
      this.db
        .selectFrom('misuse_reports')
        .select(['id', 'status', 'reason', 'voice_id', 'created_at'])
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
      reports: reports.map((r) => ({ ...r, status: r.status as AdminAccountPage['reports'][number]['status'] })),
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
}
