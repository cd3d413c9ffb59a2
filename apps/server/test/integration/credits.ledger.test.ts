import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isAppError } from '../../src/platform/errors.js';
import type { CreditsService } from '../../src/credits/service.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

type Close = 'settle' | 'release' | 'settle-twice' | 'release-twice' | 'settle-and-release';
type Op = { kind: 'hold'; amount: number; close: Close; charge: number } | { kind: 'purchase'; amount: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record({
      kind: fc.constant('hold' as const),
      amount: fc.integer({ min: 0, max: 300 }),
      close: fc.constantFrom<Close>('settle', 'release', 'settle-twice', 'release-twice', 'settle-and-release'),
      charge: fc.integer({ min: -20, max: 400 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('purchase' as const), amount: fc.integer({ min: 1, max: 200 }) }) },
);

describe.each(DIALECTS)('credits ledger (%s)', (dialect) => {
  let t: TestApp;
  let credits: CreditsService;
  let n = 0;

  /** A fresh account holding exactly `start` credits (its trial grant plus a top-up). */
  async function account(start: number): Promise<string> {
    const { account } = await t.ctx.accounts.createAnonymous(
      { device: { udid: `ledger-${dialect}-${++n}`, model: '', brand: 'other', os: 'other' } },
      null,
    );
    const trial = account.vip.credits;
    expect(start).toBeGreaterThanOrEqual(trial);
    await t.ctx.db.kysely
      .transaction()
      .execute((trx) => credits.grantOnce(trx, account.id, `test:${account.id}`, start - trial, 'test'));
    expect(await credits.balance(account.id)).toBe(start);
    return account.id;
  }

  const entries = (accountId: string) =>
    t.ctx.db.kysely.selectFrom('credit_ledger').selectAll().where('account_id', '=', accountId).execute();
  const holdRow = (id: string) =>
    t.ctx.db.kysely.selectFrom('credit_holds').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  async function expectConsistent(accountId: string): Promise<number> {
    const balance = await credits.balance(accountId);
    expect(balance).toBe(await credits.ledgerSum(accountId));
    expect(balance).toBeGreaterThanOrEqual(0);
    for (const e of await entries(accountId)) expect(Number(e.balance_after)).toBeGreaterThanOrEqual(0);
    return balance;
  }

  beforeAll(async () => {
    // The background sweeper must not race the sweeps these tests make themselves.
    t = await startTestApp(dialect, { env: { HOLD_SWEEP_SECONDS: '86400' } });
    credits = t.ctx.credits;
  });
  afterAll(async () => {
    await t.close();
  });

  it('settles at most the held amount, returns the rest, and settles once', async () => {
    const id = await account(5000);
    const hold = await credits.hold(id, 300, 'tts');
    expect(hold).toMatchObject({ accountId: id, amount: 300 });
    expect(hold.id).toMatch(/^hold_/);
    expect(await credits.balance(id)).toBe(4700);
    expect(await credits.settle(hold.id, 120.4, { characters: 120 })).toBe(true);
    expect(await credits.balance(id)).toBe(4880);
    expect(await credits.settle(hold.id, 0)).toBe(false);
    expect(await credits.release(hold.id)).toBe(false);
    expect(await credits.balance(id)).toBe(4880);
    expect((await holdRow(hold.id)).status).toBe('settled');
    const kinds = (await entries(id)).filter((e) => e.hold_id === hold.id).map((e) => [e.kind, Number(e.amount)]);
    expect(kinds.sort()).toEqual([
      ['hold', -300],
      ['settle', 180],
    ]);

    const over = await credits.hold(id, 100, 'tts');
    expect(await credits.settle(over.id, 10_000)).toBe(true);
    expect(await credits.balance(id)).toBe(4780);
    const negative = await credits.hold(id, 100, 'tts');
    expect(await credits.settle(negative.id, -50)).toBe(true);
    expect(await credits.balance(id)).toBe(4780);
    await expectConsistent(id);
  });

  it('releases the whole hold once; a released hold cannot be settled', async () => {
    const id = await account(2000);
    const hold = await credits.hold(id, 750, 'clone');
    expect(await credits.balance(id)).toBe(1250);
    expect(await credits.release(hold.id)).toBe(true);
    expect(await credits.release(hold.id)).toBe(false);
    expect(await credits.settle(hold.id, 750)).toBe(false);
    expect(await credits.balance(id)).toBe(2000);
    expect((await holdRow(hold.id)).status).toBe('released');
    await expectConsistent(id);
  });

  it('refuses a hold above the balance with INSUFFICIENT_BALANCE and leaves nothing behind', async () => {
    const id = await account(1500);
    const before = await entries(id);
    await expect(credits.hold(id, 1501, 'tts')).rejects.toSatisfy(
      (e) => isAppError(e) && e.code === 'INSUFFICIENT_BALANCE' && e.status === 402,
    );
    expect(await credits.balance(id)).toBe(1500);
    expect(await entries(id)).toHaveLength(before.length);
    expect(await t.ctx.db.kysely.selectFrom('credit_holds').select('id').where('account_id', '=', id).execute()).toEqual([]);
    const all = await credits.hold(id, 1500, 'tts');
    expect(await credits.balance(id)).toBe(0);
    await expect(credits.hold(id, 1, 'tts')).rejects.toSatisfy((e) => isAppError(e) && e.code === 'INSUFFICIENT_BALANCE');
    await expect(t.ctx.db.kysely.transaction().execute((trx) => credits.refund(trx, id, 1, 'ord_x'))).rejects.toSatisfy(
      (e) => isAppError(e) && e.code === 'INSUFFICIENT_BALANCE',
    );
    expect(await credits.release(all.id)).toBe(true);
    await expectConsistent(id);
  });

  it('sweeps holds past their deadline and leaves live ones', async () => {
    const id = await account(3000);
    const short = await credits.hold(id, 100, 'tts', 1);
    const live = await credits.hold(id, 200, 'tts');
    const crashed = await credits.hold(id, 300, 'tts');
    await t.ctx.db.kysely
      .updateTable('credit_holds')
      .set({ deadline: new Date(Date.now() - 60_000).toISOString() })
      .where('id', '=', crashed.id)
      .execute();
    expect(await credits.balance(id)).toBe(2400);
    // Two seconds from now the 1 s hold is past its deadline, the default (15 min) one is not.
    const released = await credits.sweepExpiredHolds(new Date(Date.now() + 2000));
    expect(released).toBeGreaterThanOrEqual(2);
    expect((await holdRow(short.id)).status).toBe('released');
    expect((await holdRow(crashed.id)).status).toBe('released');
    expect((await holdRow(live.id)).status).toBe('held');
    expect(await credits.balance(id)).toBe(2800);
    // A late settle of a swept hold changes nothing; a second sweep finds nothing of this account.
    expect(await credits.settle(crashed.id, 300)).toBe(false);
    await credits.sweepExpiredHolds(new Date(Date.now() + 2000));
    expect((await holdRow(live.id)).status).toBe('held');
    expect(await credits.balance(id)).toBe(2800);
    expect(await credits.settle(live.id, 50)).toBe(true);
    expect(await credits.balance(id)).toBe(2950);
    await expectConsistent(id);
  });

  it('grants once per key, even when asked concurrently', async () => {
    const id = await account(1000);
    const grant = (key: string, amount: number) =>
      t.ctx.db.kysely.transaction().execute((trx) => credits.grantOnce(trx, id, key, amount, 'test grant'));
    const results = await Promise.all(Array.from({ length: 8 }, () => grant(`once:${id}`, 250)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await grant(`once:${id}`, 250)).toBe(false);
    expect(await credits.balance(id)).toBe(1250);
    expect(await grant(`other:${id}`, 50)).toBe(true);
    expect(await credits.balance(id)).toBe(1300);
    await expectConsistent(id);
  });

  it('property: concurrent holds, settles, releases and purchases keep balance = ledger sum, never negative', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1000, max: 8000 }),
        fc.array(opArb, { minLength: 50, maxLength: 150 }),
        async (start, ops) => {
          const id = await account(start);
          let charged = 0;
          let purchased = 0;
          let holds = 0;
          let closes = 0;
          await Promise.all(
            ops.map(async (op) => {
              if (op.kind === 'purchase') {
                await t.ctx.db.kysely.transaction().execute((trx) => credits.purchase(trx, id, op.amount, `ord_${op.amount}`));
                purchased += op.amount;
                return;
              }
              let hold;
              try {
                hold = await credits.hold(id, op.amount, 'tts');
              } catch (e) {
                if (isAppError(e) && e.code === 'INSUFFICIENT_BALANCE') return;
                throw e;
              }
              holds += 1;
              const settle = async () =>
                (await credits.settle(hold.id, op.charge)) ? Math.min(Math.max(0, op.charge), op.amount) : null;
              const release = async () => ((await credits.release(hold.id)) ? 0 : null);
              const attempts =
                op.close === 'settle'
                  ? [settle()]
                  : op.close === 'release'
                    ? [release()]
                    : op.close === 'settle-twice'
                      ? [settle(), settle()]
                      : op.close === 'release-twice'
                        ? [release(), release()]
                        : [settle(), release()];
              const won = (await Promise.all(attempts)).filter((r): r is number => r !== null);
              expect(won).toHaveLength(1); // exactly one close of a hold takes effect
              charged += won[0]!;
              closes += 1;
            }),
          );
          const balance = await expectConsistent(id);
          expect(charged + balance).toBe(start + purchased);
          const rows = await t.ctx.db.kysely.selectFrom('credit_holds').select('status').where('account_id', '=', id).execute();
          expect(rows).toHaveLength(holds);
          expect(rows.filter((r) => r.status === 'held')).toEqual([]);
          // grant (+ top-up grant when any) + one entry per hold, per close and per purchase.
          const ledger = await entries(id);
          const grants = ledger.filter((e) => e.kind === 'grant').length;
          expect(ledger.length).toBe(grants + holds + closes + ops.filter((o) => o.kind === 'purchase').length);
          expect(Number(ledger.reduce((m, e) => Math.min(m, Number(e.balance_after)), Infinity))).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 15 },
    );
  });
});
