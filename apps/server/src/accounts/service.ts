import type { Kysely } from 'kysely';
import { DEFAULT_CHANNEL, type Account } from '@polyvox/contracts';
import type { z } from 'zod';
import type { AnonymousAccountRequest } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { newId, randomToken } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import type { SensitiveWords } from '../platform/sensitive-words.js';
import type { CreditsService } from '../credits/service.js';
import type { SessionService } from '../auth/sessions.js';
import { AccountsRepository, type AccountRow } from './repository.js';
import { toAccount } from './view.js';

type AnonymousInput = z.infer<typeof AnonymousAccountRequest>;

export class AccountsService {
  readonly repo: AccountsRepository;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly credits: CreditsService,
    private readonly sessions: SessionService,
    private readonly words: SensitiveWords,
    private readonly avatarOwner: (url: string, accountId: string) => Promise<boolean>,
  ) {
    this.repo = new AccountsRepository(db);
  }

  /** A temporary account for a visitor; the trial grant is given once per device udid. */
  async createAnonymous(input: AnonymousInput, userAgent: string | null): Promise<{ account: Account; sid: string }> {
    const now = nowIso();
    const id = newId('account');
    const sid = await this.db.transaction().execute(async (trx) => {
      await this.repo.insert(
        newAccountRow(id, now, { channel: input.channel ?? DEFAULT_CHANNEL, referrer: input.referrer ?? null }),
        trx,
      );
      await this.repo.insertDevice(
        {
          id: newId('device'),
          account_id: id,
          udid: input.device.udid,
          model: input.device.model,
          brand: input.device.brand,
          os: input.device.os,
          created_at: now,
        },
        trx,
      );
      await this.credits.grantOnce(
        trx,
        id,
        `trial:udid:${input.device.udid}`,
        this.credits.config.anonymous_trial,
        'anonymous trial',
      );
      return this.sessions.create(id, userAgent, trx);
    });
    return { account: await this.view(id, sid), sid };
  }

  /** A registered account created by signing in with an email nobody owns yet. */
  async createRegistered(email: string, trx: Kysely<Database>): Promise<string> {
    const id = newId('account');
    const now = nowIso();
    await this.repo.insert({ ...newAccountRow(id, now, { channel: DEFAULT_CHANNEL, referrer: null }), email, anonymous: 0 }, trx);
    await this.grantFreePlan(id, trx);
    return id;
  }

  grantFreePlan(accountId: string, trx: Kysely<Database>): Promise<boolean> {
    return this.credits.grantOnce(trx, accountId, `plan:free:${accountId}`, this.credits.config.free_plan_grant, 'free plan');
  }

  async updateProfile(
    accountId: string,
    changes: { name?: string; avatar?: string | null },
    sid: string | null,
  ): Promise<Account> {
    const update: { name?: string; avatar?: string | null; updated_at: string } = { updated_at: nowIso() };
    if (changes.name !== undefined) {
      if (this.words.find(changes.name)) throw new AppError('SENSITIVE_WORDS');
      update.name = changes.name;
    }
    if (changes.avatar !== undefined) {
      if (changes.avatar !== null && !(await this.avatarOwner(changes.avatar, accountId))) {
        throw new AppError('VALIDATION_FAILED', { field: 'avatar', rule: 'must be an avatar uploaded by this account' });
      }
      update.avatar = changes.avatar;
    }
    await this.repo.update(accountId, update);
    return this.view(accountId, sid);
  }

  async exists(email: string): Promise<boolean> {
    return (await this.repo.findByEmail(email)) !== undefined;
  }

  async get(accountId: string): Promise<AccountRow> {
    const row = await this.repo.findById(accountId);
    if (!row) throw new AppError('UNAUTHENTICATED');
    return row;
  }

  async view(accountId: string, sid: string | null): Promise<Account> {
    const row = await this.get(accountId);
    const referral = await this.repo.referralCounts(row.referral_code);
    return toAccount(row, sid, referral, (p) => p);
  }
}

function newAccountRow(id: string, now: string, origin: { channel: string; referrer: string | null }): AccountRow {
  return {
    id,
    email: null,
    name: null,
    avatar: null,
    mobile: null,
    referral_code: randomToken(6).replace(/[-_]/g, 'x').slice(0, 8).toUpperCase(),
    anonymous: 1,
    vip_level: 'free',
    vip_expire: null,
    credits: 0,
    channel: origin.channel,
    referrer: origin.referrer,
    created_at: now,
    updated_at: now,
  };
}
