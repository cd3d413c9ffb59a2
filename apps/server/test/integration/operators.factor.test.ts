import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSecret } from '../../src/platform/secret.js';
import { unseal } from '../../src/platform/crypto.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { anotherSession, makeOperator, makePendingOperator, totpCode } from '../support/operators.js';
import { SoftPasskey } from '../support/passkey.js';

const HOUR = 3_600_000;

describe.each(DIALECTS)('operators: the second factor (%s)', (dialect) => {
  let t: TestApp;
  /** The operators' clock, set by each test (the rate limiter keeps real time). */
  let now = Date.parse('2026-03-02T08:00:00Z');
  const at = (ms: number) => {
    now = ms;
  };
  beforeAll(async () => {
    t = await startTestApp(dialect);
    t.ctx.operators.clock.now = () => new Date(now);
  });
  afterEach(() => at(Date.parse('2026-03-02T08:00:00Z')));
  afterAll(async () => {
    await t.close();
  });

  it('enrols TOTP: an otpauth URI, ten recovery codes, the secret sealed at rest; a first code confirms and elevates', async () => {
    const op = await makePendingOperator(t, 'support', 'zh-CN');
    const status = await op.client.get('/admin/api/auth/status');
    expect(status.body).toMatchObject({ role: 'support', elevated: false, totp: false, passkeys: 0, recovery_codes_left: 0 });
    expect((await op.client.get('/admin/api/audit')).body.error.code).toBe('SECOND_FACTOR_REQUIRED');

    const enrol = await op.client.post('/admin/api/auth/totp/enrol');
    expect(enrol.status).toBe(200);
    const { secret, otpauth_uri, recovery_codes } = enrol.body as {
      secret: string;
      otpauth_uri: string;
      recovery_codes: string[];
    };
    expect(otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
    expect(new URL(otpauth_uri).searchParams.get('secret')).toBe(secret);
    expect(decodeURIComponent(otpauth_uri)).toContain(op.email);
    expect(new Set(recovery_codes).size).toBe(10);
    // At rest: sealed with the server secret, never in the clear; recovery codes only as hashes.
    const row = await t.ctx.db.kysely
      .selectFrom('operator_totp')
      .selectAll()
      .where('account_id', '=', op.accountId)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(secret);
    expect(unseal(loadSecret(t.ctx.config.SECRET, t.dataDir), 'operator-totp', row.secret_sealed)).toBe(secret);
    const hashes = await t.ctx.db.kysely
      .selectFrom('operator_recovery_codes')
      .select('code_hash')
      .where('account_id', '=', op.accountId)
      .execute();
    expect(hashes).toHaveLength(10);
    for (const code of recovery_codes) expect(JSON.stringify(hashes)).not.toContain(code.replace('-', ''));

    const wrong = await op.client.post('/admin/api/auth/totp/confirm', {
      code: '000000' === (await totpCode(t, secret)) ? '111111' : '000000',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'SIGN_IN_FAILED', message: '验证码或通行密钥未通过，请重试' });
    const ok = await op.client.post('/admin/api/auth/totp/confirm', { code: await totpCode(t, secret) });
    expect(ok.status).toBe(200);
    expect(ok.body.expires_at).toBe(new Date(now + 12 * HOUR).toISOString());
    expect((await op.client.get('/admin/api/audit')).status).toBe(200);
    expect((await op.client.get('/admin/api/auth/status')).body).toMatchObject({
      elevated: true,
      totp: true,
      recovery_codes_left: 10,
    });
  });

  it('a TOTP code is accepted once; the next time step passes; the elevation lasts 12 hours to the second', async () => {
    const op = await makeOperator(t, 'admin');
    const second = await anotherSession(t, op.accountId);
    const before = await second.get('/admin/api/audit');
    expect(before.status).toBe(401);
    expect(before.body.error.code).toBe('SECOND_FACTOR_REQUIRED');
    // The code the enrolment was confirmed with (same time step) is refused: a code works once.
    const replay = await second.post('/admin/api/auth/verify', { code: await totpCode(t, op.secret) });
    expect(replay.status).toBe(400);
    at(now + 30_000);
    const pass = await second.post('/admin/api/auth/verify', { code: await totpCode(t, op.secret) });
    expect(pass.status).toBe(200);
    const passedAt = now;
    expect((await second.get('/admin/api/audit')).status).toBe(200);
    at(passedAt + 12 * HOUR - 1000);
    expect((await second.get('/admin/api/audit')).status).toBe(200);
    at(passedAt + 12 * HOUR);
    const expired = await second.get('/admin/api/audit');
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('SECOND_FACTOR_REQUIRED');
    expect((await second.get('/admin/api/auth/status')).body).toMatchObject({ elevated: false, expires_at: null });
    // A code from an old time step is refused too (only steps after the last one accepted).
    const old = await second.post('/admin/api/auth/verify', { code: await totpCode(t, op.secret, new Date(passedAt)) });
    expect(old.status).toBe(400);
    expect((await second.post('/admin/api/auth/verify', { code: await totpCode(t, op.secret) })).status).toBe(200);
  });

  it('a recovery code passes once; the pass is audited with the codes left', async () => {
    const op = await makeOperator(t, 'finance');
    const second = await anotherSession(t, op.accountId);
    const third = await anotherSession(t, op.accountId);
    const code = op.recoveryCodes[3]!;
    const used = await second.post('/admin/api/auth/recovery', { code: code.toUpperCase() });
    expect(used.status).toBe(200);
    expect(used.body.recovery_codes_left).toBe(9);
    expect((await second.get('/admin/api/audit')).status).toBe(200);
    const again = await third.post('/admin/api/auth/recovery', { code });
    expect(again.status).toBe(400);
    expect((await third.get('/admin/api/audit')).status).toBe(401);
    const entries = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .selectAll()
      .where('operator_id', '=', op.accountId)
      .where('action', '=', 'operator.factor_pass')
      .execute();
    expect(entries).toHaveLength(1);
    expect(JSON.parse(entries[0]!.after!)).toEqual({ method: 'recovery', recovery_codes_left: 9 });
  });

  it('limits second-factor attempts: after ten, even the right code waits', async () => {
    const op = await makeOperator(t, 'support');
    const second = await anotherSession(t, op.accountId);
    at(now + 60_000);
    const right = await totpCode(t, op.secret);
    const wrongCode = right === '123456' ? '654321' : '123456';
    // makeOperator's confirmation was the first attempt of the window.
    for (let i = 0; i < 9; i++) expect((await second.post('/admin/api/auth/verify', { code: wrongCode })).status).toBe(400);
    const limited = await second.post('/admin/api/auth/verify', { code: right });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await second.post('/admin/api/auth/recovery', { code: op.recoveryCodes[0] })).status).toBe(429);
  });

  it('a second factor is added only from an elevated session once one exists', async () => {
    const op = await makeOperator(t, 'admin');
    const second = await anotherSession(t, op.accountId);
    const refused = await second.post('/admin/api/auth/totp/enrol');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('SECOND_FACTOR_REQUIRED');
    expect((await second.post('/admin/api/auth/passkey/register/options')).status).toBe(401);
    // From the elevated session a passkey may be added; TOTP, already set up, is not enrolled twice.
    expect((await op.client.post('/admin/api/auth/passkey/register/options')).status).toBe(200);
    expect((await op.client.post('/admin/api/auth/totp/enrol')).status).toBe(400);
  });

  it('a role change or a removal ends the operator’s elevated sessions', async () => {
    const owner = await makeOperator(t, 'owner');
    const op = await makeOperator(t, 'admin');
    expect((await op.client.get('/admin/api/audit')).status).toBe(200);
    const changed = await owner.client.put(`/admin/api/operators/${op.accountId}`, { role: 'support' });
    expect(changed.status).toBe(200);
    expect(changed.body.role).toBe('support');
    const after = await op.client.get('/admin/api/audit');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('SECOND_FACTOR_REQUIRED');
    at(now + 30_000);
    expect((await op.client.post('/admin/api/auth/verify', { code: await totpCode(t, op.secret) })).status).toBe(200);
    expect((await op.client.get('/admin/api/auth/status')).body).toMatchObject({ role: 'support', elevated: true });
    expect((await owner.client.delete(`/admin/api/operators/${op.accountId}`)).status).toBe(204);
    const removed = await op.client.get('/admin/api/audit');
    expect(removed.status).toBe(403);
    expect((await op.client.get('/admin/api/auth/status')).status).toBe(403);
  });

  it('passkeys: register (attestation none) and authenticate with ES256; a replayed or foreign answer fails', async () => {
    const op = await makePendingOperator(t, 'support');
    const rp = new URL(t.ctx.config.PUBLIC_URL);
    const key = new SoftPasskey(rp.hostname, rp.origin);
    const regOptions = await op.client.post('/admin/api/auth/passkey/register/options');
    expect(regOptions.status).toBe(200);
    expect(regOptions.body).toMatchObject({ rp: { id: rp.hostname }, attestation: 'none' });
    // An answer made for another origin is refused.
    const foreign = await op.client.post(
      '/admin/api/auth/passkey/register/verify',
      key.register(regOptions.body, { origin: 'https://evil.example' }),
    );
    expect(foreign.status).toBe(400);
    const regOptions2 = await op.client.post('/admin/api/auth/passkey/register/options');
    const registered = await op.client.post('/admin/api/auth/passkey/register/verify', key.register(regOptions2.body));
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect((await op.client.get('/admin/api/auth/status')).body).toMatchObject({ elevated: true, passkeys: 1, totp: false });

    const second = await anotherSession(t, op.accountId);
    expect((await second.get('/admin/api/audit')).status).toBe(401);
    const authOptions = await second.post('/admin/api/auth/passkey/authenticate/options');
    expect(authOptions.status).toBe(200);
    expect(authOptions.body.allowCredentials).toEqual([expect.objectContaining({ id: key.id })]);
    const answer = key.authenticate(authOptions.body);
    const passed = await second.post('/admin/api/auth/passkey/authenticate/verify', answer);
    expect(passed.status, JSON.stringify(passed.body)).toBe(200);
    expect((await second.get('/admin/api/audit')).status).toBe(200);
    const stored = await t.ctx.db.kysely
      .selectFrom('operator_passkeys')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.counter)).toBe(1);

    // The same answer again: its challenge was used up.
    const third = await anotherSession(t, op.accountId);
    await third.post('/admin/api/auth/passkey/authenticate/options');
    expect((await third.post('/admin/api/auth/passkey/authenticate/verify', answer)).status).toBe(400);
    // Another key (not registered) signing a fresh challenge fails.
    const stranger = new SoftPasskey(rp.hostname, rp.origin);
    const options = await third.post('/admin/api/auth/passkey/authenticate/options');
    expect(
      (
        await third.post('/admin/api/auth/passkey/authenticate/verify', {
          ...stranger.authenticate(options.body),
          id: key.id,
          rawId: key.id,
        })
      ).status,
    ).toBe(400);
    expect((await third.get('/admin/api/audit')).status).toBe(401);
    const actions = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .select('action')
      .where('operator_id', '=', op.accountId)
      .orderBy('at')
      .orderBy('id')
      .execute();
    expect(actions.map((a) => a.action)).toEqual(['operator.factor_enrol', 'operator.factor_pass']);
  });

  it('a customer, and an API key, never reach the factor routes', async () => {
    const plain = new Client(t.url);
    await plain.anonymous();
    expect((await plain.get('/admin/api/auth/status')).status).toBe(403);
    expect((await new Client(t.url).post('/admin/api/auth/totp/enrol')).status).toBe(401);
  });
});
