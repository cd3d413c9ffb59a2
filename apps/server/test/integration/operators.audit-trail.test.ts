import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { AUDIT_CSV_COLUMNS } from '../../src/operators/routes.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { makeOperator } from '../support/operators.js';

describe.each(DIALECTS)('the audit trail is append-only (%s)', (dialect) => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof makeOperator>>;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    owner = await makeOperator(t, 'owner');
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

  it('exports a long trail as a chunked CSV stream, whole and in order, with the filters of the list', async () => {
    const db = t.ctx.db.kysely;
    const N = 5000;
    const base = Date.parse('2030-01-01T00:00:00.000Z');
    const rows = Array.from({ length: N + 50 }, (_, i) => ({
      id: `audit_bulk_${String(i).padStart(5, '0')}`,
      at: new Date(base + i * 1000).toISOString(),
      operator_id: owner.accountId,
      operator_role: 'owner',
      // 50 entries of another action, spread through the trail: the filter leaves them out.
      action: i % 101 === 100 ? 'bulk.other' : 'bulk.grant',
      target_type: 'account',
      target_id: `acct_${i}`,
      before: i % 2 ? null : JSON.stringify({ n: i }),
      after: JSON.stringify({ n: i + 1, note: 'a, "quoted" value' }),
      reason: i === 7 ? '=HYPERLINK("x")' : `line ${i}`,
      request_id: `req_${i}`,
      ip: '127.0.0.1',
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('audit_log')
        .values(rows.slice(i, i + 500))
        .execute();
    const expected = rows.filter((r) => r.action === 'bulk.grant');
    expect(expected.length).toBe(N);

    const url = new URL('/admin/api/audit/export', t.url);
    url.searchParams.set('action', 'bulk.grant');
    url.searchParams.set('since', '2030-01-01T00:00:00.000Z');
    const res = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      http
        .get(url, { headers: { 'x-sid': owner.client.sid! } }, (r) => {
          let body = '';
          r.setEncoding('utf8');
          r.on('data', (c: string) => (body += c));
          r.on('end', () => resolve({ status: r.statusCode!, headers: r.headers, body }));
          r.on('error', reject);
        })
        .on('error', reject);
    });
    expect(res.status).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.body.split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe(AUDIT_CSV_COLUMNS.join(','));
    expect(lines.length).toBe(N + 1);
    // Every entry once, oldest first, its fields quoted where they must be and a leading = defused.
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(expected.map((r) => r.id));
    const third = expected[2]!;
    expect(lines[3]).toBe(
      `${third.id},${third.at},${owner.accountId},owner,bulk.grant,account,acct_2,"{""n"":2}",` +
        `"{""n"":3,""note"":""a, \\""quoted\\"" value""}",line 2,req_2,127.0.0.1`,
    );
    expect(lines[8]).toContain(`,"'=HYPERLINK(""x"")",`);
  });
});
