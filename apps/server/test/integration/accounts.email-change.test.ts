import fs from 'node:fs/promises';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, codeFromOutbox, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';

describe.each(DIALECTS)('changing the email of an account (%s)', (dialect) => {
  let t: TestApp;
  let n = 0;
  const email = (tag: string) => `${tag}-${++n}-${dialect}@example.com`;

  /** Lets a new code go to `address` at once, as if the last one were two minutes old. */
  const endCooldown = (address: string) =>
    t.ctx.db.kysely
      .updateTable('verification_codes')
      .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
      .where('email', '=', address)
      .execute();

  async function sendCode(c: Client, address: string): Promise<string> {
    await endCooldown(address);
    const res = await c.post('/verification/email', { email: address });
    expect(res.status).toBe(200);
    return codeFromOutbox(t.outbox, address);
  }

  /** Every message in the outbox addressed to `address`, oldest first. */
  async function mailsTo(address: string) {
    const files = (await fs.readdir(t.outbox)).filter((f) => f.endsWith('.eml')).sort();
    const mails = await Promise.all(files.map(async (f) => simpleParser(await fs.readFile(path.join(t.outbox, f)))));
    return mails.filter((m) => {
      const to = Array.isArray(m.to) ? m.to[0] : m.to;
      return to?.value.some((v) => v.address === address);
    });
  }

  /** A registered account signed in on two clients, as its owner would be on two devices. */
  async function registeredOnTwoDevices() {
    const address = email('owner');
    const one = new Client(t.url);
    const account = await signIn(one, t.outbox, address);
    await t.ctx.db.kysely.deleteFrom('verification_codes').where('email', '=', address).execute();
    const two = new Client(t.url);
    expect((await signIn(two, t.outbox, address)).id).toBe(account.id);
    return { address, account, one, two };
  }

  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { CODE_LIMIT_PER_IP_HOUR: '10000', SIGN_IN_LIMIT_PER_IP_MINUTE: '10000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('moves a registered account with codes from both addresses, tells the old one, and ends every other session', async () => {
    const { address, account, one, two } = await registeredOnTwoDevices();
    const cn = new Client(t.url, 'zh-CN');
    cn.sid = one.sid;
    const oldSid = one.sid!;
    const next = email('next');
    const current_vcode = await sendCode(cn, address);
    const vcode = await sendCode(cn, next);
    const res = await cn.put('/accounts/me/email', { email: next, vcode, current_vcode });
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ id: account.id, email: next, anonymous: false, vip: account.vip });
    expect(res.body.sid).not.toBe(oldSid);
    expect(res.headers.get('set-cookie')).toContain(`sid=${res.body.sid}`);

    // The old address hears of it, in the language of the request that changed it.
    const notices = (await mailsTo(address)).filter((m) => !/\b\d{6}\b/.test(m.text ?? ''));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.subject).toBe('你的 Polyvox 账号邮箱已更改');
    expect(notices[0]!.text).toContain(next);

    // Every session but the new one is over: the other device's and the one that asked.
    expectError(await two.get('/accounts/me'), 'UNAUTHENTICATED');
    expectError(await cn.get('/accounts/me', { 'x-sid': oldSid }), 'UNAUTHENTICATED');
    cn.sid = res.body.sid;
    expect((await cn.get('/accounts/me')).body).toMatchObject({ id: account.id, email: next });
    // The old address no longer reaches the account.
    const stranger = new Client(t.url);
    await endCooldown(address);
    expect((await signIn(stranger, t.outbox, address)).id).not.toBe(account.id);
  });

  it('refuses a registered account without current_vcode (400) and with a wrong one (403), changing nothing', async () => {
    const { address, account, one, two } = await registeredOnTwoDevices();
    const target = email('thief');
    // The thief holds a session and controls the new address, not the current one.
    let vcode = await sendCode(one, target);
    expectError(await one.put('/accounts/me/email', { email: target, vcode }), 'PARAMETERS_NEEDED', 400);
    expectError(await one.put('/accounts/me/email', { email: target, vcode, current_vcode: ' ' }), 'PARAMETERS_NEEDED', 400);
    expectError(await one.put('/accounts/me/email', { email: target, vcode, current_vcode: '000000' }), 'CAPTCHA_INCORRECT', 403);
    // A code the thief asked for their own address does not stand in for the current address's code.
    vcode = await sendCode(one, target);
    const own = email('thief-other');
    const ownCode = await sendCode(one, own);
    expectError(await one.put('/accounts/me/email', { email: target, vcode, current_vcode: ownCode }), 'CAPTCHA_INCORRECT');
    expectError(await one.put('/accounts/me/email', { email: target, vcode, current_vcode: vcode }), 'CAPTCHA_INCORRECT');

    for (const c of [one, two]) expect((await c.get('/accounts/me')).body).toMatchObject({ id: account.id, email: address });
    expect((await one.get(`/accounts/exists?email=${target}`)).body).toEqual({ exists: false });
    expect(await mailsTo(address)).toHaveLength(2); // the two sign-in codes only, no notice
  });

  it('refuses a wrong code for the new address even with the right current code', async () => {
    const { address, one } = await registeredOnTwoDevices();
    const next = email('next');
    const current_vcode = await sendCode(one, address);
    const vcode = await sendCode(one, next);
    const wrong = vcode === '000000' ? '111111' : '000000';
    expectError(await one.put('/accounts/me/email', { email: next, vcode: wrong, current_vcode }), 'CAPTCHA_INCORRECT');
    expect((await one.get('/accounts/me')).body.email).toBe(address);
  });

  it('refuses the email the account already has, and an email another account owns', async () => {
    const { address, one } = await registeredOnTwoDevices();
    const current_vcode = await sendCode(one, address);
    expect(
      expectError(
        await one.put('/accounts/me/email', { email: address, vcode: current_vcode, current_vcode }),
        'VALIDATION_FAILED',
      ).message,
    ).toContain('email');
    const other = new Client(t.url);
    const taken = email('taken');
    await signIn(other, t.outbox, taken);
    const vcode = await sendCode(one, taken);
    expectError(await one.put('/accounts/me/email', { email: taken, vcode, current_vcode }), 'EMAIL_TAKEN', 409);
    expect((await one.get('/accounts/me')).body.email).toBe(address);
  });

  it('registers an anonymous account in place without current_vcode, ending any copy of its session', async () => {
    const c = new Client(t.url);
    const { sid: oldSid, account } = await c.anonymous();
    const address = email('anon');
    const vcode = await sendCode(c, address);
    const res = await c.put('/accounts/me/email', { email: address, vcode });
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ id: account.id, email: address, anonymous: false });
    expectError(await c.get('/accounts/me', { 'x-sid': oldSid }), 'UNAUTHENTICATED');
    expect(await mailsTo(address)).toHaveLength(1); // its code; nobody else to tell
  });
});
