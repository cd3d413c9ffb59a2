import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { makeOperator } from '../support/operators.js';

describe.each(DIALECTS)('the audit trail is append-only (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    await makeOperator(t, 'owner');
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses UPDATE and DELETE through SQL: the database triggers stop them', async () => {
    const db = t.ctx.db.kysely;
    const entries = await db.selectFrom('audit_log').selectAll().execute();
    expect(entries.length).toBeGreaterThan(0);
    const id = entries[0]!.id;
    await expect(sql`UPDATE audit_log SET reason = 'changed' WHERE id = ${id}`.execute(db)).rejects.toThrow(/append-only/);
    await expect(db.updateTable('audit_log').set({ action: 'x.y' }).execute()).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM audit_log WHERE id = ${id}`.execute(db)).rejects.toThrow(/append-only/);
    await expect(db.deleteFrom('audit_log').execute()).rejects.toThrow(/append-only/);
    if (dialect === 'postgres') await expect(sql`TRUNCATE audit_log`.execute(db)).rejects.toThrow(/append-only/);
    expect(await db.selectFrom('audit_log').selectAll().execute()).toEqual(entries);
  });
});
