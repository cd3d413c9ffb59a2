import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_MESSAGES, errorMessage, LIMITS } from '@polyvox/contracts';
import { Client, codeFromOutbox, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { avatarForm, expectError, expectRetryAfter, PNG_1X1, pngOfSize } from '../support/errors.js';

const DEVICE = { udid: 'web-err', model: 'Chrome', brand: 'other', os: 'other' };
const MB2 = LIMITS.avatarMaxBytes; // 2 MB: 2,000,000 bytes

describe.each(DIALECTS)('accounts and sign-in, errors (%s)', (dialect) => {
  let t: TestApp;
  let n = 0;
  const email = (tag: string) => `${tag}-${++n}-${dialect}@example.com`;
  const wrongCode = (code: string) => (code === '000000' ? '111111' : '000000');

  /** Lets a new code be sent to `address` at once, as if the last one were two minutes old. */
  const endCooldown = (address: string) =>
    t.ctx.db.kysely
      .updateTable('verification_codes')
      .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
      .where('email', '=', address)
      .execute();

  async function sendCode(c: Client, address: string): Promise<string> {
    const res = await c.post('/verification/email', { email: address });
    expect(res.status).toBe(200);
    return codeFromOutbox(t.outbox, address);
  }

  beforeAll(async () => {
    // One client IP sends every request here: lift the per-IP limits, tested on their own below.
    t = await startTestApp(dialect, { env: { CODE_LIMIT_PER_IP_HOUR: '10000', SIGN_IN_LIMIT_PER_IP_MINUTE: '10000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /accounts/anonymous', () => {
    it.each([
      ['device.os', { ...DEVICE, os: 'linux' }],
      ['device.brand', { ...DEVICE, brand: 'nokia' }],
      ['device.udid', { ...DEVICE, udid: '' }],
    ])('rejects a bad %s with VALIDATION_FAILED naming the field', async (field, device) => {
      const res = await new Client(t.url).post('/accounts/anonymous', { device });
      expect(expectError(res, 'VALIDATION_FAILED').message).toContain(field);
    });

    it.each([
      ['no device', { channel: 'def_web' }],
      ['no device.udid', { device: { model: 'x', brand: 'apple', os: 'ios' } }],
      ['no device.os', { device: { udid: 'u', model: 'x', brand: 'apple' } }],
    ])('answers PARAMETERS_NEEDED for %s', async (_label, body) => {
      expectError(await new Client(t.url).post('/accounts/anonymous', body), 'PARAMETERS_NEEDED');
    });

    it('answers PARAMETERS_NEEDED without a body, and a non-object device is VALIDATION_FAILED', async () => {
      expectError(await new Client(t.url).post('/accounts/anonymous'), 'PARAMETERS_NEEDED');
      const res = await new Client(t.url).post('/accounts/anonymous', { device: 'iphone' });
      expect(expectError(res, 'VALIDATION_FAILED').message).toContain('device');
    });
  });

  describe('email checks', () => {
    it('answers EMAIL_REQUIRED for an empty email', async () => {
      const c = new Client(t.url);
      expectError(await c.get('/accounts/exists?email='), 'EMAIL_REQUIRED');
      expectError(await c.get('/accounts/exists'), 'EMAIL_REQUIRED');
      expectError(await c.post('/verification/email', { email: '' }), 'EMAIL_REQUIRED');
      expectError(await c.post('/verification/email', { email: '   ' }), 'EMAIL_REQUIRED');
      expectError(await c.post('/verification/email', {}), 'EMAIL_REQUIRED');
    });

    it.each(['not-an-email', 'a@b', 'a b@example.com', '@example.com', 'a@@example.com'])(
      'answers 406 EMAIL_FORMAT for %j on every route',
      async (bad) => {
        const c = new Client(t.url);
        expectError(await c.get(`/accounts/exists?email=${encodeURIComponent(bad)}`), 'EMAIL_FORMAT', 406);
        expectError(await c.post('/verification/email', { email: bad }), 'EMAIL_FORMAT', 406);
        expectError(await c.post('/auth/email', { email: bad, vcode: '123456' }), 'EMAIL_FORMAT', 406);
      },
    );
  });

  describe('one-time codes', () => {
    it('refuses a second code within 60 s with CODE_COOLDOWN and retry-after, whatever the case of the email', async () => {
      const c = new Client(t.url);
      const address = email('cool');
      await sendCode(c, address);
      const res = await c.post('/verification/email', { email: ` ${address.toUpperCase()} ` });
      const { message } = expectError(res, 'CODE_COOLDOWN', 429);
      const seconds = expectRetryAfter(res, 1, 60);
      expect(message).toBe(errorMessage('CODE_COOLDOWN', 'en', { seconds }));
      // Another email is not held back.
      expect((await c.post('/verification/email', { email: email('cool-other') })).status).toBe(200);
    });

    it('answers PARAMETERS_NEEDED when email or vcode is missing', async () => {
      const c = new Client(t.url);
      expectError(await c.post('/auth/email', { email: email('p') }), 'PARAMETERS_NEEDED');
      expectError(await c.post('/auth/email', { email: email('p'), vcode: '  ' }), 'PARAMETERS_NEEDED');
      expectError(await c.post('/auth/email', { vcode: '123456' }), 'PARAMETERS_NEEDED');
      await c.anonymous();
      expectError(await c.put('/accounts/me/email', { email: email('p') }), 'PARAMETERS_NEEDED');
      expectError(await c.put('/accounts/me/email', { vcode: '123456' }), 'PARAMETERS_NEEDED');
    });

    it("answers 403 CAPTCHA_INCORRECT for a wrong code, no code, or another email's code", async () => {
      const c = new Client(t.url);
      const address = email('wrong');
      const code = await sendCode(c, address);
      expectError(await c.post('/auth/email', { email: address, vcode: wrongCode(code) }), 'CAPTCHA_INCORRECT', 403);
      expectError(await c.post('/auth/email', { email: address, vcode: 'abcdef' }), 'CAPTCHA_INCORRECT', 403);
      expectError(await c.post('/auth/email', { email: email('never-sent'), vcode: code }), 'CAPTCHA_INCORRECT', 403);
      // Wrong tries below the limit leave the code usable.
      expect((await c.post('/auth/email', { email: address, vcode: code })).status).toBe(200);
    });

    it('accepts the right code after 4 wrong tries but spends it on the 5th', async () => {
      const c = new Client(t.url);
      const address = email('tries');
      const code = await sendCode(c, address);
      for (let i = 0; i < 5; i++) {
        expectError(await c.post('/auth/email', { email: address, vcode: wrongCode(code) }), 'CAPTCHA_INCORRECT');
      }
      expectError(await c.post('/auth/email', { email: address, vcode: code }), 'CAPTCHA_INCORRECT');
      const four = email('tries4');
      const code4 = await sendCode(c, four);
      for (let i = 0; i < 4; i++) await c.post('/auth/email', { email: four, vcode: wrongCode(code4) });
      expect((await c.post('/auth/email', { email: four, vcode: code4 })).status).toBe(200);
    });

    it('counts every one of many concurrent wrong tries', async () => {
      const c = new Client(t.url);
      const address = email('race');
      const code = await sendCode(c, address);
      const wrongTries = (count: number) =>
        Promise.all(Array.from({ length: count }, () => c.post('/auth/email', { email: address, vcode: wrongCode(code) })));
      const row = () =>
        t.ctx.db.kysely
          .selectFrom('verification_codes')
          .select(['attempts', 'consumed_at'])
          .where('email', '=', address)
          .executeTakeFirstOrThrow();
      for (const res of await wrongTries(4)) expectError(res, 'CAPTCHA_INCORRECT');
      expect(await row()).toEqual({ attempts: 4, consumed_at: null });
      for (const res of await wrongTries(6)) expectError(res, 'CAPTCHA_INCORRECT');
      expect((await row()).consumed_at).not.toBeNull();
      expectError(await c.post('/auth/email', { email: address, vcode: code }), 'CAPTCHA_INCORRECT');
    });

    it('lets a code be used once only, even by two requests at the same moment', async () => {
      const c = new Client(t.url);
      const address = email('once');
      const code = await sendCode(c, address);
      const both = await Promise.all([0, 1].map(() => c.post('/auth/email', { email: address, vcode: code })));
      expect(both.map((r) => r.status).sort()).toEqual([200, 403]);
      expectError(await c.post('/auth/email', { email: address, vcode: code }), 'CAPTCHA_INCORRECT');
    });

    it('refuses an expired code', async () => {
      const c = new Client(t.url);
      const address = email('expired');
      const code = await sendCode(c, address);
      await t.ctx.db.kysely
        .updateTable('verification_codes')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('email', '=', address)
        .execute();
      expectError(await c.post('/auth/email', { email: address, vcode: code }), 'CAPTCHA_INCORRECT', 403);
    });

    it('replaces an earlier code with a newer one', async () => {
      const c = new Client(t.url);
      const address = email('newer');
      const first = await sendCode(c, address);
      await endCooldown(address);
      const second = await sendCode(c, address);
      if (first !== second) expectError(await c.post('/auth/email', { email: address, vcode: first }), 'CAPTCHA_INCORRECT');
      expect((await c.post('/auth/email', { email: address, vcode: second })).status).toBe(200);
    });
  });

  it('refuses to register an anonymous account under an email another account owns (409), leaving it as it was', async () => {
    const owner = new Client(t.url);
    const taken = email('taken');
    const ownerAccount = await signIn(owner, t.outbox, taken);
    const c = new Client(t.url);
    const before = (await c.anonymous()).account;
    await endCooldown(taken);
    const vcode = await sendCode(c, taken);
    expectError(await c.put('/accounts/me/email', { email: taken.toUpperCase(), vcode }), 'EMAIL_TAKEN', 409);
    const after = await c.get('/accounts/me');
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ id: before.id, email: null, anonymous: true, vip: { credits: before.vip.credits } });
    const ownerNow = await owner.get('/accounts/me');
    expect(ownerNow.body).toMatchObject({ id: ownerAccount.id, email: taken, anonymous: false });
  });

  describe('profile', () => {
    it.each([
      'fuck',
      'FuCk',
      'f u c k',
      'f.u.c.k',
      'Mr_Shit',
      'ｆｕｃｋ',
      'fu\u200bck',
      'heil-hitler',
      'Polyvox Official',
      '傻逼',
      '傻 逼',
      '我是管理员',
      '操你妈',
      '操你媽',
      '幹你娘',
      '管・理・員',
      '官方客服',
      'fuck you',
      'fúck',
      'admin',
      '4dm1n',
      'аdmіn',
      'Polyvox官方',
      'Polyvox fan',
      '法轮功',
      '习近平',
    ])('refuses the name %j with 422 SENSITIVE_WORDS and keeps the old name', async (name) => {
      const c = new Client(t.url);
      await c.anonymous();
      expect((await c.put('/accounts/me', { name: 'Ming' })).status).toBe(200);
      expectError(await c.put('/accounts/me', { name }), 'SENSITIVE_WORDS', 422);
      expect((await c.get('/accounts/me')).body.name).toBe('Ming');
    });

    it('accepts names that only look close to a listed word or to a comment of the list', async () => {
      const c = new Client(t.url);
      await c.anonymous();
      for (const name of ['English', '简体中文', '小明', '李明', 'Scunthorpe', 'Dickens', 'Alexander', 'Adminah', '妈妈的声音']) {
        const res = await c.put('/accounts/me', { name });
        expect(res.status, name).toBe(200);
        expect(res.body.name).toBe(name);
      }
    });

    it.each([
      ['en', /sensitive words/],
      ['zh-CN', /敏感词/],
      ['zh-TW', /敏感詞/],
    ] as const)('says why a name is refused in the request language (%s)', async (lang, message) => {
      const c = new Client(t.url, lang);
      await c.anonymous();
      expect(expectError(await c.put('/accounts/me', { name: '4dm1n' }), 'SENSITIVE_WORDS', 422).message).toMatch(message);
    });

    it('sniffs avatars: a text file named .png is 415, over 2 MB is 413, exactly 2 MB passes', async () => {
      const c = new Client(t.url);
      await c.anonymous();
      expectError(await c.post('/uploads', avatarForm('just some text, not an image')), 'UNSUPPORTED_FILE_TYPE', 415);
      expectError(await c.post('/uploads', avatarForm('%PDF-1.4\n%…', { filename: 'a.pdf' })), 'UNSUPPORTED_FILE_TYPE', 415);
      expectError(await c.post('/uploads', avatarForm(pngOfSize(MB2 + 1))), 'FILE_TOO_LARGE', 413);
      expectError(await c.post('/uploads', avatarForm(pngOfSize(5 * MB2))), 'FILE_TOO_LARGE', 413);
      expect((await c.post('/uploads', avatarForm(pngOfSize(MB2)))).status).toBe(201);
    });

    it('needs the type=avatar field, a file part, and a multipart body', async () => {
      const c = new Client(t.url);
      await c.anonymous();
      expect(expectError(await c.post('/uploads', avatarForm(PNG_1X1, { type: null })), 'VALIDATION_FAILED').message).toContain(
        'type',
      );
      expect(
        expectError(await c.post('/uploads', avatarForm(PNG_1X1, { type: 'voice' })), 'VALIDATION_FAILED').message,
      ).toContain('type');
      const noFile = new FormData();
      noFile.set('type', 'avatar');
      expectError(await c.post('/uploads', noFile), 'PARAMETERS_NEEDED');
      expectError(await c.post('/uploads', { file: 'x' }), 'UNSUPPORTED_FILE_TYPE', 415);
    });

    it("refuses an avatar URL that is not the account's own upload", async () => {
      const a = new Client(t.url);
      await a.anonymous();
      const up = await a.post('/uploads', avatarForm(PNG_1X1));
      expect(up.status).toBe(201);
      const b = new Client(t.url);
      await b.anonymous();
      for (const avatar of [up.body.url, 'https://evil.example/a.png', '/files/file_missing', `/files/../${up.body.id}`]) {
        expect(expectError(await b.put('/accounts/me', { avatar }), 'VALIDATION_FAILED').message).toContain('avatar');
      }
      expect((await b.get('/accounts/me')).body.avatar).toBeNull();
    });
  });

  describe('localized messages', () => {
    const bad = '/accounts/exists?email=nope';
    it.each([
      ['?lang=zh-CN', {}, 'zh-CN'],
      ['?lang=zh-TW', {}, 'zh-TW'],
      ['?lang=en', { 'accept-language': 'zh-CN' }, 'en'],
      ['', { 'accept-language': 'zh-TW,zh;q=0.9' }, 'zh-TW'],
      ['', { 'accept-language': 'fr-FR, zh-CN;q=0.8' }, 'zh-CN'],
      ['?lang=fr', {}, 'en'],
      ['', { 'accept-language': 'fr, de;q=0.5' }, 'en'],
      ['', {}, 'en'],
    ] as const)('%s %j answers in %s', async (query, headers, locale) => {
      const res = await new Client(t.url).get(`${bad}${query ? `&${query.slice(1)}` : ''}`, headers);
      expect(expectError(res, 'EMAIL_FORMAT').message).toBe(ERROR_MESSAGES[locale].EMAIL_FORMAT);
    });

    it('fills placeholders and localizes every kind of error', async () => {
      const tw = new Client(t.url, 'zh-TW');
      const address = email('l10n');
      expect((await tw.post('/verification/email', { email: address })).status).toBe(200);
      const res = await tw.post('/verification/email', { email: address });
      const seconds = expectRetryAfter(res, 1, 60);
      expect(expectError(res, 'CODE_COOLDOWN').message).toBe(errorMessage('CODE_COOLDOWN', 'zh-TW', { seconds }));
      const cn = new Client(t.url, 'zh-CN');
      expect(expectError(await cn.get('/nowhere'), 'NOT_FOUND').message).toBe(ERROR_MESSAGES['zh-CN'].NOT_FOUND);
      expect(expectError(await cn.get('/accounts/me'), 'UNAUTHENTICATED').message).toBe(ERROR_MESSAGES['zh-CN'].UNAUTHENTICATED);
      const invalid = expectError(
        await cn.post('/accounts/anonymous', { device: { ...DEVICE, os: 'linux' } }),
        'VALIDATION_FAILED',
      );
      // The rule too is in Chinese, worded from the schema's constraint, never zod's English.
      expect(invalid.message).toMatch(/^device\.os 的值无效：须为以下之一：android, ios/);
      expect(invalid.message).not.toMatch(/[Ii]nvalid|expected/);
    });
  });

  describe('framework errors', () => {
    it('answers 404 NOT_FOUND for an unknown route or method', async () => {
      const c = new Client(t.url);
      expectError(await c.get('/no/such/route'), 'NOT_FOUND', 404);
      expectError(await c.post('/accounts/nope', { a: 1 }), 'NOT_FOUND', 404);
      expectError(await c.delete('/accounts/anonymous'), 'NOT_FOUND', 404);
      expectError(await c.get('/files/file_does_not_exist'), 'NOT_FOUND', 404);
    });

    it('keeps the error shape and x-request-id for malformed URLs and over-long path parameters', async () => {
      const c = new Client(t.url);
      expectError(await c.get('/files/%E0%A4%A'), 'VALIDATION_FAILED', 400);
      expectError(await c.get(`/files/${'a'.repeat(300)}`), 'VALIDATION_FAILED', 400);
    });

    it('answers 400 for invalid JSON and an empty JSON body, 413 for a body over 1 MB', async () => {
      const fetchJson = async (body: string) => {
        const res = await fetch(`${t.url}/verification/email`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
      };
      expectError(await fetchJson('{"email": '), 'VALIDATION_FAILED', 400);
      expectError(await fetchJson('not json'), 'VALIDATION_FAILED', 400);
      expectError(await fetchJson(''), 'PARAMETERS_NEEDED', 400);
      expectError(await fetchJson(JSON.stringify({ email: 'a'.repeat(1024 * 1024 + 10) })), 'FILE_TOO_LARGE', 413);
    });
  });

  it('answers 500 INTERNAL without internals when mail fails, and lets the code be asked again at once', async () => {
    let fail = true;
    const sent: string[] = [];
    const app = await startTestApp(dialect, {
      mailer: {
        send: async (m) => {
          if (fail) throw new Error('SMTP 535 auth failed for user polyvox password hunter2 at /srv/secret.js:12');
          sent.push(m.text);
        },
        close: () => undefined,
      },
    });
    try {
      const c = new Client(app.url);
      const address = email('mailfail');
      const res = await c.post('/verification/email', { email: address });
      const { message } = expectError(res, 'INTERNAL', 500);
      expect(message).toBe('Something went wrong, please try again later');
      expect(JSON.stringify(res.body)).not.toMatch(/hunter2|SMTP|secret|stack|\.js/);
      fail = false;
      expect((await c.post('/verification/email', { email: address })).status).toBe(200);
      expect(sent).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('rate-limits codes per IP and per email, and code checks per IP, with RATE_LIMITED and retry-after', async () => {
    const app = await startTestApp(dialect, {
      env: { CODE_LIMIT_PER_IP_HOUR: '3', CODE_LIMIT_PER_EMAIL_DAY: '1', SIGN_IN_LIMIT_PER_IP_MINUTE: '2' },
    });
    try {
      const c = new Client(app.url);
      const first = email('rl');
      expect((await c.post('/verification/email', { email: first })).status).toBe(200);
      await app.ctx.db.kysely
        .updateTable('verification_codes')
        .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
        .execute();
      // Past the cooldown, the same email is over its daily limit (the IP's count is now 2).
      let res = await c.post('/verification/email', { email: first });
      expectError(res, 'RATE_LIMITED', 429);
      expectRetryAfter(res, 1, 86_400);
      expect((await c.post('/verification/email', { email: email('rl') })).status).toBe(200);
      res = await c.post('/verification/email', { email: email('rl') });
      expect(expectError(res, 'RATE_LIMITED', 429).message).toBe(
        errorMessage('RATE_LIMITED', 'en', { seconds: expectRetryAfter(res, 1, 3600) }),
      );
      const code = await codeFromOutbox(app.outbox, first);
      for (let i = 0; i < 2; i++)
        expectError(await c.post('/auth/email', { email: first, vcode: wrongCode(code) }), 'CAPTCHA_INCORRECT');
      res = await c.post('/auth/email', { email: first, vcode: code });
      expectError(res, 'RATE_LIMITED', 429);
      expectRetryAfter(res, 1, 60);
    } finally {
      await app.close();
    }
  });
});
