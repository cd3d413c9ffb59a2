import type { Kysely } from 'kysely';
import { DEFAULT_CHANNEL, type Account } from '@polyvox/contracts';
import type { z } from 'zod';
import type { AnonymousAccountRequest } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { newId, randomToken } from '../platform/ids.js';
import { nowIso } from '../platform/db/database.js';
import type { SensitiveWords } from '../platform/sensitive-words.js';
import { requesterKey, type RateLimiter } from '../platform/rate-limit.js';
import type { CreditsService } from '../credits/service.js';
import type { SessionService } from '../sessions/sessions.js';
import { AccountsRepository, type AccountRow } from './repository.js';
import { toAccount } from './view.js';

type AnonymousInput = z.infer<typeof AnonymousAccountRequest>;

/** What keeps one requester from farming accounts and their grants (see the settings page, docs/site/pages/en/self-hosting/settings.md). */
export interface AccountLimits {
  limiter: RateLimiter;
  accountsPerIpHour: number;
  trialsPerIpDay: number;
  plansPerIpDay: number;
  existsPerIpMinute: number;
  /** Credits of a visitor's trial and of the free plan: the operator's, else credits.json's. */
  anonymousTrial?: number;
  freePlanGrant?: number;
}

/**
 * The mailbox an address delivers to, for keying the free-plan grant: `+tags` and, at Gmail, dots
 * reach the same inbox, so they must not each earn a grant.
 */
export function mailboxKey(email: string): string {
  const at = email.lastIndexOf('@');
  let local = email.slice(0, at).toLowerCase();
  const domain = email.slice(at + 1).toLowerCase();
  local = local.replace(/\+.*$/, '');
  if (domain === 'gmail.com' || domain === 'googlemail.com') return `${local.replace(/\./g, '')}@gmail.com`;
  return `${local}@${domain}`;
}

export interface AccountsOptions {
  db: Kysely<Database>;
  credits: CreditsService;
  sessions: SessionService;
  /** What a nickname may not contain. */
  words: SensitiveWords;
  /** Whether an avatar URL names an image this account uploaded (the uploads module's). */
  avatarOwner: (url: string, accountId: string) => Promise<boolean>;
  limits: AccountLimits;
}

export class AccountsService {
  readonly repo: AccountsRepository;
  private readonly db: Kysely<Database>;
  private readonly credits: CreditsService;
  private readonly sessions: SessionService;
  private readonly words: SensitiveWords;
  private readonly avatarOwner: (url: string, accountId: string) => Promise<boolean>;
  private readonly limits: AccountLimits;

  constructor(options: AccountsOptions) {
    this.db = options.db;
    this.credits = options.credits;
    this.sessions = options.sessions;
    this.words = options.words;
    this.avatarOwner = options.avatarOwner;
    this.limits = options.limits;
    this.repo = new AccountsRepository(options.db);
  }

  /**
   * A temporary account for a visitor. Creation is limited per requester; the trial grant is given once
   * per device udid and at most `trialsPerIpDay` times a day per requester, since the udid is the
   * client's own choice: past that the account is created without trial credits.
   */
  async createAnonymous(
    input: AnonymousInput,
    userAgent: string | null,
    /** The requester's address; null only for the server's own callers, which no requester limit concerns. */
    ip: string | null = null,
  ): Promise<{ account: Account; sid: string }> {
    const requester = ip === null ? null : requesterKey(ip);
    if (requester !== null) await this.limit(`account:ip:${requester}`, this.limits.accountsPerIpHour, 3600);
    const trialKey = `trial:udid:${input.device.udid}`;
    const trial =
      requester === null ? true : await this.grantAllowed(trialKey, `trial:ip:${requester}`, this.limits.trialsPerIpDay);
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
      if (trial)
        await this.credits.grantOnce(
          trx,
          id,
          trialKey,
          this.limits.anonymousTrial ?? this.credits.config.anonymous_trial,
          'anonymous trial',
        );
      return this.sessions.create(id, userAgent, trx);
    });
    return { account: await this.view(id, sid), sid };
  }

  /** A registered account created by signing in with an email nobody owns yet. */
  async createRegistered(email: string, ip: string, trx: Kysely<Database>): Promise<string> {
    const id = newId('account');
    const now = nowIso();
    await this.repo.insert({ ...newAccountRow(id, now, { channel: DEFAULT_CHANNEL, referrer: null }), email, anonymous: 0 }, trx);
    await this.grantFreePlan(id, email, ip, trx);
    return id;
  }

  /** A registered account created by signing in with a number nobody owns yet (E.164). */
  async createRegisteredByMobile(mobile: string, ip: string, trx: Kysely<Database>): Promise<string> {
    const id = newId('account');
    const now = nowIso();
    await this.repo.insert(
      { ...newAccountRow(id, now, { channel: DEFAULT_CHANNEL, referrer: null }), mobile, anonymous: 0 },
      trx,
    );
    await this.grantFreePlanByMobile(id, mobile, ip, trx);
    return id;
  }

  /** The free plan's credits for a registration by phone: once per number, within the requester's daily allowance. */
  async grantFreePlanByMobile(accountId: string, mobile: string, ip: string, trx: Kysely<Database>): Promise<boolean> {
    const key = `plan:free:tel:${mobile}`;
    if (!(await this.grantAllowed(key, `plan:ip:${requesterKey(ip)}`, this.limits.plansPerIpDay, trx))) return false;
    return this.credits.grantOnce(
      trx,
      accountId,
      key,
      this.limits.freePlanGrant ?? this.credits.config.free_plan_grant,
      'free plan',
    );
  }

  /**
   * The free plan's credits, once per mailbox (not per account: an address freed by an email change,
   * or the same inbox under a +tag, earns nothing new) and at most `plansPerIpDay` a day per requester.
   */
  async grantFreePlan(accountId: string, email: string, ip: string, trx: Kysely<Database>): Promise<boolean> {
    const key = `plan:free:${mailboxKey(email)}`;
    if (!(await this.grantAllowed(key, `plan:ip:${requesterKey(ip)}`, this.limits.plansPerIpDay, trx))) return false;
    return this.credits.grantOnce(
      trx,
      accountId,
      key,
      this.limits.freePlanGrant ?? this.credits.config.free_plan_grant,
      'free plan',
    );
  }

  /** A grant not given yet, within the requester's daily allowance (only grants still possible count). */
  private async grantAllowed(
    grantKey: string,
    limitKey: string,
    perDay: number,
    db: Kysely<Database> = this.db,
  ): Promise<boolean> {
    const given = await db.selectFrom('credit_grants').select('grant_key').where('grant_key', '=', grantKey).executeTakeFirst();
    if (given || perDay <= 0) return false;
    return (await this.limits.limiter.hit(limitKey, perDay, 86_400)) === 0;
  }

  private async limit(key: string, limit: number, windowSeconds: number): Promise<void> {
    const wait = await this.limits.limiter.hit(key, limit, windowSeconds);
    if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
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

  /** Limited per requester: unlimited, it would list which addresses have accounts. */
  async exists(email: string, ip: string): Promise<boolean> {
    await this.limit(`exists:ip:${requesterKey(ip)}`, this.limits.existsPerIpMinute, 60);
    return (await this.repo.findByEmail(email)) !== undefined;
  }

  /** Limited per requester like the email's: unlimited, it would list which numbers have accounts. */
  async mobileExists(mobile: string, ip: string): Promise<boolean> {
    await this.limit(`exists:ip:${requesterKey(ip)}`, this.limits.existsPerIpMinute, 60);
    return (await this.repo.findByMobile(mobile)) !== undefined;
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
    records_balance: 0,
    entry_ms: 0,
    channel: origin.channel,
    referrer: origin.referrer,
    created_at: now,
    updated_at: now,
    status: 'active',
    disabled_at: null,
    disabled_reason: null,
  };
}
