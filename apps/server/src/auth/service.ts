import type { Kysely } from 'kysely';
import { isEmail, type Account } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { nowIso } from '../platform/db/database.js';
import type { Mailer } from '../platform/mail.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { AccountsService } from '../accounts/service.js';
import type { CodeService } from './codes.js';
import type { SessionService } from './sessions.js';
import { codeMail } from './code-mail.js';

/** Per-IP and per-email limits on sending and checking codes, beyond the 60 s resend rule. */
export interface AuthLimits {
  codePerIpHour: number;
  codePerEmailDay: number;
  signInPerIpMinute: number;
}

export function normalizeEmail(raw: string | undefined): string {
  const email = (raw ?? '').trim();
  if (!email) throw new AppError('EMAIL_REQUIRED');
  if (!isEmail(email)) throw new AppError('EMAIL_FORMAT');
  return email.toLowerCase();
}

export class AuthService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly accounts: AccountsService,
    private readonly sessions: SessionService,
    private readonly codes: CodeService,
    private readonly mailer: Mailer,
    private readonly limiter: RateLimiter,
    private readonly limits: AuthLimits,
  ) {}

  async sendCode(rawEmail: string | undefined, ip: string, locale: string): Promise<{ resend_after: number }> {
    const email = normalizeEmail(rawEmail);
    const wait = await this.codes.cooldown(email);
    if (wait > 0) throw new AppError('CODE_COOLDOWN', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
    await this.limit(`code:ip:${ip}`, this.limits.codePerIpHour, 3600);
    await this.limit(`code:email:${email}`, this.limits.codePerEmailDay, 86_400);
    const code = await this.codes.issue(email);
    try {
      await this.mailer.send({ to: email, ...codeMail(code, locale) });
    } catch (e) {
      // An undelivered code must not start the 60 s cooldown: the user could not ask again.
      await this.codes.discard(email, code);
      throw e;
    }
    return { resend_after: 60 };
  }

  /** Signs in to the account that owns the email; an email nobody owns gets a new registered account. */
  async signIn(
    body: { email?: string; vcode?: string },
    ip: string,
    userAgent: string | null,
  ): Promise<{ accountId: string; sid: string }> {
    const { email, vcode } = this.fields(body);
    await this.limit(`check:ip:${ip}`, this.limits.signInPerIpMinute, 60);
    await this.codes.consume(email, vcode);
    return this.db.transaction().execute(async (trx) => {
      const existing = await this.accounts.repo.findByEmail(email, trx);
      const accountId = existing?.id ?? (await this.accounts.createRegistered(email, trx));
      return { accountId, sid: await this.sessions.create(accountId, userAgent, trx) };
    });
  }

  /** Registers the session's anonymous account under the email, in place: its credits and objects stay. */
  async registerEmail(
    accountId: string,
    currentSid: string,
    body: { email?: string; vcode?: string },
    ip: string,
    userAgent: string | null,
  ): Promise<{ accountId: string; sid: string }> {
    const { email, vcode } = this.fields(body);
    await this.limit(`check:ip:${ip}`, this.limits.signInPerIpMinute, 60);
    const owner = await this.accounts.repo.findByEmail(email);
    if (owner && owner.id !== accountId) throw new AppError('EMAIL_TAKEN');
    await this.codes.consume(email, vcode);
    const sid = await this.db
      .transaction()
      .execute(async (trx) => {
        const account = await this.accounts.repo.findById(accountId, trx);
        if (!account) throw new AppError('UNAUTHENTICATED');
        await this.accounts.repo.update(accountId, { email, anonymous: 0, updated_at: nowIso() }, trx);
        if (account.anonymous === 1) await this.accounts.grantFreePlan(accountId, trx);
        return this.sessions.create(accountId, userAgent, trx);
      })
      .catch((e: unknown) => {
        // Two registrations racing for one email: the unique index decides, the loser hears EMAIL_TAKEN.
        if (isUniqueViolation(e)) throw new AppError('EMAIL_TAKEN');
        throw e;
      });
    // The anonymous session is replaced by a fresh one: a privilege change never reuses a token.
    await this.sessions.revoke(currentSid);
    return { accountId, sid };
  }

  async view(accountId: string, sid: string): Promise<{ account: Account; sid: string }> {
    return { account: await this.accounts.view(accountId, sid), sid };
  }

  private fields(body: { email?: string; vcode?: string }): { email: string; vcode: string } {
    if (!body.email?.trim() || !body.vcode?.trim()) throw new AppError('PARAMETERS_NEEDED');
    return { email: normalizeEmail(body.email), vcode: body.vcode.trim() };
  }

  private async limit(key: string, limit: number, windowSeconds: number): Promise<void> {
    const wait = await this.limiter.hit(key, limit, windowSeconds);
    if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
  }
}

function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err.code === '23505' || err.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/.test(err.message ?? '');
}
