import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { generateSecret, generateURI, verify as verifyTotp } from 'otplib';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { OperatorRole } from '@polyvox/contracts';
import type { Database } from '../platform/db/schema.js';
import { AppError } from '../platform/errors.js';
import { hmac, seal, unseal } from '../platform/crypto.js';
import { newId } from '../platform/ids.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { AuditTrail } from '../audit/trail.js';
import type { Actor, Clock } from './service.js';

/** An elevated session lasts this long (then the operator passes the second factor again). */
export const ELEVATION_MS = 12 * 3_600_000;
/** Second-factor attempts (TOTP, recovery codes, passkeys) per operator per window. */
export const FACTOR_ATTEMPTS = { limit: 10, windowSeconds: 900 } as const;
export const RECOVERY_CODES = 10;
const CHALLENGE_MS = 5 * 60_000;
const TOTP_PURPOSE = 'operator-totp';

/**
 * Where passkeys are bound: the origins the console is served from (PUBLIC_URL's first, then ALLOWED_ORIGINS). A
 * passkey's relying party id is the host name of the origin the browser asks from (an IP address cannot hold one:
 * browsers refuse it, so a console on http://127.0.0.1 adds http://localhost to ALLOWED_ORIGINS).
 */
export interface RelyingParty {
  name: string;
  origins: readonly string[];
}

/** The relying party id for a request from `origin`: its host name when it is one of ours, else PUBLIC_URL's. */
export function rpIdFor(rp: RelyingParty, origin: string | undefined): string {
  const ours = origin && rp.origins.includes(origin) ? origin : rp.origins[0]!;
  return new URL(ours).hostname;
}

export interface FactorStatus {
  role: OperatorRole;
  elevated: boolean;
  expires_at: string | null;
  totp: boolean;
  passkeys: number;
  recovery_codes_left: number;
}

/** The operator a second-factor call is about: the account, its session's stored hash and its email (the label). */
export interface FactorSubject {
  accountId: string;
  role: OperatorRole;
  sessionId: string;
}

const wrong = () => new AppError('SIGN_IN_FAILED', { reason: 'second_factor' });

/** Recovery codes as shown: ten characters in two groups (`k7d2m-x9q4r`), compared without case or dash. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  let code = '';
  for (const b of randomBytes(10)) code += alphabet[b % alphabet.length];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}
const normalizeRecovery = (code: string) =>
  code
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

/**
 * The operator's second factor: TOTP (RFC 6238) with ten recovery codes, or passkeys (WebAuthn). Passing it marks the
 * session elevated for 12 hours. Every attempt counts against a per-operator limit; each pass and each enrolment is
 * an audit entry (`operator.factor_pass`, `operator.factor_enrol`).
 */
export class SecondFactorService {
  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      secret: string;
      clock: Clock;
      limiter: RateLimiter;
      audit: AuditTrail;
      rp: RelyingParty;
      issuer: string;
    },
  ) {}

  private now(): Date {
    return this.deps.clock.now();
  }

  async status(s: FactorSubject): Promise<FactorStatus> {
    const db = this.deps.db;
    const [elevation, totp, passkeys, codes] = await Promise.all([
      db
        .selectFrom('operator_elevations')
        .select('expires_at')
        .where('session_hash', '=', s.sessionId)
        .where('account_id', '=', s.accountId)
        .where('ended_at', 'is', null)
        .where('expires_at', '>', this.now().toISOString())
        .executeTakeFirst(),
      db.selectFrom('operator_totp').select('confirmed_at').where('account_id', '=', s.accountId).executeTakeFirst(),
      db
        .selectFrom('operator_passkeys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', s.accountId)
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('operator_recovery_codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', s.accountId)
        .where('active', '=', 1)
        .where('used_at', 'is', null)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      role: s.role,
      elevated: Boolean(elevation),
      expires_at: elevation?.expires_at ?? null,
      totp: Boolean(totp?.confirmed_at),
      passkeys: Number(passkeys.n),
      recovery_codes_left: Number(codes.n),
    };
  }

  /** A factor may be added by an operator who has none yet, or from a session that already passed one. */
  private async assertMayEnrol(s: FactorSubject): Promise<void> {
    const status = await this.status(s);
    if ((status.totp || status.passkeys > 0) && !status.elevated) throw new AppError('SECOND_FACTOR_REQUIRED');
  }

  private async attempt(accountId: string): Promise<void> {
    const wait = await this.deps.limiter.hit(`op:factor:${accountId}`, FACTOR_ATTEMPTS.limit, FACTOR_ATTEMPTS.windowSeconds);
    if (wait > 0) throw new AppError('RATE_LIMITED', { seconds: wait }, { headers: { 'retry-after': String(wait) } });
  }

  private async elevate(trx: Kysely<Database>, s: FactorSubject, method: string): Promise<string> {
    const now = this.now();
    const expires = new Date(now.getTime() + ELEVATION_MS).toISOString();
    await trx
      .insertInto('operator_elevations')
      .values({
        session_hash: s.sessionId,
        account_id: s.accountId,
        method,
        passed_at: now.toISOString(),
        expires_at: expires,
        ended_at: null,
      })
      .onConflict((oc) =>
        oc
          .column('session_hash')
          .doUpdateSet({ account_id: s.accountId, method, passed_at: now.toISOString(), expires_at: expires, ended_at: null }),
      )
      .execute();
    return expires;
  }

  private async passed(
    s: FactorSubject,
    actor: Actor,
    method: string,
    enrolled: boolean,
    trx: Kysely<Database>,
    extra: object = {},
  ) {
    const expires = await this.elevate(trx, s, method);
    await this.deps.audit.record(
      {
        ...actor,
        action: enrolled ? 'operator.factor_enrol' : 'operator.factor_pass',
        target: { type: 'account', id: s.accountId },
        after: { method, ...extra },
      },
      trx,
    );
    return expires;
  }

  /** Starts TOTP enrolment: a new secret (sealed at rest) and ten recovery codes, both in force once a code confirms. */
  async enrolTotp(s: FactorSubject, label: string): Promise<{ secret: string; otpauth_uri: string; recovery_codes: string[] }> {
    await this.assertMayEnrol(s);
    const existing = await this.deps.db
      .selectFrom('operator_totp')
      .select('confirmed_at')
      .where('account_id', '=', s.accountId)
      .executeTakeFirst();
    if (existing?.confirmed_at)
      throw new AppError('VALIDATION_FAILED', { field: 'totp', rule: 'an authenticator app is already set up' });
    const secret = generateSecret();
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    const now = this.now().toISOString();
    await this.deps.db.transaction().execute(async (trx) => {
      const sealed = seal(this.deps.secret, TOTP_PURPOSE, secret);
      await trx
        .insertInto('operator_totp')
        .values({ account_id: s.accountId, secret_sealed: sealed, confirmed_at: null, last_step: 0, created_at: now })
        .onConflict((oc) =>
          oc.column('account_id').doUpdateSet({ secret_sealed: sealed, confirmed_at: null, last_step: 0, created_at: now }),
        )
        .execute();
      await trx.deleteFrom('operator_recovery_codes').where('account_id', '=', s.accountId).where('active', '=', 0).execute();
      await trx
        .insertInto('operator_recovery_codes')
        .values(
          codes.map((c) => ({
            id: newId('recoveryCode'),
            account_id: s.accountId,
            code_hash: this.recoveryHash(s.accountId, c),
            active: 0,
            used_at: null,
            created_at: now,
          })),
        )
        .execute();
    });
    return { secret, otpauth_uri: generateURI({ issuer: this.deps.issuer, label, secret }), recovery_codes: codes };
  }

  private recoveryHash(accountId: string, code: string): string {
    return hmac(this.deps.secret, `recovery:${accountId}:${normalizeRecovery(code)}`);
  }

  /** The time step a TOTP code matches (the current one, or one step either side), later than any accepted before. */
  private async totpStep(sealed: string, lastStep: number, code: string): Promise<number | null> {
    if (!/^\d{6}$/.test(code)) return null;
    const secret = unseal(this.deps.secret, TOTP_PURPOSE, sealed);
    const result = await verifyTotp({
      secret,
      token: code,
      epoch: Math.floor(this.now().getTime() / 1000),
      epochTolerance: 30,
      afterTimeStep: lastStep,
    });
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }

  /** Confirms TOTP enrolment with a first code: the secret and its recovery codes take effect, the session passes. */
  async confirmTotp(s: FactorSubject, code: string, actor: Actor): Promise<{ expires_at: string }> {
    await this.attempt(s.accountId);
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('operator_totp').selectAll().where('account_id', '=', s.accountId).executeTakeFirst();
      if (!row || row.confirmed_at) throw new AppError('NOT_FOUND');
      const step = await this.totpStep(row.secret_sealed, Number(row.last_step), code);
      if (step === null) throw wrong();
      await trx
        .updateTable('operator_totp')
        .set({ confirmed_at: this.now().toISOString(), last_step: step })
        .where('account_id', '=', s.accountId)
        .execute();
      await trx.deleteFrom('operator_recovery_codes').where('account_id', '=', s.accountId).where('active', '=', 1).execute();
      await trx.updateTable('operator_recovery_codes').set({ active: 1 }).where('account_id', '=', s.accountId).execute();
      return { expires_at: await this.passed(s, actor, 'totp', true, trx) };
    });
  }

  /** Passes the second factor with a TOTP code; a code already accepted (its time step or an earlier one) fails. */
  async verifyTotp(s: FactorSubject, code: string, actor: Actor): Promise<{ expires_at: string }> {
    await this.attempt(s.accountId);
    const row = await this.deps.db
      .selectFrom('operator_totp')
      .selectAll()
      .where('account_id', '=', s.accountId)
      .executeTakeFirst();
    if (!row?.confirmed_at) throw wrong();
    const step = await this.totpStep(row.secret_sealed, Number(row.last_step), code);
    if (step === null) throw wrong();
    return this.deps.db.transaction().execute(async (trx) => {
      // Taken once: of two requests with one code, the one whose update finds the older step passes.
      const taken = await trx
        .updateTable('operator_totp')
        .set({ last_step: step })
        .where('account_id', '=', s.accountId)
        .where('last_step', '<', step)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) throw wrong();
      return { expires_at: await this.passed(s, actor, 'totp', false, trx) };
    });
  }

  /** Passes the second factor with a recovery code, which is then used up. */
  async useRecoveryCode(
    s: FactorSubject,
    code: string,
    actor: Actor,
  ): Promise<{ expires_at: string; recovery_codes_left: number }> {
    await this.attempt(s.accountId);
    return this.deps.db.transaction().execute(async (trx) => {
      const used = await trx
        .updateTable('operator_recovery_codes')
        .set({ used_at: this.now().toISOString() })
        .where('account_id', '=', s.accountId)
        .where('code_hash', '=', this.recoveryHash(s.accountId, code))
        .where('active', '=', 1)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(used.numUpdatedRows) !== 1) throw wrong();
      const left = await trx
        .selectFrom('operator_recovery_codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', s.accountId)
        .where('active', '=', 1)
        .where('used_at', 'is', null)
        .executeTakeFirstOrThrow();
      const expires = await this.passed(s, actor, 'recovery', false, trx, { recovery_codes_left: Number(left.n) });
      return { expires_at: expires, recovery_codes_left: Number(left.n) };
    });
  }

  private async putChallenge(s: FactorSubject, kind: string, challenge: string): Promise<void> {
    const expires = new Date(this.now().getTime() + CHALLENGE_MS).toISOString();
    await this.deps.db
      .insertInto('operator_challenges')
      .values({ session_hash: s.sessionId, kind, challenge, expires_at: expires })
      .onConflict((oc) => oc.column('session_hash').doUpdateSet({ kind, challenge, expires_at: expires }))
      .execute();
  }

  /** The challenge this session was given for `kind`, taken once (a second answer to it fails). */
  private async takeChallenge(trx: Kysely<Database>, s: FactorSubject, kind: string): Promise<string> {
    const row = await trx
      .deleteFrom('operator_challenges')
      .where('session_hash', '=', s.sessionId)
      .where('kind', '=', kind)
      .returning(['challenge', 'expires_at'])
      .executeTakeFirst();
    if (!row || row.expires_at <= this.now().toISOString()) throw wrong();
    return row.challenge;
  }

  async passkeyRegistrationOptions(s: FactorSubject, label: string, origin?: string) {
    await this.assertMayEnrol(s);
    const existing = await this.deps.db
      .selectFrom('operator_passkeys')
      .select(['id', 'transports'])
      .where('account_id', '=', s.accountId)
      .execute();
    const options = await generateRegistrationOptions({
      rpName: this.deps.rp.name,
      rpID: rpIdFor(this.deps.rp, origin),
      userName: label,
      userID: new TextEncoder().encode(s.accountId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({
        id: p.id,
        ...(p.transports ? { transports: JSON.parse(p.transports) as string[] } : {}),
      })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    await this.putChallenge(s, 'register', options.challenge);
    return options as unknown as Record<string, unknown>;
  }

  async passkeyRegister(s: FactorSubject, response: RegistrationResponseJSON, actor: Actor): Promise<{ expires_at: string }> {
    await this.attempt(s.accountId);
    await this.assertMayEnrol(s);
    return this.deps.db.transaction().execute(async (trx) => {
      const challenge = await this.takeChallenge(trx, s, 'register');
      const result = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: [...this.deps.rp.origins],
        expectedRPID: this.deps.rp.origins.map((o) => new URL(o).hostname),
        requireUserVerification: false,
      }).catch(() => null);
      if (!result?.verified) throw wrong();
      const { credential } = result.registrationInfo;
      await trx
        .insertInto('operator_passkeys')
        .values({
          id: credential.id,
          account_id: s.accountId,
          public_key: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: credential.transports ? JSON.stringify(credential.transports) : null,
          created_at: this.now().toISOString(),
          last_used_at: null,
        })
        .execute();
      return { expires_at: await this.passed(s, actor, 'passkey', true, trx, { credential: credential.id }) };
    });
  }

  async passkeyAuthenticationOptions(s: FactorSubject, origin?: string) {
    const passkeys = await this.deps.db
      .selectFrom('operator_passkeys')
      .select(['id', 'transports'])
      .where('account_id', '=', s.accountId)
      .execute();
    if (!passkeys.length) throw new AppError('NOT_FOUND');
    const options = await generateAuthenticationOptions({
      rpID: rpIdFor(this.deps.rp, origin),
      allowCredentials: passkeys.map((p) => ({
        id: p.id,
        ...(p.transports ? { transports: JSON.parse(p.transports) as string[] } : {}),
      })),
      userVerification: 'preferred',
    });
    await this.putChallenge(s, 'authenticate', options.challenge);
    return options as unknown as Record<string, unknown>;
  }

  async passkeyAuthenticate(
    s: FactorSubject,
    response: AuthenticationResponseJSON,
    actor: Actor,
  ): Promise<{ expires_at: string }> {
    await this.attempt(s.accountId);
    return this.deps.db.transaction().execute(async (trx) => {
      const challenge = await this.takeChallenge(trx, s, 'authenticate');
      const passkey = await trx
        .selectFrom('operator_passkeys')
        .selectAll()
        .where('id', '=', response.id)
        .where('account_id', '=', s.accountId)
        .executeTakeFirst();
      if (!passkey) throw wrong();
      const result = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: [...this.deps.rp.origins],
        expectedRPID: this.deps.rp.origins.map((o) => new URL(o).hostname),
        credential: {
          id: passkey.id,
          publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
          counter: Number(passkey.counter),
        },
        requireUserVerification: false,
      }).catch(() => null);
      if (!result?.verified) throw wrong();
      await trx
        .updateTable('operator_passkeys')
        .set({ counter: result.authenticationInfo.newCounter, last_used_at: this.now().toISOString() })
        .where('id', '=', passkey.id)
        .execute();
      return { expires_at: await this.passed(s, actor, 'passkey', false, trx, { credential: passkey.id }) };
    });
  }

  /** Ends this session's elevation (signing out of the console). */
  async leave(s: FactorSubject): Promise<void> {
    await this.deps.db
      .updateTable('operator_elevations')
      .set({ ended_at: this.now().toISOString() })
      .where('session_hash', '=', s.sessionId)
      .where('ended_at', 'is', null)
      .execute();
  }
}
