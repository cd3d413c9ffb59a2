import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, codeFromOutbox, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import sharp from 'sharp';

describe.each(DIALECTS)('accounts and sign-in, happy path (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates an anonymous account with a session cookie and the trial grant', async () => {
    const c = new Client(t.url);
    const res = await c.post('/accounts/anonymous', {
      device: { udid: 'web-happy-1', model: 'Chrome', brand: 'apple', os: 'osx' },
      referrer: 'https://example.org/',
    });
    expect(res.status).toBe(201);
    expect(res.body.account.id).toMatch(/^acc_/);
    expect(res.body.account.anonymous).toBe(true);
    expect(res.body.account.vip.credits).toBe(t.ctx.credits.config.anonymous_trial);
    expect(res.body.sid).toBe(res.body.account.sid);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toContain(`sid=${res.body.sid}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Max-Age=2592000/);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('gives the trial grant only once per device udid', async () => {
    const a = await new Client(t.url).anonymous('web-same-device');
    const b = await new Client(t.url).anonymous('web-same-device');
    expect(a.account.vip.credits).toBe(t.ctx.credits.config.anonymous_trial);
    expect(b.account.vip.credits).toBe(0);
  });

  it('answers /accounts/me through x-sid, the sid cookie and /api/me through a bearer token', async () => {
    const c = new Client(t.url);
    const { sid, account } = await c.anonymous();
    expect((await c.get('/accounts/me')).body.id).toBe(account.id);
    const viaCookie = await c.get('/accounts/me', { cookie: `sid=${sid}` });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.body.id).toBe(account.id);
    const me = await c.get('/api/me', { authorization: `Bearer ${sid}` });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: account.id, email: null, anonymous: true });
  });

  it('registers the anonymous account in place, keeping its credits, and grants the free plan once', async () => {
    const c = new Client(t.url);
    const { account, sid: oldSid } = await c.anonymous();
    const email = `reg-${dialect}@example.com`;
    expect((await c.get(`/accounts/exists?email=${email}`)).body).toEqual({ exists: false });
    expect((await c.post('/verification/email', { email })).body).toEqual({ resend_after: 60 });
    const vcode = await codeFromOutbox(t.outbox, email);
    const res = await c.put('/accounts/me/email', { email, vcode });
    expect(res.status).toBe(200);
    expect(res.body.account.id).toBe(account.id);
    expect(res.body.account.email).toBe(email);
    expect(res.body.account.anonymous).toBe(false);
    const { anonymous_trial, free_plan_grant } = t.ctx.credits.config;
    expect(res.body.account.vip.credits).toBe(anonymous_trial + free_plan_grant);
    // The anonymous session is replaced; the new one works.
    expect((await c.get('/accounts/me', { 'x-sid': oldSid })).status).toBe(401);
    c.sid = res.body.sid;
    expect((await c.get('/accounts/me')).body.email).toBe(email);
    expect((await c.get(`/accounts/exists?email=${email}`)).body).toEqual({ exists: true });
    // Signing in again from another device lands in the same account, with no second grant.
    const other = new Client(t.url);
    await other.anonymous();
    await new Promise((r) => setTimeout(r, 0));
    await t.ctx.db.kysely.deleteFrom('verification_codes').where('email', '=', email).execute();
    const again = await signIn(other, t.outbox, email);
    expect(again.id).toBe(account.id);
    expect(again.vip.credits).toBe(anonymous_trial + free_plan_grant);
  });

  it('signs in to a new email as a new registered account and signs out', async () => {
    const c = new Client(t.url);
    const account = await signIn(c, t.outbox, `new-${dialect}@example.com`);
    expect(account.anonymous).toBe(false);
    expect(account.vip.credits).toBe(t.ctx.credits.config.free_plan_grant);
    expect((await c.delete('/accounts/me/session')).status).toBe(204);
    expect((await c.get('/accounts/me')).status).toBe(401);
  });

  it('updates the profile name and avatar', async () => {
    const c = new Client(t.url);
    await c.anonymous();
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const form = new FormData();
    form.set('type', 'avatar');
    form.set('file', new Blob([png]), 'me.txt');
    const up = await c.post('/uploads', form);
    expect(up.status).toBe(201);
    expect(up.body.id).toMatch(/^file_/);
    const res = await c.put('/accounts/me', { name: '小明 Ming', avatar: up.body.url });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('小明 Ming');
    expect(res.body.avatar).toBe(up.body.url);
    const img = await fetch(new URL(up.body.url, t.url));
    expect(img.headers.get('content-type')).toBe('image/png');
    // Avatars are re-encoded on upload: the same pixels come back, not the same bytes.
    const pixels = async (b: Buffer) => (await sharp(b).ensureAlpha().raw().toBuffer()).toString('hex');
    expect(await pixels(Buffer.from(await img.arrayBuffer()))).toBe(await pixels(png));
  });
});
