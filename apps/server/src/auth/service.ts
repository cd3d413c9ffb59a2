import type { Kysely } from 'kysely';
import type { Account } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import type { Mailer } from '../platform/mail.js';
import { requesterKey, type RateLimiter } from '../platform/rate-limit.js';
import type { AccountsService } from '../accounts/service.js';
import { normalizeEmail } from '../accounts/email.js';
import type { CodeService } from './codes.js';
import type { SessionService } from '../sessions/sessions.js';
import { codeMail, emailChangedMail } from './code-mail.js';

/**
 * Limits on sending and checking codes, beyond the 60 s resend rule. The per-email allowance is counted
 * per requester, so a stranger spends only their own; the all-requesters ceiling is far higher and only
 * stops a flood from many addresses at once.
 */
export interface AuthLimits {
  codePerIpHour: number;
  codePerAccountHour: number;
  codePerEmailDay: number;
  codePerEmailAllDay: number;
  signInPerIpMinute: number;
}

export interface AuthOptions {
  db: Kysely<Database>;
  accounts: AccountsService;
  sessions: SessionService;
  /** The one-time email codes. */
  codes: CodeService;
  /** What sends the codes and the notices. */
  mailer: Mailer;
  /** What counts the limits below. */
  limiter: RateLimiter;
  limits: AuthLimits;
  /** Whether an email nobody owns may sign up now (the operator's SIGNUP_OPEN); default open. */
  signupOpen?: () => boolean;
}

export class AuthService {
  private readonly db: Kysely<Database>;
  private readonly accounts: AccountsService;
  private readonly sessions: SessionService;
  private readonly codes: CodeService;
  private readonly mailer: Mailer;
  private readonly limiter: RateLimiter;
  private readonly limits: AuthLimits;
  private readonly signupOpen: () => boolean;

  constructor(options: AuthOptions) {
    this.db = options.db;
    this.accounts = options.accounts;
    this.sessions = options.sessions;
    this.codes = options.codes;
    this.mailer = options.mailer;
    this.limiter = options.limiter;
    this.limits = options.limits;
    this.signupOpen = options.signupOpen ?? (() => true);
  }

  /** A new registration while the operator has closed sign-up: refused, saying so (after the codes, like EMAIL_TAKEN). */
  private assertSignupOpen(): void {
    if (!this.signupOpen()) throw new AppError('FORBIDDEN', { reason: 'signup_closed' });
  }

  async sendCode(
    rawEmail: string | undefined,
    ip: string,
    locale: string,
    accountId: string | null = null,
  ): Promise<{ resend_after: number }> {
    const email = normalizeEmail(rawEmail);
    // A disabled account is told why at once: no code is sent that could not sign it in.
    await this.refuseDisabled(email);
    const requester = requesterKey(ip);
    const wait = await this.codes.cooldown(email, requester);
    if (wait > 0) throw new AppError('CODE_COOLDOWN', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
    await this.limit(`code:ip:${requester}`, this.limits.codePerIpHour, 3600);
    if (accountId) await this.limit(`code:account:${accountId}`, this.limits.codePerAccountHour, 3600);
    await this.limit(`code:email-ip:${email}|${requester}`, this.limits.codePerEmailDay, 86_400);
    await this.limit(`code:email:${email}`, this.limits.codePerEmailAllDay, 86_400);
    const code = await this.codes.issue(email, requester);
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
    await this.limit(`check:ip:${requesterKey(ip)}`, this.limits.signInPerIpMinute, 60);
    await this.codes.consume(email, vcode, requesterKey(ip));
    return this.db.transaction().execute(async (trx) => {
      const existing = await this.accounts.repo.findByEmail(email, trx);
      if (existing && existing.status !== 'active') throw new AppError('ACCOUNT_DISABLED');
      if (!existing) this.assertSignupOpen();
      const accountId = existing?.id ?? (await this.accounts.createRegistered(email, ip, trx));
      return { accountId, sid: await this.sessions.create(accountId, userAgent, trx) };
    });
  }

  /**
   * Puts the session's account under a new email. An anonymous account is registered in place (its
   * credits and objects stay). A registered one must also prove its current address: with only the new
   * address's code, a stolen session could move the account away for good. Either way every session of
   * the account ends and a new one is returned; a registered account's old address is told.
   */
  async registerEmail(
    accountId: string,
    body: { email?: string; vcode?: string; current_vcode?: string },
    ip: string,
    userAgent: string | null,
    locale: string,
  ): Promise<{ accountId: string; sid: string }> {
    const { email, vcode } = this.fields(body);
    const account = await this.accounts.repo.findById(accountId);
    if (!account) throw new AppError('UNAUTHENTICATED');
    const previous = account.anonymous === 1 ? null : account.email;
    const currentCode = body.current_vcode?.trim();
    if (previous !== null && !currentCode) throw new AppError('PARAMETERS_NEEDED');
    if (previous === email) throw new AppError('VALIDATION_FAILED', { field: 'email', rule: "is already the account's email" });
    await this.limit(`check:ip:${requesterKey(ip)}`, this.limits.signInPerIpMinute, 60);
    if (previous !== null) await this.codes.consume(previous, currentCode!, requesterKey(ip));
    await this.codes.consume(email, vcode, requesterKey(ip));
    // Only after the codes: answered before them, EMAIL_TAKEN would tell anyone which emails have accounts.
    const owner = await this.accounts.repo.findByEmail(email);
    if (owner && owner.id !== accountId) throw new AppError('EMAIL_TAKEN');
    // An anonymous account taking an email is a registration; a registered one changing its address is not.
    if (previous === null) this.assertSignupOpen();
    // Told before the change is written, so a mail that cannot go out stops the change (and a write
    // lock is never held across a mail server's answer).
    if (previous !== null) await this.mailer.send({ to: previous, ...emailChangedMail(email, locale) });
    const sid = await this.db
      .transaction()
      .execute(async (trx) => {
        // Conditional on the email read above, so two changes racing cannot both pass one proof.
        if (!(await this.accounts.repo.changeEmail(accountId, account.email, email, trx)))
          throw new AppError('CAPTCHA_INCORRECT');
        if (account.anonymous === 1) await this.accounts.grantFreePlan(accountId, email, ip, trx);
        // A privilege or identity change never keeps a token alive: a thief's session ends here too.
        await this.sessions.revokeAll(accountId, trx);
        return this.sessions.create(accountId, userAgent, trx);
      })
      .catch((e: unknown) => {
        // Two registrations racing for one email: the unique index decides, the loser hears EMAIL_TAKEN.
        if (isUniqueViolation(e)) throw new AppError('EMAIL_TAKEN');
        throw e;
      });
    return { accountId, sid };
  }

  async view(accountId: string, sid: string): Promise<{ account: Account; sid: string }> {
    return { account: await this.accounts.view(accountId, sid), sid };
  }

  private async refuseDisabled(email: string): Promise<void> {
    const account = await this.accounts.repo.findByEmail(email);
    if (account && account.status !== 'active') throw new AppError('ACCOUNT_DISABLED');
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
