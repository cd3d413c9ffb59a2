import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';

/** `REAL_NAME`: off, or `phone` (a verified number is needed for cloning, designing, API keys and buying). */
export type RealNameMode = 'off' | 'phone';

/**
 * Real-name users where the operator requires it (China's deep-synthesis rules, Art. 9): with `REAL_NAME=phone`, an
 * account without a verified phone number is refused the actions that need a known user (REAL_NAME_REQUIRED). A
 * number is verified: it is only ever stored after its code was spent (`auth/phone.ts`).
 */
export class RealNameGate {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly mode: () => RealNameMode,
  ) {}

  get required(): boolean {
    return this.mode() === 'phone';
  }

  async assert(accountId: string): Promise<void> {
    if (!this.required) return;
    const row = await this.db.selectFrom('accounts').select('mobile').where('id', '=', accountId).executeTakeFirst();
    if (!row?.mobile) throw new AppError('REAL_NAME_REQUIRED');
  }
}
