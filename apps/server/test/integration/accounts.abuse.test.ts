import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, codeFromOutbox } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError, expectRetryAfter } from '../support/errors.js';

/** Requests "from" another client address: the apps here trust X-Forwarded-For (TRUST_PROXY=true). */
const from = (ip: string) => ({ 'x-forwarded-for': ip });
const device = (udid: string) => ({ device: { udid, model: 'Chrome', brand: 'other', os: 'other' } });

describe.each(DIALECTS)('accounts and sign-in, abuse (%s)', (dialect) => {
  let n = 0;
  const email = (tag: string) => `${tag}-${++n}-${dialect}@example.com`;
  const apps: TestApp[] = [];

  async function app(env: Record<string, string>): Promise<TestApp> {
    const t = await startTestApp(dialect, { env: { TRUST_PROXY: 'true', ...env } });
    apps.push(t);
    return t;
  }
  const endCooldown = (t: TestApp, address: string) =>
    t.ctx.db.kysely
      .updateTable('verification_codes')
      .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
      .where('email', '=', address)
      .execute();

  afterAll(async () => {
    await Promise.all(apps.map((t) => t.close()));
  });

  describe('sending codes', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await app({ CODE_LIMIT_PER_EMAIL_DAY: '2', CODE_LIMIT_PER_EMAIL_ALL_DAY: '4', CODE_LIMIT_PER_IP_HOUR: '100' });
    });

    it("does not let a stranger spend the owner's daily codes: the victim, from another address, still signs in", async () => {
      const victim = email('victim');
      const stranger = new Client(t.url);
      for (let i = 0; i < 2; i++) {
        expect((await stranger.post('/verification/email', { email: victim }, from('203.0.113.7'))).status).toBe(200);
        await endCooldown(t, victim);
      }
      const res = await stranger.post('/verification/email', { email: victim }, from('203.0.113.7'));
      expectError(res, 'RATE_LIMITED', 429);
      expectRetryAfter(res, 1, 86_400);

      const owner = new Client(t.url);
      expect((await owner.post('/verification/email', { email: victim }, from('198.51.100.20'))).status).toBe(200);
      const vcode = await codeFromOutbox(t.outbox, victim);
      const signedIn = await owner.post('/auth/email', { email: victim, vcode }, from('198.51.100.20'));
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.account.email).toBe(victim);
    });

    it("keeps the 60 s cooldown per email and requester: a stranger's request does not hold back the owner", async () => {
      const address = email('cool');
      expect((await new Client(t.url).post('/verification/email', { email: address }, from('203.0.113.8'))).status).toBe(200);
      const again = await new Client(t.url).post('/verification/email', { email: address }, from('203.0.113.8'));
      expectError(again, 'CODE_COOLDOWN', 429);
      expectRetryAfter(again, 1, 60);
      const owner = new Client(t.url);
      expect((await owner.post('/verification/email', { email: address }, from('198.51.100.21'))).status).toBe(200);
      const vcode = await codeFromOutbox(t.outbox, address);
      expect((await owner.post('/auth/email', { email: address, vcode }, from('198.51.100.21'))).status).toBe(200);
    });

    it('stops a flood from many addresses at the per-email ceiling', async () => {
      const address = email('flood');
      for (let i = 1; i <= 4; i++) {
        expect((await new Client(t.url).post('/verification/email', { email: address }, from(`192.0.2.${i}`))).status).toBe(200);
        await endCooldown(t, address);
      }
      expectError(await new Client(t.url).post('/verification/email', { email: address }, from('192.0.2.99')), 'RATE_LIMITED');
    });
  });

  it('limits codes per requester address and per account', async () => {
    const t = await app({ CODE_LIMIT_PER_IP_HOUR: '2', CODE_LIMIT_PER_ACCOUNT_HOUR: '3' });
    const c = new Client(t.url);
    for (let i = 0; i < 2; i++)
      expect((await c.post('/verification/email', { email: email('ip') }, from('203.0.113.9'))).status).toBe(200);
    expectError(await c.post('/verification/email', { email: email('ip') }, from('203.0.113.9')), 'RATE_LIMITED');
    // IPv6 addresses of one /64 are one requester.
    expect((await c.post('/verification/email', { email: email('v6') }, from('2001:db8:1:2::1'))).status).toBe(200);
    expect((await c.post('/verification/email', { email: email('v6') }, from('2001:db8:1:2:ffff::9'))).status).toBe(200);
    expectError(await c.post('/verification/email', { email: email('v6') }, from('2001:db8:1:2::abcd')), 'RATE_LIMITED');
    expect((await c.post('/verification/email', { email: email('v6') }, from('2001:db8:1:3::1'))).status).toBe(200);

    // A session carries its own allowance, wherever its requests come from.
    await c.anonymous();
    for (let i = 1; i <= 3; i++) {
      expect((await c.post('/verification/email', { email: email('acct') }, from(`10.1.0.${i}`))).status).toBe(200);
    }
    const res = await c.post('/verification/email', { email: email('acct') }, from('10.1.0.4'));
    expectError(res, 'RATE_LIMITED');
    expectRetryAfter(res, 1, 3600);
    expect((await new Client(t.url).post('/verification/email', { email: email('acct') }, from('10.1.0.4'))).status).toBe(200);
  });

  describe('anonymous accounts and the trial grant', () => {
    it('limits account creation per requester address with RATE_LIMITED and retry-after', async () => {
      const t = await app({ ACCOUNT_LIMIT_PER_IP_HOUR: '3' });
      for (let i = 0; i < 3; i++) {
        expect((await new Client(t.url).post('/accounts/anonymous', device(`web-rl-${i}`), from('203.0.113.10'))).status).toBe(
          201,
        );
      }
      const res = await new Client(t.url).post('/accounts/anonymous', device('web-rl-x'), from('203.0.113.10'));
      expectError(res, 'RATE_LIMITED', 429);
      expectRetryAfter(res, 1, 3600);
      expect((await new Client(t.url).post('/accounts/anonymous', device('web-rl-y'), from('203.0.113.11'))).status).toBe(201);
    });

    it('counts the address the proxy saw, not what the client wrote before it in X-Forwarded-For', async () => {
      const t = await app({ ACCOUNT_LIMIT_PER_IP_HOUR: '2' });
      const create = (i: number) =>
        new Client(t.url).post('/accounts/anonymous', device(`web-spoof-${i}`), from(`10.9.0.${i}, 203.0.113.13`));
      expect((await create(1)).status).toBe(201);
      expect((await create(2)).status).toBe(201);
      expectError(await create(3), 'RATE_LIMITED', 429);
    });

    it('gives at most TRIAL_GRANTS_PER_IP_DAY trials to 200 accounts from one address, a new device id each', async () => {
      const t = await app({ TRIAL_GRANTS_PER_IP_DAY: '3', ACCOUNT_LIMIT_PER_IP_HOUR: '1000' });
      const trial = t.ctx.credits.config.anonymous_trial;
      const credits: number[] = [];
      for (let batch = 0; batch < 10; batch++) {
        const replies = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            new Client(t.url).post('/accounts/anonymous', device(`farm-${batch}-${i}`), from('203.0.113.12')),
          ),
        );
        for (const r of replies) {
          expect(r.status).toBe(201);
          credits.push(r.body.account.vip.credits);
        }
      }
      expect(credits.filter((c) => c === trial)).toHaveLength(3);
      expect(credits.filter((c) => c !== trial && c !== 0)).toEqual([]);
      const granted = await t.ctx.db.kysely
        .selectFrom('credit_grants')
        .select('grant_key')
        .where('grant_key', 'like', 'trial:%')
        .execute();
      expect(granted).toHaveLength(3);
      // Another requester still gets its trial.
      const other = await new Client(t.url).post('/accounts/anonymous', device('farm-other'), from('198.51.100.30'));
      expect(other.body.account.vip.credits).toBe(trial);
      // A device that already had its trial gets none again, and does not spend the address's allowance.
      for (let i = 0; i < 3; i++) {
        const again = await new Client(t.url).post('/accounts/anonymous', device('farm-other'), from('198.51.100.31'));
        expect(again.body.account.vip.credits).toBe(0);
      }
      for (let i = 0; i < 3; i++) {
        const fresh = await new Client(t.url).post('/accounts/anonymous', device(`farm-fresh-${i}`), from('198.51.100.31'));
        expect(fresh.body.account.vip.credits).toBe(trial);
      }
    });
  });

  describe('the free plan grant', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await app({ PLAN_GRANTS_PER_IP_DAY: '2' });
    });

    async function register(address: string, ip: string) {
      const c = new Client(t.url);
      await endCooldown(t, address);
      expect((await c.post('/verification/email', { email: address }, from(ip))).status).toBe(200);
      const vcode = await codeFromOutbox(t.outbox, address);
      const res = await c.post('/auth/email', { email: address, vcode }, from(ip));
      expect(res.status).toBe(200);
      return res.body.account;
    }

    it('is given once per mailbox, whatever +tag or Gmail dots the address carries', async () => {
      const grant = t.ctx.credits.config.free_plan_grant;
      expect((await register(`farmer-${dialect}@example.com`, '203.0.113.40')).vip.credits).toBe(grant);
      expect((await register(`farmer-${dialect}+2@example.com`, '203.0.113.41')).vip.credits).toBe(0);
      expect((await register(`f.armer${dialect}@gmail.com`, '203.0.113.42')).vip.credits).toBe(grant);
      expect((await register(`farmer${dialect}+x@googlemail.com`, '203.0.113.43')).vip.credits).toBe(0);
    });

    it('is given at most PLAN_GRANTS_PER_IP_DAY times a day per requester address', async () => {
      const grant = t.ctx.credits.config.free_plan_grant;
      const got = [];
      for (let i = 0; i < 4; i++) got.push((await register(email(`plan${i}`), '203.0.113.50')).vip.credits);
      expect(got).toEqual([grant, grant, 0, 0]);
      expect((await register(email('plan-other'), '203.0.113.51')).vip.credits).toBe(grant);
    });
  });

  it('limits /accounts/exists per requester address, so it cannot list who has an account', async () => {
    const t = await app({ EXISTS_LIMIT_PER_IP_MINUTE: '3' });
    const c = new Client(t.url);
    for (let i = 0; i < 3; i++)
      expect((await c.get(`/accounts/exists?email=${email('who')}`, from('203.0.113.60'))).status).toBe(200);
    const res = await c.get(`/accounts/exists?email=${email('who')}`, from('203.0.113.60'));
    expectError(res, 'RATE_LIMITED', 429);
    expectRetryAfter(res, 1, 60);
    expect((await c.get(`/accounts/exists?email=${email('who')}`, from('203.0.113.61'))).body).toEqual({ exists: false });
  });

  it('answers a wrong code with 403 whether or not the email has an account, so PUT /accounts/me/email is no oracle', async () => {
    const t = await app({});
    const owner = new Client(t.url);
    const taken = email('known');
    expect((await owner.post('/verification/email', { email: taken })).status).toBe(200);
    expect((await owner.post('/auth/email', { email: taken, vcode: await codeFromOutbox(t.outbox, taken) })).status).toBe(200);
    const prober = new Client(t.url);
    await prober.anonymous();
    for (const address of [taken, email('unknown')]) {
      expectError(await prober.put('/accounts/me/email', { email: address, vcode: '123456' }), 'CAPTCHA_INCORRECT', 403);
    }
  });

  describe('addresses that are not one mailbox', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await app({});
    });

    it.each([
      'victim@example.com,x.y',
      'victim@example.com;x.y',
      'victim@example.com>x.y',
      '<victim@example.com>',
      'Victim <victim@example.com>',
      '"victim"@example.com',
      '"a,b"@example.com',
      'victim@example.com, other@example.com',
      'victim@[127.0.0.1]',
      'vic\\tim@example.com',
      'victim@exa_mple.com',
      'victim@-example.com',
      'victim.@example.com',
      '.victim@example.com',
      'vic..tim@example.com',
      'victim@example..com',
      'vïctim@example.com',
      `${'a'.repeat(65)}@example.com`,
      `victim@${'a'.repeat(64)}.com`,
    ])('answers 406 EMAIL_FORMAT for %j on every route and sends nothing', async (bad) => {
      const outbox = () => fs.readdir(t.outbox).catch(() => []);
      const before = await outbox();
      const c = new Client(t.url);
      expectError(await c.get(`/accounts/exists?email=${encodeURIComponent(bad)}`), 'EMAIL_FORMAT', 406);
      expectError(await c.post('/verification/email', { email: bad }), 'EMAIL_FORMAT', 406);
      expectError(await c.post('/auth/email', { email: bad, vcode: '123456' }), 'EMAIL_FORMAT', 406);
      await c.anonymous();
      expectError(await c.put('/accounts/me/email', { email: bad, vcode: '123456' }), 'EMAIL_FORMAT', 406);
      expect(await outbox()).toEqual(before);
    });

    it('mails a code to a valid 252-character address', async () => {
      const local = `${'l'.repeat(60)}${dialect.slice(0, 4)}`;
      const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(51)}.example`;
      const address = `${local}@${domain}`;
      expect(address).toHaveLength(252);
      const c = new Client(t.url);
      expect((await c.post('/verification/email', { email: address })).status).toBe(200);
      const vcode = await codeFromOutbox(t.outbox, address);
      const res = await c.post('/auth/email', { email: address, vcode });
      expect(res.status).toBe(200);
      expect(res.body.account.email).toBe(address);
    });

    it('normalises case and spaces before any lookup, cooldown or limit', async () => {
      const c = new Client(t.url);
      const address = email('norm');
      expect((await c.post('/verification/email', { email: `  ${address.toUpperCase()}\t` })).status).toBe(200);
      expectError(await c.post('/verification/email', { email: address }), 'CODE_COOLDOWN');
      const vcode = await codeFromOutbox(t.outbox, address);
      expect(
        (await c.post('/auth/email', { email: address.replace(/^./, (s) => s.toUpperCase()), vcode })).body.account.email,
      ).toBe(address);
    });
  });

  describe('guessing at codes', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await app({ SIGN_IN_LIMIT_PER_IP_MINUTE: '1000' });
    });
    const wrong = (vcode: string) => (vcode === '000000' ? '111111' : '000000');

    it("does not let a stranger's wrong tries spend the owner's code", async () => {
      const victim = email('guess');
      const owner = new Client(t.url);
      expect((await owner.post('/verification/email', { email: victim }, from('198.51.100.30'))).status).toBe(200);
      const vcode = await codeFromOutbox(t.outbox, victim);
      const stranger = new Client(t.url);
      for (let i = 0; i < 12; i++)
        expectError(
          await stranger.post('/auth/email', { email: victim, vcode: wrong(vcode) }, from('203.0.113.30')),
          'CAPTCHA_INCORRECT',
          403,
        );
      const signedIn = await owner.post('/auth/email', { email: victim, vcode }, from('198.51.100.30'));
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.account.email).toBe(victim);
    });

    it('answers other addresses for five wrong tries at most, so a code meets ten wrong guesses at most', async () => {
      const victim = email('bound');
      const owner = new Client(t.url);
      expect((await owner.post('/verification/email', { email: victim }, from('198.51.100.31'))).status).toBe(200);
      const vcode = await codeFromOutbox(t.outbox, victim);
      for (let i = 0; i < 5; i++)
        expectError(
          await new Client(t.url).post('/auth/email', { email: victim, vcode: wrong(vcode) }, from(`192.0.2.${40 + i}`)),
          'CAPTCHA_INCORRECT',
        );
      // Even the right code no longer works from elsewhere: the guessing budget is spent.
      expectError(await new Client(t.url).post('/auth/email', { email: victim, vcode }, from('192.0.2.60')), 'CAPTCHA_INCORRECT');
      // Yet the owner still signs in from where they asked.
      expect((await owner.post('/auth/email', { email: victim, vcode }, from('198.51.100.31'))).status).toBe(200);
    });

    it('signs in from another address with a code that has foreign tries left (mail read on another device)', async () => {
      const address = email('roam');
      expect((await new Client(t.url).post('/verification/email', { email: address }, from('198.51.100.32'))).status).toBe(200);
      const vcode = await codeFromOutbox(t.outbox, address);
      expect((await new Client(t.url).post('/auth/email', { email: address, vcode }, from('198.51.100.99'))).status).toBe(200);
    });

    it("still spends a code at its requester's fifth wrong try", async () => {
      const address = email('own');
      const c = new Client(t.url);
      expect((await c.post('/verification/email', { email: address }, from('198.51.100.33'))).status).toBe(200);
      const vcode = await codeFromOutbox(t.outbox, address);
      for (let i = 0; i < 5; i++)
        expectError(
          await c.post('/auth/email', { email: address, vcode: wrong(vcode) }, from('198.51.100.33')),
          'CAPTCHA_INCORRECT',
        );
      expectError(await c.post('/auth/email', { email: address, vcode }, from('198.51.100.33')), 'CAPTCHA_INCORRECT');
    });
  });
});
