import { sql, type Kysely } from 'kysely';
import { createChallenge, verifySolution, type Challenge, type Solution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { hmac } from '../platform/crypto.js';
import type { RateLimiter } from '../platform/rate-limit.js';

/** The limits on text messages, read at each request (the operator changes some of them while the platform runs). */
export interface SmsLimits {
  /** ISO 3166 regions whose numbers may receive codes, comma-separated; `*` every one. */
  countries: string;
  perIpHour: number;
  perAccountHour: number;
  /** Per number and requester per day (a stranger spends only their own allowance). */
  perNumberDay: number;
  /** Per number per day from everyone. */
  perNumberAllDay: number;
  /** Messages the whole service sends per UTC day. */
  dailyCap: number;
  /** Codes a requester asks for per day before each further one needs a solved proof-of-work. */
  freePerIpDay: number;
  /** Leading zero hex digits the proof-of-work's hash must have. */
  powDifficulty: number;
}

export interface SmsGuardOptions {
  db: Kysely<Database>;
  limiter: RateLimiter;
  limits: SmsLimits;
  /** The server secret, from which the challenges' signing key is derived. */
  secret: string;
  now?: () => number;
}

const CHALLENGE_SECONDS = 300;

/**
 * What stands between a request and a paid text message (SMS pumping): the operator's countries, limits per
 * address, account and number, a proof-of-work once an address has used its small free allowance, and a daily cap
 * for the whole service counted in the database (one conditional upsert, so it holds across processes).
 */
export class SmsGuard {
  private readonly db: Kysely<Database>;
  private readonly limiter: RateLimiter;
  readonly limits: SmsLimits;
  private readonly key: string;
  private readonly now: () => number;

  constructor(options: SmsGuardOptions) {
    this.db = options.db;
    this.limiter = options.limiter;
    this.limits = options.limits;
    this.key = hmac(options.secret, 'polyvox-sms-pow');
    this.now = options.now ?? Date.now;
  }

  /** A number of a region the operator does not serve: refused before anything is counted. */
  assertCountry(region: string): void {
    const allowed = this.limits.countries.trim();
    if (allowed === '*') return;
    const list = allowed.split(',').map((c) => c.trim().toUpperCase());
    if (!list.includes(region.toUpperCase()))
      throw new AppError('VALIDATION_FAILED', { field: 'mobile', rule: 'numbers of this country are not served' });
  }

  /** A new challenge, signed with the server's key, good for five minutes. */
  async challenge(): Promise<Challenge> {
    return createChallenge({
      algorithm: 'SHA-256',
      cost: 1,
      deriveKey,
      keyPrefix: '0'.repeat(this.limits.powDifficulty),
      hmacSignatureSecret: this.key,
      expiresAt: Math.floor(this.now() / 1000) + CHALLENGE_SECONDS,
    });
  }

  /**
   * Counts the request against the requester's free allowance; past it, the request must carry a solved challenge
   * of the required work, signed here, unexpired and never used before (CAPTCHA_INCORRECT otherwise).
   */
  async assertWork(requester: string, payload: string | undefined): Promise<void> {
    const over = await this.limiter.hit(`sms:free:${requester}`, this.limits.freePerIpDay, 86_400);
    if (over === 0) return;
    if (!payload || !(await this.solved(payload)))
      throw new AppError('CAPTCHA_INCORRECT', {}, { headers: { 'x-challenge': 'required' } });
  }

  private async solved(payload: string): Promise<boolean> {
    let decoded: { challenge?: Challenge; solution?: Solution };
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as typeof decoded;
    } catch {
      return false;
    }
    const { challenge, solution } = decoded;
    if (!challenge?.parameters || !challenge.signature || !solution || typeof solution.counter !== 'number') return false;
    // The work asked today, not a cheaper one an older setting signed.
    if (challenge.parameters.keyPrefix !== '0'.repeat(this.limits.powDifficulty)) return false;
    const result = await verifySolution({
      challenge,
      solution,
      deriveKey,
      hmacSignatureSecret: this.key,
    }).catch(() => null);
    if (!result?.verified) return false;
    // One solution buys one message: its signature is spent for as long as the challenge lives.
    return (await this.limiter.hit(`sms:pow:${challenge.signature}`, 1, CHALLENGE_SECONDS)) === 0;
  }

  /** The per-address, per-account and per-number limits (RATE_LIMITED with the wait). */
  async assertLimits(requester: string, number: string, accountId: string | null): Promise<void> {
    await this.limit(`sms:ip:${requester}`, this.limits.perIpHour, 3600);
    if (accountId) await this.limit(`sms:account:${accountId}`, this.limits.perAccountHour, 3600);
    await this.limit(`sms:number-ip:${number}|${requester}`, this.limits.perNumberDay, 86_400);
    await this.limit(`sms:number:${number}`, this.limits.perNumberAllDay, 86_400);
  }

  /**
   * Takes one message from today's cap for the whole service; past it, RATE_LIMITED until the next UTC day. The
   * upsert adds one only while the count is under the cap, in one statement: two processes cannot both take the last.
   */
  async takeFromDailyCap(): Promise<void> {
    const now = new Date(this.now());
    const day = now.toISOString().slice(0, 10);
    const cap = this.limits.dailyCap;
    const row = await sql<{ sent: number | string }>`
      INSERT INTO phone_sms_days (day, sent) VALUES (${day}, 1)
      ON CONFLICT (day) DO UPDATE SET sent = phone_sms_days.sent + 1 WHERE phone_sms_days.sent < ${cap}
      RETURNING sent`.execute(this.db);
    const sent = row.rows[0] ? Number(row.rows[0].sent) : Number.POSITIVE_INFINITY;
    if (cap <= 0 || sent > cap) {
      const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
      const wait = Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
      throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
    }
  }

  /** Gives back a message taken from the cap whose sending failed. */
  async giveBack(): Promise<void> {
    const day = new Date(this.now()).toISOString().slice(0, 10);
    await this.db
      .updateTable('phone_sms_days')
      .set((eb) => ({ sent: eb('sent', '-', 1) }))
      .where('day', '=', day)
      .where('sent', '>', 0)
      .execute();
  }

  /** Messages sent on the given UTC day (today by default). */
  async sentOn(day = new Date(this.now()).toISOString().slice(0, 10)): Promise<number> {
    const row = await this.db.selectFrom('phone_sms_days').select('sent').where('day', '=', day).executeTakeFirst();
    return Number(row?.sent ?? 0);
  }

  private async limit(key: string, limit: number, windowSeconds: number): Promise<void> {
    const wait = await this.limiter.hit(key, limit, windowSeconds);
    if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
  }
}
