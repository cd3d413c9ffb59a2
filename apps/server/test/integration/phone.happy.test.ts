import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { codeFromSms, smsIn } from '../support/sms-outbox.js';

describe.each(DIALECTS)('phone sign-in, binding and changing a number (%s)', (dialect) => {
  let t: TestApp;
  let sms: string;
  let n = 0;
  /** A distinct mainland mobile number per call: national form and E.164. */
  const number = () => {
    const national = `139${String(dialect === 'sqlite' ? 10_000_000 + ++n : 20_000_000 + ++n)}`;
    return { national, e164: `+86${national}` };
  };
  const endCooldown = (key: string) =>
    t.ctx.db.kysely
      .updateTable('verification_codes')
      .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
      .where('email', '=', key)
      .execute();

  async function textCode(c: Client, mobile: string, e164: string): Promise<string> {
    await endCooldown(e164);
    const res = await c.post('/verification/mobile', { mobile });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ resend_after: 60 });
    return codeFromSms(sms, e164);
  }

  beforeAll(async () => {
    t = await startTestApp(dialect, {
      env: { SMS_LIMIT_PER_IP_HOUR: '10000', SMS_FREE_PER_IP_DAY: '10000', SIGN_IN_LIMIT_PER_IP_MINUTE: '10000' },
    });
    sms = path.join(t.dataDir, 'sms');
  });
  afterAll(async () => {
    await t.close();
  });

  it('texts a code in the request language, signs in by it, registering the anonymous account in place', async () => {
    const { national, e164 } = number();
    const cn = new Client(t.url, 'zh-CN');
    const anon = await cn.anonymous();
    // National form reads as a mainland number in zh-CN; E.164 everywhere.
    expect((await cn.get(`/accounts/exists?mobile=${national}`)).body).toEqual({ exists: false });
    const vcode = await textCode(cn, national.replace(/(\d{3})(\d{4})(\d{4})/, '$1 $2 $3'), e164);
    const texts = (await smsIn(sms)).filter((m) => m.to === e164);
    expect(texts).toHaveLength(1);
    expect(texts[0]!.text).toContain('验证码');

    expectError(
      await cn.post('/auth/sms', { mobile: e164, vcode: vcode === '000000' ? '111111' : '000000' }),
      'CAPTCHA_INCORRECT',
    );
    const res = await cn.post('/auth/sms', { mobile: e164, vcode });
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ id: anon.account.id, mobile: e164, anonymous: false, binds: ['mobile'] });
    expect(res.body.sid).not.toBe(anon.sid);
    // Registration in place ends the anonymous session; the code is spent.
    expectError(await cn.get('/accounts/me'), 'UNAUTHENTICATED');
    expectError(await cn.post('/auth/sms', { mobile: e164, vcode }), 'CAPTCHA_INCORRECT');
    expect((await new Client(t.url).get(`/accounts/exists?mobile=${encodeURIComponent(e164)}`)).body).toEqual({ exists: true });

    // Another device signs in to the same account with the number.
    const other = new Client(t.url, 'en');
    const again = await other.post('/auth/sms', { mobile: e164, vcode: await textCode(other, e164, e164) });
    expect(again.status).toBe(200);
    expect(again.body.account.id).toBe(anon.account.id);
    expect((await smsIn(sms)).filter((m) => m.to === e164).at(-1)!.text).toContain('sign-in code');

    // Without a session, a number nobody owns makes a new registered account.
    const fresh = number();
    const stranger = new Client(t.url, 'zh-CN');
    const made = await stranger.post('/auth/sms', {
      mobile: fresh.national,
      vcode: await textCode(stranger, fresh.national, fresh.e164),
    });
    expect(made.status).toBe(200);
    expect(made.body.account).toMatchObject({ mobile: fresh.e164, anonymous: false });
    expect(made.body.account.vip.credits).toBeGreaterThan(0);
  });

  it('refuses malformed numbers with PHONE_FORMAT in the user language', async () => {
    const cn = new Client(t.url, 'zh-CN');
    const en = new Client(t.url, 'en');
    const tw = new Client(t.url, 'zh-TW');
    expect(expectError(await cn.post('/verification/mobile', { mobile: '12345' }), 'PHONE_FORMAT').message).toBe(
      '手机号格式不正确，请重新输入',
    );
    expect(expectError(await tw.post('/verification/mobile', { mobile: '+86 1380013' }), 'PHONE_FORMAT').message).toBe(
      '手機號碼格式不正確，請重新輸入',
    );
    // A national number without a region in English: no default region, so no way to read it.
    expectError(await en.post('/verification/mobile', { mobile: '13800138000' }), 'PHONE_FORMAT');
    expect(expectError(await en.get('/accounts/exists?mobile=abc'), 'PHONE_FORMAT').message).toBe(
      'The phone number format is incorrect, please re-enter',
    );
    // A landline cannot take a code.
    expectError(await cn.post('/verification/mobile', { mobile: '010 6552 9988' }), 'PHONE_FORMAT');
    expectError(await en.post('/verification/mobile', {}), 'PARAMETERS_NEEDED');
    // With a region, a national number of that region.
    const res = await en.post('/verification/mobile', { mobile: '(201) 555-0123', region: 'US' });
    expect(res.status).toBe(200);
    expect((await smsIn(sms)).some((m) => m.to === '+12015550123')).toBe(true);
  });

  it('binds a number to an email account and changes it with codes to both numbers; another account number is PHONE_TAKEN', async () => {
    const c = new Client(t.url, 'en');
    const account = await signIn(c, t.outbox, `phone-bind-${dialect}@example.com`);
    const first = number();
    const bound = await c.put('/accounts/me/mobile', { mobile: first.e164, vcode: await textCode(c, first.e164, first.e164) });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    expect(bound.body).toMatchObject({ id: account.id, mobile: first.e164, binds: ['email', 'mobile'] });

    // Changing needs the current number's code too.
    const second = number();
    const vcode = await textCode(c, second.e164, second.e164);
    expectError(await c.put('/accounts/me/mobile', { mobile: second.e164, vcode }), 'PARAMETERS_NEEDED');
    expectError(await c.put('/accounts/me/mobile', { mobile: second.e164, vcode, current_vcode: '000000' }), 'CAPTCHA_INCORRECT');
    const current_vcode = await textCode(c, first.e164, first.e164);
    const vcode2 = await textCode(c, second.e164, second.e164);
    const changed = await c.put('/accounts/me/mobile', { mobile: second.e164, vcode: vcode2, current_vcode });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.mobile).toBe(second.e164);
    expect((await c.get(`/accounts/exists?mobile=${encodeURIComponent(first.e164)}`)).body).toEqual({ exists: false });

    // A number another account holds: refused after the codes.
    const other = new Client(t.url, 'zh-CN');
    await signIn(other, t.outbox, `phone-other-${dialect}@example.com`);
    const taken = await other.put('/accounts/me/mobile', {
      mobile: second.e164,
      vcode: await textCode(other, second.e164, second.e164),
    });
    expect(expectError(taken, 'PHONE_TAKEN').message).toBe('该手机号已属于其他账户');
  });

  it('REAL_NAME=phone: cloning, designing, API keys and buying need a verified number; anonymous trial synthesis still works', async () => {
    const c = new Client(t.url, 'zh-CN');
    await signIn(c, t.outbox, `real-name-${dialect}@example.com`);
    const made = await c.put('/api/authorization', { name: 'before' });
    expect(made.status).toBe(201);
    const key = made.body.key as string;
    await t.ctx.settings.update({ REAL_NAME: 'phone' }, 'test');
    await t.ctx.settings.refresh();
    try {
      const refused = expectError(await c.put('/api/authorization', { name: 'after' }), 'REAL_NAME_REQUIRED');
      expect(refused.message).toContain('手机号');
      expectError(await c.post('/accounts/me/orders', { product: 'credits_100k' }), 'REAL_NAME_REQUIRED');
      const form = new FormData();
      form.set('consent', 'true');
      form.set('file', new Blob([new Uint8Array(64)]), 'me.wav');
      expectError(await c.post('/files_upload?type=clone', form), 'REAL_NAME_REQUIRED');
      expectError(await c.put('/voice', { type: 'prompt', name: 'x', preview_id: 'prv_none' }), 'REAL_NAME_REQUIRED');
      // The key made before: refused on every call, saying why.
      const byKey = await new Client(t.url, 'en').get('/api/me', { authorization: `Bearer ${key}` });
      expect(expectError(byKey, 'REAL_NAME_REQUIRED').message).toContain('verified phone number');

      // A visitor still tries an official voice.
      const visitor = new Client(t.url);
      await visitor.anonymous();
      const spoken = await visitor.post('/tts', { text: 'Hello there.', voice_id: 'voice_espeak.en-us' });
      expect(spoken.status).toBe(200);

      // Once a number is bound, all of it works again.
      const { e164 } = number();
      expect((await c.put('/accounts/me/mobile', { mobile: e164, vcode: await textCode(c, e164, e164) })).status).toBe(200);
      expect((await new Client(t.url).get('/api/me', { authorization: `Bearer ${key}` })).status).toBe(200);
      expect((await c.put('/api/authorization', { name: 'after' })).status).toBe(201);
    } finally {
      await t.ctx.settings.update({ REAL_NAME: 'off' }, 'test');
      await t.ctx.settings.refresh();
    }
  });
});
