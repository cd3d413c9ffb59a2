import type { Kysely, Transaction } from 'kysely';
import type { Product } from '@polyvox/contracts';
import { countCharacters } from '@polyvox/speech';
import { AppError } from '../platform/errors.js';
import type { Database } from '../platform/db/schema.js';
import { lockAccount } from '../platform/db/locks.js';
import type { PlanGate } from '../http/auth.js';
import type { CatalogueSource } from './products.js';

export type Privileges = Product['privileges'];

export interface PlanPrivilegesOptions {
  db: Kysely<Database>;
  /** The plans and their privileges (the catalogue table, seeded from products.json). */
  products: CatalogueSource;
}

/**
 * The privileges of an account's current plan (the catalogue, as operators last edited it): its vip level while that has
 * not expired; an expired level, or none, is the free plan. Read from the database on every call, so a
 * purchase or an expiry applies at once in every server process.
 */
export class PlanPrivileges implements PlanGate {
  private readonly db: Kysely<Database>;
  private readonly products: CatalogueSource;

  constructor(options: PlanPrivilegesOptions) {
    this.db = options.db;
    this.products = options.products;
  }

  /** What an account without a plan (or without an account: a visitor) may do. */
  get free(): Privileges {
    return this.products.latest().privilegesOf('free');
  }

  async of(accountId: string, trx: Kysely<Database> | Transaction<Database> = this.db): Promise<Privileges> {
    const row = await trx
      .selectFrom('accounts')
      .select(['vip_level', 'vip_expire'])
      .where('id', '=', accountId)
      .executeTakeFirst();
    // In a caller's transaction, the copy in hand: a look at the version would wait on SQLite's one connection.
    const products = trx === this.db ? await this.products.current() : this.products.latest();
    if (!row) return products.privilegesOf('free');
    const expired = row.vip_expire !== null && Date.parse(row.vip_expire) <= Date.now();
    return products.privilegesOf(expired ? 'free' : row.vip_level);
  }

  async apiAccess(accountId: string): Promise<boolean> {
    return (await this.of(accountId)).api_access;
  }

  /** FORBIDDEN (`reason: api_access`) unless the account's plan includes the API. */
  async assertApiAccess(accountId: string): Promise<void> {
    if (!(await this.apiAccess(accountId))) throw new AppError('FORBIDDEN', { reason: 'api_access' });
  }

  /** The longest text the account's plan allows (counted as synthesis counts and prices it). */
  async maxTextLength(accountId: string): Promise<number> {
    return (await this.of(accountId)).max_text_length;
  }

  /** TEXT_TOO_LONG with the plan's limit, before anything is prepared, held or charged. */
  /** `characters`: the text's priced characters when they are not all of it (SSML's markup is not counted). */
  async assertTextLength(accountId: string, text: string, characters = countCharacters(text)): Promise<void> {
    const maxLength = await this.maxTextLength(accountId);
    if (characters > maxLength) throw new AppError('TEXT_TOO_LONG', { maxLength });
  }

  /** The plan's number of own voices and how many the account has saved: what a save would meet. */
  async ownVoiceRoom(accountId: string): Promise<{ limit: number; used: number }> {
    const limit = (await this.of(accountId)).own_voices;
    const row = await this.db
      .selectFrom('own_voices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return { limit, used: Number(row.n) };
  }

  /**
   * Inside the transaction that saves an own voice: locks the account row (two saves of one account
   * queue here, so both cannot take the last slot), then counts the account's voices against its
   * plan's `own_voices` (FORBIDDEN, `reason: own_voices`, naming the limit). Call it before any fee.
   */
  async reserveOwnVoice(trx: Transaction<Database>, accountId: string): Promise<void> {
    await lockAccount(trx, accountId);
    const limit = (await this.of(accountId, trx)).own_voices;
    const row = await trx
      .selectFrom('own_voices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    if (Number(row.n) >= limit) throw new AppError('FORBIDDEN', { reason: 'own_voices', limit });
  }
}
