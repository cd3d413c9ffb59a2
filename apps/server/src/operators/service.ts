import type { Kysely } from 'kysely';
import { OPERATOR_ROLES, ROLE_PERMISSIONS, type OperatorPermission, type OperatorRole } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import type { OperatorResolver } from '../http/auth.js';
import type { AuditEntry, AuditTrail } from '../audit/trail.js';

/** The time the operator rules read; tests put their own clock here. */
export interface Clock {
  now(): Date;
}
export const systemClock = (): Clock => ({ now: () => new Date() });

export const isOperatorRole = (role: string): role is OperatorRole => (OPERATOR_ROLES as readonly string[]).includes(role);

export interface OperatorView {
  account_id: string;
  email: string | null;
  role: OperatorRole;
  created_at: string;
  created_by: string | null;
  totp: boolean;
  passkeys: number;
}

/** Who acts, for the audit entry a change writes; the command line passes none (it writes no entry). */
export type Actor = Omit<AuditEntry, 'action' | 'target' | 'before' | 'after' | 'reason'>;

/**
 * Operators: accounts that hold a role. Naming, changing and removing one; a role change or a removal ends the
 * operator's elevated sessions (they pass the second factor again, in the new role).
 */
export class OperatorsService implements OperatorResolver {
  constructor(private readonly deps: { db: Kysely<Database>; audit: AuditTrail; clock: Clock }) {}

  get clock(): Clock {
    return this.deps.clock;
  }

  permits(role: OperatorRole, permission: OperatorPermission): boolean {
    return ROLE_PERMISSIONS[role].includes(permission);
  }

  async resolve(accountId: string, sessionHash: string): Promise<{ role: OperatorRole; elevated: boolean } | null> {
    const row = await this.deps.db
      .selectFrom('operators')
      .leftJoin('operator_elevations as e', (join) =>
        join
          .onRef('e.account_id', '=', 'operators.account_id')
          .on('e.session_hash', '=', sessionHash)
          .on('e.ended_at', 'is', null)
          .on('e.expires_at', '>', this.deps.clock.now().toISOString()),
      )
      .select(['operators.role', 'e.session_hash'])
      .where('operators.account_id', '=', accountId)
      .executeTakeFirst();
    if (!row || !isOperatorRole(row.role)) return null;
    return { role: row.role, elevated: row.session_hash !== null };
  }

  async roleOf(accountId: string): Promise<OperatorRole | null> {
    const row = await this.deps.db.selectFrom('operators').select('role').where('account_id', '=', accountId).executeTakeFirst();
    return row && isOperatorRole(row.role) ? row.role : null;
  }

  async list(): Promise<OperatorView[]> {
    const rows = await this.deps.db
      .selectFrom('operators as o')
      .innerJoin('accounts as a', 'a.id', 'o.account_id')
      .leftJoin('operator_totp as t', 't.account_id', 'o.account_id')
      .select((eb) => [
        'o.account_id',
        'a.email',
        'o.role',
        'o.created_at',
        'o.created_by',
        't.confirmed_at',
        eb
          .selectFrom('operator_passkeys as p')
          .whereRef('p.account_id', '=', 'o.account_id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('passkeys'),
      ])
      .orderBy('o.created_at')
      .orderBy('o.account_id')
      .execute();
    return rows.map((r) => ({
      account_id: r.account_id,
      email: r.email,
      role: r.role as OperatorRole,
      created_at: r.created_at,
      created_by: r.created_by,
      totp: r.confirmed_at !== null,
      passkeys: Number(r.passkeys ?? 0),
    }));
  }

  private async accountByEmail(email: string, db: Kysely<Database>): Promise<{ id: string; email: string }> {
    const normalized = email.trim().toLowerCase();
    const account = await db
      .selectFrom('accounts')
      .select(['id', 'email'])
      .where('email', '=', normalized)
      .where('anonymous', '=', 0)
      .executeTakeFirst();
    if (!account?.email) throw new AppError('NOT_FOUND');
    return { id: account.id, email: account.email };
  }

  /** Names the account of `email` an operator in `role`; VALIDATION_FAILED when it already is one. */
  async add(email: string, role: OperatorRole, actor: Actor | null, reason?: string | null): Promise<OperatorView> {
    const accountId = await this.deps.db.transaction().execute(async (trx) => {
      const account = await this.accountByEmail(email, trx);
      const existing = await trx.selectFrom('operators').select('role').where('account_id', '=', account.id).executeTakeFirst();
      if (existing) throw new AppError('VALIDATION_FAILED', { field: 'email', rule: 'this account is already an operator' });
      await trx
        .insertInto('operators')
        .values({
          account_id: account.id,
          role,
          created_at: this.deps.clock.now().toISOString(),
          created_by: actor?.operator.accountId ?? null,
        })
        .execute();
      if (actor)
        await this.deps.audit.record(
          {
            ...actor,
            action: 'operator.add',
            target: { type: 'account', id: account.id },
            after: { email: account.email, role },
            reason: reason ?? null,
          },
          trx,
        );
      return account.id;
    });
    return (await this.list()).find((o) => o.account_id === accountId)!;
  }

  /** The owners left if `accountId` stopped being one: the last owner is never removed nor demoted. */
  private async assertNotLastOwner(trx: Kysely<Database>, accountId: string): Promise<void> {
    const owners = await trx.selectFrom('operators').select('account_id').where('role', '=', 'owner').execute();
    if (owners.length === 1 && owners[0]!.account_id === accountId)
      throw new AppError('VALIDATION_FAILED', { field: 'role', rule: 'the last owner stays an owner' });
  }

  private async endElevations(trx: Kysely<Database>, accountId: string): Promise<void> {
    await trx
      .updateTable('operator_elevations')
      .set({ ended_at: this.deps.clock.now().toISOString() })
      .where('account_id', '=', accountId)
      .where('ended_at', 'is', null)
      .execute();
  }

  /** Gives an operator another role; their elevated sessions end. */
  async changeRole(accountId: string, role: OperatorRole, actor: Actor, reason?: string | null): Promise<OperatorView> {
    await this.deps.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('operators').select('role').where('account_id', '=', accountId).executeTakeFirst();
      if (!row) throw new AppError('NOT_FOUND');
      if (row.role === 'owner' && role !== 'owner') await this.assertNotLastOwner(trx, accountId);
      await trx.updateTable('operators').set({ role }).where('account_id', '=', accountId).execute();
      await this.endElevations(trx, accountId);
      await this.deps.audit.record(
        {
          ...actor,
          action: 'operator.role',
          target: { type: 'account', id: accountId },
          before: { role: row.role },
          after: { role },
          reason: reason ?? null,
        },
        trx,
      );
    });
    return (await this.list()).find((o) => o.account_id === accountId)!;
  }

  /**
   * Removes an operator (the account stays a customer); their elevated sessions end and their factors are forgotten.
   * `actor` null: the command line.
   */
  async remove(accountId: string, actor: Actor | null, reason?: string | null): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('operators').select('role').where('account_id', '=', accountId).executeTakeFirst();
      if (!row) throw new AppError('NOT_FOUND');
      if (row.role === 'owner') await this.assertNotLastOwner(trx, accountId);
      await trx.deleteFrom('operators').where('account_id', '=', accountId).execute();
      await this.endElevations(trx, accountId);
      await trx.deleteFrom('operator_totp').where('account_id', '=', accountId).execute();
      await trx.deleteFrom('operator_recovery_codes').where('account_id', '=', accountId).execute();
      await trx.deleteFrom('operator_passkeys').where('account_id', '=', accountId).execute();
      if (actor)
        await this.deps.audit.record(
          {
            ...actor,
            action: 'operator.remove',
            target: { type: 'account', id: accountId },
            before: { role: row.role },
            reason: reason ?? null,
          },
          trx,
        );
    });
  }

  /** The account id of an operator's email (the command line's `operator remove <email>`). */
  async idOfEmail(email: string): Promise<string> {
    return (await this.accountByEmail(email, this.deps.db)).id;
  }
}
