import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Db } from '../../src/platform/db/database.js';
import { preparedQuery } from '../../src/platform/db/prepared.js';
import type { Database } from '../../src/platform/db/schema.js';

const byReferrer = preparedQuery((db: Kysely<Database>, referrer: string, status: string) =>
  db.selectFrom('accounts').select('id').where('referrer', '=', referrer).where('status', '=', status).orderBy('id'),
);

describe('a query compiled once (platform/db/prepared.ts)', () => {
  let dir: string;
  let db: Db;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-prepared-'));
    db = openDatabase({ dataDir: dir });
    await migrate(db);
    const now = new Date().toISOString();
    const account = (id: string, referrer: string, status: string) => ({
      id,
      referral_code: id.toUpperCase(),
      referrer,
      status,
      channel: 'test',
      anonymous: 0,
      vip_level: 'free',
      credits: 0,
      records_balance: 0,
      entry_ms: 0,
      created_at: now,
      updated_at: now,
    });
    await db.kysely
      .insertInto('accounts')
      .values([account('a1', 'R1', 'active'), account('a2', 'R1', 'disabled'), account('a3', 'R2', 'active')])
      .execute();
  });
  afterAll(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs with each call’s values, in their places', async () => {
    expect(await byReferrer(db.kysely, 'R1', 'active')).toEqual([{ id: 'a1' }]);
    expect(await byReferrer(db.kysely, 'R1', 'disabled')).toEqual([{ id: 'a2' }]);
    expect(await byReferrer(db.kysely, 'R2', 'active')).toEqual([{ id: 'a3' }]);
    expect(await byReferrer(db.kysely, 'R3', 'active')).toEqual([]);
  });

  it('runs inside a transaction, seeing its writes', async () => {
    await db.kysely
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('accounts').set({ status: 'active' }).where('id', '=', 'a2').execute();
        expect(await byReferrer(trx, 'R1', 'active')).toEqual([{ id: 'a1' }, { id: 'a2' }]);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await byReferrer(db.kysely, 'R1', 'active')).toEqual([{ id: 'a1' }]);
  });

  it('refuses a parameter that is not a bound value of the query', async () => {
    const unbound = preparedQuery((d: Kysely<Database>, _unused: string) => d.selectFrom('accounts').select('id'));
    await expect(unbound(db.kysely, 'x')).rejects.toThrow(/parameter 0 is not a bound value/);
  });
});
