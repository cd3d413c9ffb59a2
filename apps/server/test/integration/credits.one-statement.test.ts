import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreditsService } from '../../src/credits/service.js';
import { isAppError } from '../../src/platform/errors.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * On PostgreSQL a hold and a settlement are one statement each. The same calls through the general path (a
 * transaction of separate statements, as on SQLite) must leave exactly the same rows: ledger entries, holds,
 * the day's record counts and an API key's spent credits.
 */
describe('credits in one statement (postgres) write what the transaction path writes', () => {
  let t: TestApp;
  let oneStatement: CreditsService;
  let general: CreditsService;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp('postgres', { env: { HOLD_SWEEP_SECONDS: '86400' } });
    oneStatement = t.ctx.credits;
    general = new CreditsService({ db: t.ctx.db.kysely, config: t.ctx.credits.config, dialect: 'sqlite' });
  });
  afterAll(async () => {
    await t.close();
  });

  /** A fresh account with exactly `start` credits and, when asked, an API key limited to `limit`. */
  async function account(start: number, limit?: number): Promise<{ id: string; key: string | null }> {
    const { account } = await t.ctx.accounts.createAnonymous(
      { device: { udid: `one-statement-${++n}`, model: '', brand: 'other', os: 'other' } },
      null,
    );
    await t.ctx.db.kysely
      .transaction()
      .execute((trx) => general.grantOnce(trx, account.id, `test:${account.id}`, start - account.vip.credits, 'test'));
    if (limit === undefined) return { id: account.id, key: null };
    const key = `key_${account.id}`;
    await t.ctx.db.kysely
      .insertInto('api_keys')
      .values({
        id: key,
        account_id: account.id,
        name: 'k',
        secret_hash: key,
        prefix: 'pv_',
        credit_limit: limit,
        used: 0,
        requests_per_minute: 60,
        concurrency: 4,
        voices: null,
        created_at: new Date().toISOString(),
        last_used_at: null,
        deleted_at: null,
      })
      .execute();
    return { id: account.id, key };
  }

  /** Everything the ledger wrote for an account, without ids and times, in order. */
  async function snapshot(accountId: string, key: string | null) {
    const db = t.ctx.db.kysely;
    const ledger = await db
      .selectFrom('credit_ledger')
      .select([
        'kind',
        'amount',
        'balance_after',
        'record_type',
        'characters',
        'voice_id',
        'order_id',
        'note',
        'charge',
        'api_key_id',
      ])
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('kind')
      .execute();
    const holds = await db
      .selectFrom('credit_holds')
      .select(['amount', 'status', 'record_type', 'api_key_id'])
      .where('account_id', '=', accountId)
      .orderBy('amount')
      .execute();
    const days = await db
      .selectFrom('record_days')
      .select(['type', 'api_key_id', 'records', 'calls', 'credits'])
      .where('account_id', '=', accountId)
      .orderBy('type')
      .execute();
    const used = key
      ? (await db.selectFrom('api_keys').select('used').where('id', '=', key).executeTakeFirstOrThrow()).used
      : null;
    const norm = <T extends object>(rows: T[]) =>
      rows.map((r) =>
        Object.fromEntries(
          Object.entries(r).map(([k, v]) => [
            k,
            k === 'api_key_id' && typeof v === 'string' && v ? 'KEY' : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v,
          ]),
        ),
      );
    return {
      ledger: norm(ledger),
      holds: norm(holds),
      days: norm(days),
      used: used === null ? null : Number(used),
      balance: await general.balance(accountId),
    };
  }

  /** The same story told to one service: holds closed in every way, with and without a key. */
  async function story(credits: CreditsService, withKey: boolean) {
    const { id, key } = await account(2000, withKey ? 900 : undefined);
    const opts = { apiKeyId: key };
    const a = await credits.hold(id, 300, 'tts', undefined, opts);
    expect(await credits.settle(a.id, 120.4, { characters: 120, voice_id: 'voice_espeak.en-us' })).toBe(true);
    // Settled twice, or released after: nothing more moves.
    expect(await credits.settle(a.id, 50)).toBe(false);
    expect(await credits.release(a.id)).toBe(false);
    const b = await credits.hold(id, 200, 'api', undefined, opts);
    expect(await credits.settle(b.id, 999, { record_type: 'preview', api_key_id: key })).toBe(true); // capped at the hold
    const c = await credits.hold(id, 100, 'tts', undefined, opts);
    expect(await credits.settle(c.id, -5)).toBe(true); // charges nothing, returns all
    const d = await credits.hold(id, 40, 'tts', undefined, opts);
    expect(await credits.release(d.id, 'failed')).toBe(true);
    expect(await credits.settle(d.id, 40)).toBe(false);
    // More than the balance: refused, and nothing at all is written for it.
    const before = await snapshot(id, key);
    const refused = await credits.hold(id, 1_000_000, 'tts', undefined, opts).catch((e: unknown) => e);
    expect(isAppError(refused) && (refused.code === 'INSUFFICIENT_BALANCE' || refused.code === 'KEY_LIMIT_REACHED')).toBe(true);
    expect(await snapshot(id, key)).toEqual(before);
    expect(await credits.balance(id)).toBe(await credits.ledgerSum(id));
    return snapshot(id, key);
  }

  it('without an API key', async () => {
    const one = await story(oneStatement, false);
    expect(one.balance).toBe(2000 - 120 - 200 - 0);
    expect(one).toEqual(await story(general, false));
  });

  it('with an API key: its spent credits come back with the unused part of each hold', async () => {
    const one = await story(oneStatement, true);
    expect(one.used).toBe(120 + 200);
    expect(one).toEqual(await story(general, true));
  });

  it('a hold for a missing account is NOT_FOUND and writes nothing', async () => {
    const e = await oneStatement.hold('acc_missing', 10, 'tts').catch((x: unknown) => x);
    expect(isAppError(e) && e.code).toBe('NOT_FOUND');
    const rows = await t.ctx.db.kysely.selectFrom('credit_holds').select('id').where('account_id', '=', 'acc_missing').execute();
    expect(rows).toEqual([]);
  });

  it('200 concurrent holds and settlements on one account keep the balance equal to the ledger sum', async () => {
    const { id } = await account(10_000);
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const h = await oneStatement.hold(id, 97, 'tts').catch(() => null);
        if (!h) return 0;
        await (i % 3 === 0 ? oneStatement.release(h.id) : oneStatement.settle(h.id, 61));
        return 1;
      }),
    );
    const held = results.reduce<number>((a, b) => a + b, 0);
    expect(held).toBeGreaterThan(0);
    expect(await oneStatement.balance(id)).toBe(await oneStatement.ledgerSum(id));
    expect(await oneStatement.balance(id)).toBeGreaterThanOrEqual(0);
  });
});
