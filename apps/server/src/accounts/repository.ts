import type { Kysely, Selectable } from 'kysely';
import { preparedQuery } from '../platform/db/prepared.js';
import type { AccountsTable, Database } from '../platform/db/schema.js';

export type AccountRow = Selectable<AccountsTable>;

// Read on every signed-in request (the account, and its referral counts on GET /accounts/me): compiled once.
const accountById = preparedQuery((db: Kysely<Database>, id: string) =>
  db.selectFrom('accounts').selectAll().where('id', '=', id),
);
const referredAccounts = preparedQuery((db: Kysely<Database>, code: string) =>
  db
    .selectFrom('accounts')
    .select((eb) => [
      eb.fn.countAll<number>().as('accounts'),
      eb.fn.count<number>('email').as('binds'),
      eb.fn.sum<number>(eb.case().when('vip_level', '!=', 'free').then(1).else(0).end()).as('vips'),
    ])
    .where('referrer', '=', code),
);
const referredDevices = preparedQuery((db: Kysely<Database>, code: string) =>
  db
    .selectFrom('devices')
    .innerJoin('accounts', 'accounts.id', 'devices.account_id')
    .select((eb) => eb.fn.count<number>('devices.udid').distinct().as('n'))
    .where('accounts.referrer', '=', code),
);

export class AccountsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async findById(id: string, db: Kysely<Database> = this.db): Promise<AccountRow | undefined> {
    return (await accountById(db, id))[0];
  }

  findByEmail(email: string, db: Kysely<Database> = this.db): Promise<AccountRow | undefined> {
    return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
  }

  findByMobile(mobile: string, db: Kysely<Database> = this.db): Promise<AccountRow | undefined> {
    return db.selectFrom('accounts').selectAll().where('mobile', '=', mobile).executeTakeFirst();
  }

  /** Puts the account under number `to` (and out of anonymity) only if its number is still `from`. */
  async changeMobile(id: string, from: string | null, to: string, db: Kysely<Database> = this.db): Promise<boolean> {
    const row = await db
      .updateTable('accounts')
      .set({ mobile: to, anonymous: 0, updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .where((eb) => (from === null ? eb('mobile', 'is', null) : eb('mobile', '=', from)))
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async insert(row: AccountRow, db: Kysely<Database> = this.db): Promise<void> {
    await db.insertInto('accounts').values(row).execute();
  }

  async update(
    id: string,
    changes: Partial<Pick<AccountRow, 'name' | 'avatar' | 'email' | 'anonymous' | 'updated_at'>>,
    db: Kysely<Database> = this.db,
  ): Promise<void> {
    await db.updateTable('accounts').set(changes).where('id', '=', id).execute();
  }

  /** Moves the account from `from` to `to` (and out of anonymity) only if its email is still `from`. */
  async changeEmail(id: string, from: string | null, to: string, db: Kysely<Database> = this.db): Promise<boolean> {
    const row = await db
      .updateTable('accounts')
      .set({ email: to, anonymous: 0, updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .where((eb) => (from === null ? eb('email', 'is', null) : eb('email', '=', from)))
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async insertDevice(
    row: { id: string; account_id: string; udid: string; model: string; brand: string; os: string; created_at: string },
    db: Kysely<Database> = this.db,
  ): Promise<void> {
    await db.insertInto('devices').values(row).execute();
  }

  /** Counts what the account's referral code brought in. */
  async referralCounts(code: string): Promise<{ accounts: number; binds: number; devices: number; vips: number }> {
    const [row] = await referredAccounts(this.db, code);
    const [devices] = await referredDevices(this.db, code);
    return {
      accounts: Number(row?.accounts ?? 0),
      binds: Number(row?.binds ?? 0),
      devices: Number(devices?.n ?? 0),
      vips: Number(row?.vips ?? 0),
    };
  }
}
