import type { Kysely } from 'kysely';
import { LIMITS } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { hmac, safeEqualHex, sixDigitCode } from '../platform/crypto.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';

/** One-time email codes: 6 digits, hashed with the server secret, 10 minutes, single use, 5 tries. */
export class CodeService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly secret: string,
  ) {}

  /** Seconds until a new code may be sent to this email (0 when it may be sent now). */
  async cooldown(email: string, now = Date.now()): Promise<number> {
    const last = await this.db
      .selectFrom('verification_codes')
      .select('created_at')
      .where('email', '=', email)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!last) return 0;
    const elapsed = (now - Date.parse(last.created_at)) / 1000;
    return elapsed >= LIMITS.codeResendSeconds ? 0 : Math.ceil(LIMITS.codeResendSeconds - elapsed);
  }

  async issue(email: string): Promise<string> {
    const code = sixDigitCode();
    const now = new Date();
    await this.db.transaction().execute(async (trx) => {
      // A new code replaces any earlier one.
      await trx
        .updateTable('verification_codes')
        .set({ consumed_at: now.toISOString() })
        .where('email', '=', email)
        .where('consumed_at', 'is', null)
        .execute();
      await trx
        .insertInto('verification_codes')
        .values({
          id: newId('code'),
          email,
          code_hash: hmac(this.secret, `${email}:${code}`),
          attempts: 0,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + LIMITS.codeTtlSeconds * 1000).toISOString(),
          consumed_at: null,
        })
        .execute();
    });
    return code;
  }

  /** Spends the live code when it matches; every wrong try counts, the fifth spends the code. */
  async consume(email: string, code: string): Promise<void> {
    const now = nowIso();
    const live = await this.db
      .selectFrom('verification_codes')
      .select(['id', 'code_hash', 'attempts'])
      .where('email', '=', email)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!live) throw new AppError('CAPTCHA_INCORRECT');
    const matches = /^\d{6}$/.test(code) && safeEqualHex(live.code_hash, hmac(this.secret, `${email}:${code}`));
    if (matches) {
      const spent = await this.db
        .updateTable('verification_codes')
        .set({ consumed_at: now })
        .where('id', '=', live.id)
        .where('consumed_at', 'is', null)
        .returning('id')
        .executeTakeFirst();
      if (spent) return;
      throw new AppError('CAPTCHA_INCORRECT');
    }
    // Counted in one statement (SET sees the row as it was), so concurrent wrong tries cannot overwrite each other.
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
      .where('id', '=', live.id)
      .where('consumed_at', 'is', null)
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
