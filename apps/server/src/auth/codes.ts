import { sql, type Kysely } from 'kysely';
import { LIMITS } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { hmac, safeEqualHex, sixDigitCode } from '../platform/crypto.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';

/**
 * Wrong tries a code takes from addresses other than the one that asked for it. Past this the code no longer
 * answers them, yet stays good for its requester, so a stranger can neither guess at length nor spend the
 * owner's code. With its requester's five tries, a code meets at most ten wrong guesses.
 */
export const FOREIGN_TRIES = LIMITS.codeMaxAttempts;

export interface CodeOptions {
  db: Kysely<Database>;
  /** The server secret the codes are hashed with. */
  secret: string;
  /** The database's dialect, for the statements that differ; SQLite when left out. */
  dialect?: 'sqlite' | 'postgres';
}

/**
 * One-time email codes: 6 digits, hashed with the server secret, 10 minutes, single use. Each code belongs to
 * the requester (client address) that asked for it: a new code replaces only that requester's earlier one,
 * the 60 s resend rule runs per email and requester, and five wrong tries from the requester spend it. So a
 * stranger who asks for codes to someone's address, or guesses at them, never holds back or spends the
 * owner's own code.
 */
export class CodeService {
  private readonly db: Kysely<Database>;
  private readonly secret: string;
  private readonly dialect: 'sqlite' | 'postgres';

  constructor(options: CodeOptions) {
    this.db = options.db;
    this.secret = options.secret;
    this.dialect = options.dialect ?? 'sqlite';
  }

  /** Seconds until this requester may have a new code sent to this email (0 when it may be sent now). */
  async cooldown(email: string, requester: string, now = Date.now(), db: Kysely<Database> = this.db): Promise<number> {
    const last = await db
      .selectFrom('verification_codes')
      .select('created_at')
      .where('email', '=', email)
      .where('requester', '=', requester)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!last) return 0;
    const elapsed = (now - Date.parse(last.created_at)) / 1000;
    return elapsed >= LIMITS.codeResendSeconds ? 0 : Math.ceil(LIMITS.codeResendSeconds - elapsed);
  }

  /**
   * Issues a code unless this requester's last one to this email is younger than the resend interval
   * (`CODE_COOLDOWN`). The check and the insert are one step for every server process: PostgreSQL serialises them
   * per email and requester with a transaction-scoped advisory lock; SQLite runs one write transaction at a time.
   */
  async issue(email: string, requester: string): Promise<string> {
    const code = sixDigitCode();
    await this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres')
        await sql`SELECT pg_advisory_xact_lock(hashtext(${`code:${email}|${requester}`}))`.execute(trx);
      // Read after the lock: a code issued while this one waited counts.
      const now = new Date();
      const wait = await this.cooldown(email, requester, now.getTime(), trx);
      if (wait > 0) throw new AppError('CODE_COOLDOWN', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
      // A new code replaces the same requester's earlier one, never another requester's.
      await trx
        .updateTable('verification_codes')
        .set({ consumed_at: now.toISOString() })
        .where('email', '=', email)
        .where('requester', '=', requester)
        .where('consumed_at', 'is', null)
        .execute();
      await trx
        .insertInto('verification_codes')
        .values({
          id: newId('code'),
          email,
          code_hash: hmac(this.secret, `${email}:${code}`),
          attempts: 0,
          foreign_attempts: 0,
          requester,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + LIMITS.codeTtlSeconds * 1000).toISOString(),
          consumed_at: null,
        })
        .execute();
    });
    return code;
  }

  /**
   * Spends a live code of this email that matches. A code is tried for its own requester while it has
   * tries left, and for anyone else while it has foreign tries left; every code a wrong guess was tried
   * against pays for it, from the budget it was tried under (the fifth own wrong try spends the code).
   */
  async consume(email: string, code: string, requester: string): Promise<void> {
    const now = nowIso();
    const live = await this.db
      .selectFrom('verification_codes')
      .select(['id', 'code_hash', 'requester', 'foreign_attempts'])
      .where('email', '=', email)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .limit(20)
      .execute();
    const own = live.filter((c) => c.requester === requester || c.requester === null);
    const foreign = live.filter((c) => !own.includes(c) && c.foreign_attempts < FOREIGN_TRIES);
    if (own.length + foreign.length === 0) throw new AppError('CAPTCHA_INCORRECT');
    const hash = /^\d{6}$/.test(code) ? hmac(this.secret, `${email}:${code}`) : null;
    const match = hash ? [...own, ...foreign].find((c) => safeEqualHex(c.code_hash, hash)) : undefined;
    if (match) {
      const spent = await this.db
        .updateTable('verification_codes')
        .set({ consumed_at: now })
        .where('id', '=', match.id)
        .where('consumed_at', 'is', null)
        .returning('id')
        .executeTakeFirst();
      if (!spent) throw new AppError('CAPTCHA_INCORRECT');
      // Signed in: the other codes of this email have no more use.
      await this.db
        .updateTable('verification_codes')
        .set({ consumed_at: now })
        .where('email', '=', email)
        .where('consumed_at', 'is', null)
        .execute();
      return;
    }
    // Counted in one statement each (SET sees the row as it was), so concurrent wrong tries cannot overwrite each other.
    if (own.length)
      await this.db
        .updateTable('verification_codes')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          consumed_at: eb
            .case()
            .when('attempts', '>=', LIMITS.codeMaxAttempts - 1)
            .then(now)
            .else(null)
            .end(),
        }))
        .where(
          'id',
          'in',
          own.map((c) => c.id),
        )
        .where('consumed_at', 'is', null)
        .execute();
    if (foreign.length)
      await this.db
        .updateTable('verification_codes')
        .set((eb) => ({ foreign_attempts: eb('foreign_attempts', '+', 1) }))
        .where(
          'id',
          'in',
          foreign.map((c) => c.id),
        )
        .execute();
    throw new AppError('CAPTCHA_INCORRECT');
  }

  /** Forgets a code whose mail could not be sent: it neither works nor holds back the next one. */
  async discard(email: string, code: string): Promise<void> {
    await this.db
      .deleteFrom('verification_codes')
      .where('email', '=', email)
      .where('code_hash', '=', hmac(this.secret, `${email}:${code}`))
      .execute();
  }
}
