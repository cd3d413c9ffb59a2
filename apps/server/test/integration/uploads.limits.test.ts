import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { avatarForm, expectError, expectRetryAfter, PNG_1X1 } from '../support/errors.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { newId } from '../../src/platform/ids.js';

const KEEP_HOURS = 2;

async function upload(c: Client): Promise<{ id: string; url: string }> {
  const res = await c.post('/uploads', avatarForm(PNG_1X1));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function until(check: () => Promise<boolean>, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const storage of ['local', 's3'] as const) {
  describe.each(DIALECTS)(`avatar uploads: limits and the sweep (%s, ${storage} storage)`, (dialect) => {
    let t: TestApp;
    let s3: TestS3 | undefined;
    beforeAll(async () => {
      s3 = storage === 's3' ? await startS3Server() : undefined;
      t = await startTestApp(dialect, {
        env: {
          AVATAR_UPLOADS_PER_ACCOUNT_HOUR: '3',
          AVATAR_UPLOADS_PER_IP_HOUR: '5',
          AVATAR_KEEP_HOURS: String(KEEP_HOURS),
          // The sweeper's own rounds are tested in the last case, with a zero grace.
          HOLD_SWEEP_SECONDS: '3600',
        },
        ...(s3 ? { s3: { url: `${s3.url}/p?region=us-east-1` } } : {}),
      });
    });
    afterAll(async () => {
      await t?.close();
      await s3?.close();
    });

    const storedKeys = async () => (await t.ctx.storage.list('avatars')).sort();

    it('limits uploads per account, then per IP, with RATE_LIMITED and retry-after before the body is read', async () => {
      const a = new Client(t.url);
      const accountA = (await a.anonymous()).account.id as string;
      for (let i = 0; i < 3; i++) await upload(a);
      const limited = await a.post('/uploads', avatarForm(PNG_1X1));
      expect(expectError(limited, 'RATE_LIMITED').message).toMatch(/^Too many requests, please try again in [\d,]+ seconds$/);
      expectRetryAfter(limited, 1, 3600);
      const zh = new Client(t.url, 'zh-TW');
      zh.sid = a.sid;
      expect(expectError(await zh.post('/uploads', avatarForm(PNG_1X1)), 'RATE_LIMITED').message).toMatch(/^請求過於頻繁/);
      // Another account from the same IP: two more fill the IP's five, the third is refused.
      const b = new Client(t.url);
      const accountB = (await b.anonymous()).account.id as string;
      await upload(b);
      await upload(b);
      const ipLimited = await b.post('/uploads', avatarForm(PNG_1X1));
      expectError(ipLimited, 'RATE_LIMITED');
      expectRetryAfter(ipLimited, 1, 3600);
      // Refused uploads stored nothing.
      const rows = await t.ctx.db.kysely
        .selectFrom('uploads')
        .select('id')
        .where('account_id', 'in', [accountA, accountB])
        .execute();
      expect(rows).toHaveLength(5);
    });

    it('keeps the avatar in use and recent uploads, and sweeps the rest with their files', async () => {
      // A fresh IP allowance would need another address: the sweep is asked directly, with the limits reset.
      await t.ctx.db.kysely.deleteFrom('uploads').execute();
      for (const key of await storedKeys()) await t.ctx.storage.delete(key);
      const owner = new Client(t.url);
      const ownerId = (await owner.anonymous()).account.id as string;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await t.ctx.uploads.saveAvatar(ownerId, PNG_1X1)).id);
      const [first, inUse, last] = ids as [string, string, string];
      expect((await owner.put('/accounts/me', { avatar: `/files/${inUse}` })).status).toBe(200);
      expect(await storedKeys()).toHaveLength(3);

      // Within the grace nothing goes, used or not.
      expect(await t.ctx.uploads.sweepUnused(Date.now() + (KEEP_HOURS - 1) * 3_600_000)).toBe(0);
      expect(await storedKeys()).toHaveLength(3);

      // After it, the two nobody shows go, rows and files; the one in use stays and is still served.
      expect(await t.ctx.uploads.sweepUnused(Date.now() + (KEEP_HOURS + 1) * 3_600_000)).toBe(2);
      expect(await storedKeys()).toEqual([expect.stringContaining(inUse)]);
      expect((await fetch(new URL(`/files/${inUse}`, t.url))).status).toBe(200);
      for (const gone of [first, last]) {
        expect((await fetch(new URL(`/files/${gone}`, t.url))).status).toBe(404);
        // A swept upload can no longer be set as the avatar.
        expectError(await owner.put('/accounts/me', { avatar: `/files/${gone}` }), 'VALIDATION_FAILED');
      }
      expect((await owner.get('/accounts/me')).body.avatar).toBe(`/files/${inUse}`);

      // Replaced, the old one is swept in its turn; a second round finds nothing more.
      const next = (await t.ctx.uploads.saveAvatar(ownerId, PNG_1X1)).id;
      expect((await owner.put('/accounts/me', { avatar: `/files/${next}` })).status).toBe(200);
      expect(await t.ctx.uploads.sweepUnused(Date.now() + (KEEP_HOURS + 1) * 3_600_000)).toBe(1);
      expect(await t.ctx.uploads.sweepUnused(Date.now() + (KEEP_HOURS + 1) * 3_600_000)).toBe(0);
      expect(await storedKeys()).toEqual([expect.stringContaining(next)]);
    });
  });
}

describe.each(DIALECTS)('the avatar sweeper runs on its own (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { AVATAR_KEEP_HOURS: '0', HOLD_SWEEP_SECONDS: '1' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('removes an unused avatar within a round or two and keeps the one in use', async () => {
    const c = new Client(t.url);
    const accountId = (await c.anonymous()).account.id as string;
    // With no grace, the avatar in use is named by the account before its upload exists, so no round can find it
    // unused in between.
    const used = { id: newId('file'), url: '' };
    used.url = `/files/${used.id}`;
    await t.ctx.db.kysely.updateTable('accounts').set({ avatar: used.url }).where('id', '=', accountId).execute();
    await t.ctx.db.kysely
      .insertInto('uploads')
      .values({
        id: used.id,
        account_id: accountId,
        type: 'avatar',
        mime: 'image/png',
        size: PNG_1X1.length,
        storage_key: `avatars/${used.id}.png`,
        created_at: new Date(0).toISOString(),
      })
      .execute();
    await t.ctx.storage.put(`avatars/${used.id}.png`, PNG_1X1, { contentType: 'image/png' });
    const unused = await upload(c);
    await until(async () => (await fetch(new URL(unused.url, t.url))).status === 404, 'the unused avatar to be swept');
    expect((await fetch(new URL(used.url, t.url))).status).toBe(200);
    expect(await t.ctx.storage.list('avatars')).toHaveLength(1);
  });
});
