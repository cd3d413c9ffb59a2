import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, codeFromOutbox, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { avatarForm, expectError, PNG_1X1 } from '../support/errors.js';

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');
const TABLES = [
  'accounts',
  'devices',
  'sessions',
  'verification_codes',
  'credit_ledger',
  'credit_holds',
  'credit_grants',
  'uploads',
] as const;

describe.each(DIALECTS)('accounts and sign-in, security (%s)', (dialect) => {
  let t: TestApp;
  let n = 0;
  const email = (tag: string) => `${tag}-${++n}-${dialect}@example.com`;

  /** Every stored row of every table, as text. */
  async function everyRow(): Promise<string> {
    const rows = await Promise.all(TABLES.map((table) => t.ctx.db.kysely.selectFrom(table).selectAll().execute()));
    return JSON.stringify(rows);
  }

  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('without a session', () => {
    const form = () => avatarForm(PNG_1X1);
    it.each([
      ['GET', '/accounts/me', undefined],
      ['PUT', '/accounts/me', { name: 'Mallory' }],
      ['PUT', '/accounts/me/email', { email: 'x@example.com', vcode: '123456' }],
      ['DELETE', '/accounts/me/session', undefined],
      ['POST', '/uploads', 'form'],
      ['GET', '/api/me', undefined],
    ] as const)('%s %s answers 401 UNAUTHENTICATED', async (method, url, body) => {
      const res = await new Client(t.url).request(method, url, body === 'form' ? form() : body);
      expectError(res, 'UNAUTHENTICATED', 401);
    });
  });

  it('refuses forged, malformed and hashed-token credentials', async () => {
    const real = await new Client(t.url).anonymous();
    const forged = randomBytes(32).toString('base64url');
    const c = new Client(t.url);
    const attempts: Record<string, string>[] = [
      { 'x-sid': forged },
      { cookie: `sid=${forged}` },
      { authorization: `Bearer ${forged}` },
      { authorization: 'Bearer ' },
      { 'x-sid': 'a'.repeat(2000) },
      { 'x-sid': sha256(real.sid) }, // what the table stores must not work as a token
      { 'x-sid': real.sid.slice(0, -1) },
      { cookie: `sid=${real.sid}x` },
    ];
    for (const headers of attempts) expectError(await c.get('/accounts/me', headers), 'UNAUTHENTICATED', 401);
    for (const headers of attempts)
      expectError(await c.put('/accounts/me', { name: 'Mallory' }, headers), 'UNAUTHENTICATED', 401);
    for (const authorization of [`Bearer ${forged}`, `Bearer ${sha256(real.sid)}`, `Basic ${real.sid}`, real.sid]) {
      expectError(await c.get('/api/me', { authorization }), 'UNAUTHENTICATED', 401);
    }
    expect((await c.get('/accounts/me', { 'x-sid': real.sid })).body.name).toBeNull();
  });

  it('/api/me takes the bearer token only, never x-sid or the cookie', async () => {
    const c = new Client(t.url);
    const { sid, account } = await c.anonymous();
    expectError(await c.get('/api/me', { 'x-sid': sid }), 'UNAUTHENTICATED');
    expectError(await c.get('/api/me', { cookie: `sid=${sid}` }), 'UNAUTHENTICATED');
    const ok = await c.get('/api/me', { authorization: `Bearer ${sid}`, 'x-sid': 'forged' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: account.id, email: null, anonymous: true });
    // A valid x-sid does not rescue a forged bearer token.
    expectError(await c.get('/api/me', { authorization: 'Bearer forged', 'x-sid': sid }), 'UNAUTHENTICATED');
  });

  it('ends a signed-out session everywhere and only that session', async () => {
    const address = email('out');
    const one = new Client(t.url);
    const account = await signIn(one, t.outbox, address);
    const two = new Client(t.url);
    await t.ctx.db.kysely.deleteFrom('verification_codes').where('email', '=', address).execute();
    expect((await signIn(two, t.outbox, address)).id).toBe(account.id);

    const sid = one.sid!;
    const out = await one.delete('/accounts/me/session');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/sid=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/i);
    expectError(await one.get('/accounts/me', { 'x-sid': sid }), 'UNAUTHENTICATED');
    expectError(await one.get('/accounts/me', { cookie: `sid=${sid}` }), 'UNAUTHENTICATED');
    expectError(await one.get('/api/me', { authorization: `Bearer ${sid}` }), 'UNAUTHENTICATED');
    expectError(await one.delete('/accounts/me/session'), 'UNAUTHENTICATED');
    // The same account's other session goes on.
    expect((await two.get('/accounts/me')).body.id).toBe(account.id);
  });

  it('refuses an expired session', async () => {
    const c = new Client(t.url);
    const { sid } = await c.anonymous();
    await t.ctx.db.kysely
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id_hash', '=', sha256(sid))
      .execute();
    expectError(await c.get('/accounts/me'), 'UNAUTHENTICATED');
    expectError(await c.get('/api/me', { authorization: `Bearer ${sid}` }), 'UNAUTHENTICATED');
  });

  it('lets each session see and change only its own account', async () => {
    const a = new Client(t.url);
    const b = new Client(t.url);
    const accA = (await a.anonymous()).account;
    const accB = (await b.anonymous()).account;
    expect((await a.put('/accounts/me', { name: 'Alice' })).body.id).toBe(accA.id);
    expect((await b.put('/accounts/me', { name: 'Bob' })).body.id).toBe(accB.id);
    const upA = await a.post('/uploads', avatarForm(PNG_1X1));
    expectError(await b.put('/accounts/me', { avatar: upA.body.url }), 'VALIDATION_FAILED');

    const meA = await a.get('/accounts/me');
    const meB = await b.get('/accounts/me');
    expect(meA.body).toMatchObject({ id: accA.id, name: 'Alice', avatar: null, sid: a.sid });
    expect(meB.body).toMatchObject({ id: accB.id, name: 'Bob', avatar: null, sid: b.sid });
    expect(JSON.stringify(meB.body)).not.toContain(a.sid!);
    expect((await b.get('/api/me', { authorization: `Bearer ${b.sid}` })).body.id).toBe(accB.id);
    // With two credentials, the x-sid header decides; the cookie's account is not touched.
    const both = await b.put('/accounts/me', { name: 'Bobby' }, { 'x-sid': b.sid!, cookie: `sid=${a.sid}` });
    expect(both.body.id).toBe(accB.id);
    expect((await a.get('/accounts/me')).body.name).toBe('Alice');
    // B signing out leaves A signed in.
    expect((await b.delete('/accounts/me/session')).status).toBe(204);
    expect((await a.get('/accounts/me')).status).toBe(200);
  });

  it('stores codes only as keyed hashes', async () => {
    const c = new Client(t.url);
    const address = email('hash');
    expect((await c.post('/verification/email', { email: address })).status).toBe(200);
    const code = await codeFromOutbox(t.outbox, address);
    const rows = await t.ctx.db.kysely.selectFrom('verification_codes').selectAll().where('email', '=', address).execute();
    expect(rows).toHaveLength(1);
    const { code_hash, ...rest } = rows[0]!;
    expect(JSON.stringify(rest)).not.toContain(code);
    expect(code_hash).toMatch(/^[0-9a-f]{64}$/);
    // Not a bare hash, which a leaked table would give away by trying a million codes.
    expect([sha256(code), sha256(`${address}:${code}`), sha256(`${code}:${address}`)]).not.toContain(code_hash);
    expect((await c.post('/auth/email', { email: address, vcode: code })).status).toBe(200);
  });

  it('stores sessions only as hashes', async () => {
    const anon = new Client(t.url);
    const { sid: anonSid } = await anon.anonymous();
    const signedIn = new Client(t.url);
    await signIn(signedIn, t.outbox, email('sess'));
    const dump = await everyRow();
    for (const sid of [anonSid, signedIn.sid!]) {
      expect(dump).not.toContain(sid);
      expect(dump).toContain(sha256(sid));
    }
  });

  it('revokes the anonymous sid once the account is registered, however it is presented', async () => {
    const c = new Client(t.url);
    const { sid: oldSid, account } = await c.anonymous();
    const address = email('reg');
    expect((await c.post('/verification/email', { email: address })).status).toBe(200);
    const res = await c.put('/accounts/me/email', { email: address, vcode: await codeFromOutbox(t.outbox, address) });
    expect(res.status).toBe(200);
    expect(res.body.sid).not.toBe(oldSid);
    expect(res.headers.get('set-cookie')).toContain(`sid=${res.body.sid}`);
    expectError(await c.get('/accounts/me', { 'x-sid': oldSid }), 'UNAUTHENTICATED');
    expectError(await c.get('/accounts/me', { cookie: `sid=${oldSid}` }), 'UNAUTHENTICATED');
    expectError(await c.get('/api/me', { authorization: `Bearer ${oldSid}` }), 'UNAUTHENTICATED');
    expectError(await c.put('/accounts/me', { name: 'x' }, { 'x-sid': oldSid }), 'UNAUTHENTICATED');
    const me = await c.get('/api/me', { authorization: `Bearer ${res.body.sid}` });
    expect(me.body).toEqual({ id: account.id, email: address, anonymous: false });
  });
});
