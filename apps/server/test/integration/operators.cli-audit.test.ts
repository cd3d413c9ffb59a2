import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { adminCli } from '../support/admin-cli.js';
import { Client, signIn } from '../support/client.js';
import { makeOperator } from '../support/operators.js';

describe.each(DIALECTS)('operators: the command line and the audit trail routes (%s)', (dialect) => {
  let t: TestApp;
  let cli: ReturnType<typeof adminCli>;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    cli = adminCli(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const admin = (...argv: string[]) => cli.run(...argv);
  const auditCount = async () =>
    Number(
      (
        await t.ctx.db.kysely
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('operator add / list / remove: the first owner from the shell; nothing there writes or changes the trail', async () => {
    await makeOperator(t, 'support'); // an entry in the trail already
    const trail = await t.ctx.db.kysely.selectFrom('audit_log').selectAll().orderBy('id').execute();
    const email = `first-owner-${dialect}@example.com`;
    expect(await admin('operator', 'add', email, '--role', 'owner')).toMatchObject({
      code: 1,
      err: expect.stringContaining('sign in once'),
    });
    const client = new Client(t.url);
    await client.anonymous();
    const account = await signIn(client, t.outbox, email);
    expect(await admin('operator', 'add', email, '--role', 'boss')).toMatchObject({
      code: 2,
      err: expect.stringContaining('owner, admin, support, finance'),
    });
    expect(await admin('operator', 'add', email)).toMatchObject({ code: 2 });
    const added = await admin('operator', 'add', email.toUpperCase(), '--role', 'owner');
    expect(added).toMatchObject({ code: 0, out: expect.stringContaining(`${email} (${account.id}) is now an operator: owner`) });
    expect(await admin('operator', 'add', email, '--role', 'admin')).toMatchObject({
      code: 1,
      err: expect.stringContaining('already an operator'),
    });
    const list = await admin('operator', 'list');
    expect(list.out).toMatch(new RegExp(`${email}  owner  since .*no second factor yet`));
    // The last owner stays.
    expect(await admin('operator', 'remove', email)).toMatchObject({ code: 1, err: expect.stringContaining('last owner') });
    await makeOperator(t, 'owner');
    expect(await admin('operator', 'remove', email)).toMatchObject({ code: 0 });
    expect((await admin('operator', 'list')).out).not.toContain(email);
    expect(await admin('operator', 'remove', email)).toMatchObject({ code: 1, err: expect.stringContaining('not an operator') });
    // No command changes the trail; none of these wrote to it (makeOperator above wrote its own pass, through the route).
    expect(await admin('audit', 'delete')).toMatchObject({ code: 2 });
    const now = await t.ctx.db.kysely.selectFrom('audit_log').selectAll().orderBy('id').execute();
    expect(now.slice(0, trail.length)).toEqual(trail);
    expect(now.filter((e) => e.operator_id === account.id)).toEqual([]);
  });

  it('lists the trail with filters and pages on the server, and exports the same as CSV', async () => {
    const owner = await makeOperator(t, 'owner');
    const auditor = await makeOperator(t, 'support');
    const base = await auditCount();
    // Five role changes by the owner, on two targets.
    const a = await makeOperator(t, 'admin');
    const b = await makeOperator(t, 'admin');
    for (const [id, role] of [
      [a.accountId, 'support'],
      [b.accountId, 'finance'],
      [a.accountId, 'admin'],
      [b.accountId, 'support'],
      [a.accountId, 'finance'],
    ] as const)
      expect((await owner.client.put(`/admin/api/operators/${id}`, { role, reason: `to ${role}, "quoted", =1+1` })).status).toBe(
        200,
      );
    expect(await auditCount()).toBe(base + 2 + 5);

    const page1 = await auditor.client.get(`/admin/api/audit?operator=${owner.accountId}&action=operator.role&page_size=2`);
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ total: 5, page: 1, page_size: 2 });
    expect(page1.body.items.map((e: { after: { role: string } }) => e.after.role)).toEqual(['finance', 'support']);
    const page3 = await auditor.client.get(
      `/admin/api/audit?operator=${owner.accountId}&action=operator.role&page_size=2&page=3`,
    );
    expect(page3.body.items).toHaveLength(1);
    expect(page3.body.items[0]).toMatchObject({
      operator_role: 'owner',
      before: { role: 'admin' },
      after: { role: 'support' },
      target_id: a.accountId,
    });
    const byTarget = await auditor.client.get(`/admin/api/audit?target_type=account&target_id=${b.accountId}&action=operator.`);
    expect(byTarget.body.items.map((e: { action: string }) => e.action)).toEqual([
      'operator.role',
      'operator.role',
      'operator.factor_enrol',
    ]);
    const first = page3.body.items[0];
    const window = await auditor.client.get(
      `/admin/api/audit?action=operator.role&since=${encodeURIComponent(first.at)}&until=${encodeURIComponent(page1.body.items[1].at)}`,
    );
    expect(window.body.total).toBe(3);
    const bad = await auditor.client.get('/admin/api/audit?since=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');

    const csv = await auditor.client.get(`/admin/api/audit/export?operator=${owner.accountId}&action=operator.role`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toContain('audit.csv');
    const lines = (csv.body as string).trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,at,operator_id,operator_role,action,target_type,target_id,before,after,reason,request_id,ip');
    expect(lines).toHaveLength(6);
    // Oldest first; a cell with commas or quotes is quoted, its quotes doubled.
    expect(lines[1]).toContain(`,"{""role"":""admin""}","{""role"":""support""}","to support, ""quoted"", =1+1",`);
    expect(lines[1]).toContain(',127.0.0.1');
  });
});
