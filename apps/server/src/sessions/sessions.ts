import type { Kysely } from 'kysely';
import { LIMITS } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { sha256 } from '../platform/crypto.js';
import { randomToken } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import { preparedQuery } from '../platform/db/prepared.js';
import { AppError } from '../platform/errors.js';

import type { SessionInfo } from '../http/auth.js';
export type { SessionInfo };

/** Sessions are random tokens shown once; only their hash is stored. */
// Read on every request with a session: compiled once.
const sessionByHash = preparedQuery((db: Kysely<Database>, hash: string) =>
  db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select(['sessions.account_id', 'sessions.expires_at', 'sessions.revoked_at', 'accounts.status'])
    .where('sessions.id_hash', '=', hash),
);

export class SessionService {
  constructor(private readonly db: Kysely<Database>) {}

  async create(accountId: string, userAgent: string | null, trx: Kysely<Database> = this.db): Promise<string> {
    const sid = randomToken(32);
    const now = new Date();
    await trx
      .insertInto('sessions')
      .values({
        id_hash: sha256(sid),
        account_id: accountId,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + LIMITS.sessionDays * 86_400_000).toISOString(),
        revoked_at: null,
        user_agent: userAgent?.slice(0, 256) ?? null,
      })
      .execute();
    return sid;
  }

  async resolve(sid: string): Promise<SessionInfo | null> {
    if (!sid || sid.length > 128) return null;
    const [row] = await sessionByHash(this.db, sha256(sid));
    if (!row || row.expires_at <= nowIso()) return null;
    // The sessions of a disabled account ended when it was disabled; whoever still holds one is told why.
    if (row.status !== 'active') throw new AppError('ACCOUNT_DISABLED');
    if (row.revoked_at) return null;
    return { accountId: row.account_id, sid };
  }

  async revoke(sid: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: nowIso() })
      .where('id_hash', '=', sha256(sid))
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Ends every live session of the account. */
  async revokeAll(accountId: string, trx: Kysely<Database> = this.db): Promise<void> {
    await trx
      .updateTable('sessions')
      .set({ revoked_at: nowIso() })
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .execute();
  }
}
