import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import type { SmsSender } from '../platform/sms.js';
import { requesterKey, type RateLimiter } from '../platform/rate-limit.js';
import type { AccountsService } from '../accounts/service.js';
import { parseMobile, type ParsedMobile } from '../accounts/phone.js';
import type { SessionService } from '../sessions/sessions.js';
import type { CodeService } from './codes.js';
import type { SmsGuard } from './sms-guard.js';
import { codeSms } from './code-mail.js';

export interface PhoneAuthOptions {
  db: Kysely<Database>;
  accounts: AccountsService;
  sessions: SessionService;
  /** The one-time codes, keyed here by the number in E.164 (the same store, cooldown and tries as email's). */
  codes: CodeService;
  sms: SmsSender;
  guard: SmsGuard;
  limiter: RateLimiter;
  /** Checks of codes per requester per minute (the email path's SIGN_IN_LIMIT_PER_IP_MINUTE). */
  signInPerIpMinute: () => number;
  signupOpen?: () => boolean;
  /** Told when a provider refuses a message (the user hears INTERNAL). */
  onSendError?: (err: unknown, to: string) => void;
}

/**
 * The phone number as a sign-in field beside email: codes by SMS (through the SMS guard's limits, proof-of-work and
 * daily cap), signing in or registering the anonymous account in place, and binding or changing an account's number
 * (a change proves the old number too).
 */
export class PhoneAuthService {
  private readonly opts: PhoneAuthOptions;

  constructor(options: PhoneAuthOptions) {
    this.opts = options;
  }

  parse(raw: string | undefined, region: string | undefined, locale: string): ParsedMobile {
    return parseMobile(raw, region, locale);
  }

  async sendCode(
    body: { mobile?: string; region?: string; challenge?: string },
    ip: string,
    locale: string,
    accountId: string | null,
  ): Promise<{ resend_after: number }> {
    const { guard, codes } = this.opts;
    const { e164, region } = parseMobile(body.mobile, body.region, locale);
    guard.assertCountry(region);
    const owner = await this.opts.accounts.repo.findByMobile(e164);
    if (owner && owner.status !== 'active') throw new AppError('ACCOUNT_DISABLED');
    const requester = requesterKey(ip);
    const wait = await codes.cooldown(e164, requester);
    if (wait > 0) throw new AppError('CODE_COOLDOWN', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
    await guard.assertWork(requester, body.challenge);
    await guard.assertLimits(requester, e164, accountId);
    await guard.takeFromDailyCap();
    let code: string;
    try {
      code = await codes.issue(e164, requester);
    } catch (e) {
      await guard.giveBack();
      throw e;
    }
    try {
      await this.opts.sms.send({ to: e164, code, text: codeSms(code, locale) });
    } catch (e) {
      // An undelivered code neither works nor starts the cooldown, and costs nothing from the day's cap.
      await codes.discard(e164, code);
      await guard.giveBack();
      this.opts.onSendError?.(e, e164);
      // Not an AppError: the error handler logs the provider's refusal and answers INTERNAL with nothing of it.
      throw e;
    }
    return { resend_after: 60 };
  }

  /**
   * Signs in to the account that owns the number; else registers the anonymous session's account under it in place
   * (its credits and voices stay); else creates a registered account. Every session of a registered-in-place account
   * ends and a new one is returned.
   */
  async signIn(
    body: { mobile?: string; region?: string; vcode?: string },
    ip: string,
    userAgent: string | null,
    locale: string,
    sessionAccountId: string | null,
  ): Promise<{ accountId: string; sid: string }> {
    const { e164, vcode } = this.fields(body, locale);
    await this.checkLimit(ip);
    await this.opts.codes.consume(e164, vcode, requesterKey(ip));
    const { accounts, sessions } = this.opts;
    const existing = await accounts.repo.findByMobile(e164);
    if (existing) {
      if (existing.status !== 'active') throw new AppError('ACCOUNT_DISABLED');
      return { accountId: existing.id, sid: await sessions.create(existing.id, userAgent) };
    }
    this.assertSignupOpen();
    const current = sessionAccountId ? await accounts.repo.findById(sessionAccountId) : undefined;
    return this.opts.db
      .transaction()
      .execute(async (trx) => {
        if (current && current.anonymous === 1 && current.mobile === null) {
          if (!(await accounts.repo.changeMobile(current.id, null, e164, trx))) throw new AppError('CAPTCHA_INCORRECT');
          await accounts.grantFreePlanByMobile(current.id, e164, ip, trx);
          await sessions.revokeAll(current.id, trx);
          return { accountId: current.id, sid: await sessions.create(current.id, userAgent, trx) };
        }
        const accountId = await accounts.createRegisteredByMobile(e164, ip, trx);
        return { accountId, sid: await sessions.create(accountId, userAgent, trx) };
      })
      .catch((e: unknown) => {
        // Two sign-ups racing for one number: the unique index decides.
        if (isUniqueViolation(e)) throw new AppError('PHONE_TAKEN');
        throw e;
      });
  }

  /**
   * Binds a number to the session's account, or changes it: a change also proves the current number
   * (`current_vcode`), so a stolen session cannot move the account's number away. An anonymous account binding a
   * number is registered by it. Another account's number: PHONE_TAKEN (answered after the codes, so it tells a
   * stranger nothing).
   */
  async bind(
    accountId: string,
    body: { mobile?: string; region?: string; vcode?: string; current_vcode?: string },
    ip: string,
    locale: string,
  ): Promise<void> {
    const { e164, vcode } = this.fields(body, locale);
    const { accounts } = this.opts;
    const account = await accounts.repo.findById(accountId);
    if (!account) throw new AppError('UNAUTHENTICATED');
    const previous = account.mobile;
    const currentCode = body.current_vcode?.trim();
    if (previous !== null && !currentCode) throw new AppError('PARAMETERS_NEEDED');
    if (previous === e164) throw new AppError('VALIDATION_FAILED', { field: 'mobile', rule: "is already the account's number" });
    await this.checkLimit(ip);
    if (previous !== null) await this.opts.codes.consume(previous, currentCode!, requesterKey(ip));
    await this.opts.codes.consume(e164, vcode, requesterKey(ip));
    const owner = await accounts.repo.findByMobile(e164);
    if (owner && owner.id !== accountId) throw new AppError('PHONE_TAKEN');
    if (account.anonymous === 1) this.assertSignupOpen();
    await this.opts.db
      .transaction()
      .execute(async (trx) => {
        if (!(await accounts.repo.changeMobile(accountId, previous, e164, trx))) throw new AppError('CAPTCHA_INCORRECT');
        if (account.anonymous === 1) await accounts.grantFreePlanByMobile(accountId, e164, ip, trx);
      })
      .catch((e: unknown) => {
        if (isUniqueViolation(e)) throw new AppError('PHONE_TAKEN');
        throw e;
      });
  }

  private fields(body: { mobile?: string; region?: string; vcode?: string }, locale: string): { e164: string; vcode: string } {
    if (!body.mobile?.trim() || !body.vcode?.trim()) throw new AppError('PARAMETERS_NEEDED');
    return { e164: parseMobile(body.mobile, body.region, locale).e164, vcode: body.vcode.trim() };
  }

  private assertSignupOpen(): void {
    if (!(this.opts.signupOpen?.() ?? true)) throw new AppError('FORBIDDEN', { reason: 'signup_closed' });
  }

  private async checkLimit(ip: string): Promise<void> {
    const wait = await this.opts.limiter.hit(`check:ip:${requesterKey(ip)}`, this.opts.signInPerIpMinute(), 60);
    if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
  }
}

function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err.code === '23505' || err.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/.test(err.message ?? '');
}
