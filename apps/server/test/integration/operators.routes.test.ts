import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ROLES, ROLE_PERMISSIONS, type OperatorRole } from '@polyvox/contracts';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { makeOperator, makePendingOperator } from '../support/operators.js';

/**
 * Every route under /admin/api/, read from the route table (routes other modules add are picked up as they come):
 * no session 401, a plain user 403, an API key 403 (an owner's own key too), an operator before the second factor
 * 401 SECOND_FACTOR_REQUIRED, and each role 403 exactly where ROLE_PERMISSIONS lacks the route's permission.
 */
describe.each(DIALECTS)('operator routes: the permission matrix from the route table (%s)', (dialect) => {
  let t: TestApp;
  let plain: Client;
  let ownerKey: string;
  const elevated = new Map<OperatorRole, Client>();
  const pending = new Map<OperatorRole, Client>();

  beforeAll(async () => {
    t = await startTestApp(dialect);
    plain = new Client(t.url);
    await plain.anonymous();
    for (const role of OPERATOR_ROLES) {
      elevated.set(role, (await makeOperator(t, role)).client);
      pending.set(role, (await makePendingOperator(t, role)).client);
    }
    const owner = elevated.get('owner')!;
    const me = await owner.get('/accounts/me');
    await givePlan(t, me.body.id ?? me.body.account?.id);
    const key = await owner.put('/api/authorization', { name: 'server' });
    expect(key.status).toBe(201);
    ownerKey = key.body.key;
  });
  afterAll(async () => {
    await t.close();
  });

  /** `METHOD url` of every /admin/api route (HEAD, which Fastify adds beside each GET, answers as the GET). */
  function adminRoutes() {
    return [...t.app.authRules.entries()]
      .filter(([key]) => / \/admin\/api\//.test(key) && !key.startsWith('HEAD '))
      .map(([key, rule]) => {
        const [method, url] = key.split(' ') as [string, string];
        return { method, url, rule, permission: t.app.operatorPermissions.get(key) ?? null };
      })
      .sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method));
  }
  /** A path to call: each parameter filled with an id that names nothing (a route answers 404, changing nothing). */
  const concrete = (url: string) => url.replace(/:(\w+)/g, (_m, name: string) => `x_${name}_none`).replace(/\*$/, 'none');
  const call = (client: Client, method: string, url: string, headers?: Record<string, string>) =>
    client.request(method, concrete(url), undefined, headers);

  it('finds the console routes, each with an operator rule, every `operator` route with a known permission', () => {
    const routes = adminRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(16);
    for (const r of routes) {
      expect(['operator', 'operator-factor'], `${r.method} ${r.url}`).toContain(r.rule);
      if (r.rule === 'operator') expect(r.permission, `${r.method} ${r.url}`).not.toBeNull();
      else expect(r.url.startsWith('/admin/api/auth/'), `${r.method} ${r.url}`).toBe(true);
    }
  });

  it('answers each caller as its rule says, for every route and every role; prints the matrix', async () => {
    const anonymous = new Client(t.url);
    const matrix: string[][] = [];
    for (const r of adminRoutes()) {
      const where = `${r.method} ${r.url}`;
      const none = await call(anonymous, r.method, r.url);
      expect(none.status, `${where}: no session`).toBe(401);
      expect(none.body.error.code, `${where}: no session`).toBe('UNAUTHENTICATED');
      const user = await call(plain, r.method, r.url);
      expect(user.status, `${where}: a plain user`).toBe(403);
      const key = await call(anonymous, r.method, r.url, { authorization: `Bearer ${ownerKey}` });
      expect(key.status, `${where}: an owner's API key`).toBe(403);
      const xi = await call(anonymous, r.method, r.url, { 'xi-api-key': ownerKey, 'x-sid': elevated.get('owner')!.sid! });
      expect(xi.status, `${where}: an API key beside an owner's session`).toBe(403);

      const row = [where, r.permission ?? '(second factor)'];
      for (const role of OPERATOR_ROLES) {
        if (r.rule === 'operator-factor') {
          // The second factor's own routes answer an operator before the factor (they are how it is passed).
          const res = await call(pending.get(role)!, r.method, r.url);
          expect([401, 403], `${where}: a ${role} before the second factor`).not.toContain(res.status);
          row.push(`${res.status}`);
          continue;
        }
        const before = await call(pending.get(role)!, r.method, r.url);
        expect(before.status, `${where}: a ${role} before the second factor`).toBe(401);
        expect(before.body.error.code).toBe('SECOND_FACTOR_REQUIRED');
        const res = await call(elevated.get(role)!, r.method, r.url);
        const allowed = ROLE_PERMISSIONS[role].includes(r.permission!);
        if (allowed) expect([401, 403], `${where}: a ${role}, allowed`).not.toContain(res.status);
        else {
          expect(res.status, `${where}: a ${role}, not allowed`).toBe(403);
          expect(res.body.error.code).toBe('FORBIDDEN');
        }
        row.push(allowed ? `ok ${res.status}` : '403');
      }
      matrix.push(row);
    }
    const header = ['route', 'permission', ...OPERATOR_ROLES];
    const widths = header.map((h, i) => Math.max(h.length, ...matrix.map((row) => row[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
    console.log(
      [
        `permission matrix (${dialect}): ${matrix.length} routes; every route also 401 without a session, 403 for a plain user and for an API key`,
        line(header),
        ...matrix.map(line),
      ].join('\n'),
    );
  });
});
