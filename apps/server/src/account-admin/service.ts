import type { Kysely } from 'kysely';
import type { AccountStatusResponse } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { nowIso, type Dialect } from '../platform/db/database.js';
import type { CreditsService } from '../credits/service.js';
import type { SessionService } from '../sessions/sessions.js';
import type { AuditEntry, AuditTrail } from '../audit/trail.js';
import { AccountReads } from './reads.js';

export { LIST_LIMIT } from './lookup.js';

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

/**
 * The operator's view of accounts: search, an account's page, and the actions on it (grant, deduct, disable, enable,
 * end its sessions), each written to the audit trail in the transaction that makes the change.
 */
export class AccountAdminService extends AccountReads {
  private readonly credits: AccountAdminOptions['credits'];
  private readonly sessions: AccountAdminOptions['sessions'];
  private readonly audit: AuditTrail;
  private readonly stopper: AccountStopper;

  constructor(options: AccountAdminOptions) {
    super(options);
    this.credits = options.credits;
    this.sessions = options.sessions;
    this.audit = options.audit;
    this.stopper = options.stopper;
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
