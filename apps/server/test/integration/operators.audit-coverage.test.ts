import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorRole } from '@polyvox/contracts';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client, signIn, type Reply } from '../support/client.js';
import { anotherSession, makeOperator, makePendingOperator, totpCode } from '../support/operators.js';
import { parseCatalogue } from '../../src/models/catalogue.js';
import { complete, newOrder, sandboxToken } from '../support/economy.js';
import { JFK_WAV } from '../support/design.js';

/**
 * Audit coverage: every mutating operator route writes exactly one audit entry naming the operator, the role, the
 * action, the target, the reason (where the route requires one), the request id and the address; and every mutating
 * route under /admin/api in the route table has a sample call below (the second factor's own routes, under
 * /admin/api/auth/, are not required to: those that pass or set up a factor write operator.factor_* entries).
 *
 * Each area appends its rows in its own delimited block of SAMPLES.
 */

/** What a sample call can use: operators of each role (elevated), new customer accounts, the app. */
export interface Harness {
  t: TestApp;
  /** An elevated operator of `role` (one per role, made once). */
  as(role: OperatorRole): Promise<{ client: Client; accountId: string; email: string }>;
  /** A new signed-in customer account. */
  customer(): Promise<{ client: Client; accountId: string; email: string }>;
}

export interface Sample {
  /** `METHOD url` exactly as registered (the route table's key). */
  route: string;
  /** The operator who calls (default owner). */
  role?: OperatorRole;
  /**
   * Makes the call with `client` (the `role` operator's); returns the reply (2xx expected), the target the entry must
   * name and, when another operator made the call, who (`by`).
   */
  run(
    h: Harness,
    client: Client,
  ): Promise<{ reply: Reply; target: { type: string; id: string }; by?: { accountId: string; role: OperatorRole } }>;
  action: string;
  /** The reason the call sent, when the route requires one (the entry must carry it). */
  reason?: string;
}

const SAMPLES: Sample[] = [
  // ---- core: operators and the second factor (h/op-core) ----
  {
    route: 'POST /admin/api/operators',
    action: 'operator.add',
    async run(h, client) {
      const c = await h.customer();
      return {
        reply: await client.post('/admin/api/operators', { email: c.email, role: 'support' }),
        target: { type: 'account', id: c.accountId },
      };
    },
  },
  {
    route: 'PUT /admin/api/operators/:accountId',
    action: 'operator.role',
    reason: 'moves to finance',
    async run(h, client) {
      const c = await h.customer();
      await h.t.ctx.operators.add(c.email, 'support', null);
      const reply = await client.put(`/admin/api/operators/${c.accountId}`, { role: 'finance', reason: 'moves to finance' });
      return { reply, target: { type: 'account', id: c.accountId } };
    },
  },
  {
    route: 'DELETE /admin/api/operators/:accountId',
    action: 'operator.remove',
    reason: 'left the company',
    async run(h, client) {
      const c = await h.customer();
      await h.t.ctx.operators.add(c.email, 'admin', null);
      const reply = await client.delete(`/admin/api/operators/${c.accountId}?reason=${encodeURIComponent('left the company')}`);
      return { reply, target: { type: 'account', id: c.accountId } };
    },
  },
  {
    route: 'POST /admin/api/auth/totp/confirm',
    action: 'operator.factor_enrol',
    async run(h) {
      const p = await makePendingOperator(h.t, 'support');
      const { secret } = (await p.client.post('/admin/api/auth/totp/enrol')).body as { secret: string };
      const reply = await p.client.post('/admin/api/auth/totp/confirm', { code: await totpCode(h.t, secret) });
      return { reply, target: { type: 'account', id: p.accountId }, by: { accountId: p.accountId, role: 'support' } };
    },
  },
  {
    route: 'POST /admin/api/auth/recovery',
    action: 'operator.factor_pass',
    async run(h) {
      const op = await makeOperator(h.t, 'finance');
      const again = await anotherSession(h.t, op.accountId);
      const reply = await again.post('/admin/api/auth/recovery', { code: op.recoveryCodes[0] });
      return { reply, target: { type: 'account', id: op.accountId }, by: { accountId: op.accountId, role: 'finance' } };
    },
  },
  // ---- end core ----

  // ---- accounts (h/op-accounts): append rows here ----
  {
    route: 'POST /admin/api/accounts/:id/credits/grant',
    action: 'credits.grant',
    reason: 'goodwill',
    async run(h, client) {
      const c = await h.customer();
      const reply = await client.post(`/admin/api/accounts/${c.accountId}/credits/grant`, { amount: 100, reason: 'goodwill' });
      return { reply, target: { type: 'account', id: c.accountId } };
    },
  },
  {
    route: 'POST /admin/api/accounts/:id/credits/deduct',
    action: 'credits.deduct',
    reason: 'granted twice',
    async run(h, client) {
      const c = await h.customer();
      const reply = await client.post(`/admin/api/accounts/${c.accountId}/credits/deduct`, {
        amount: 1,
        reason: 'granted twice',
      });
      return { reply, target: { type: 'account', id: c.accountId } };
    },
  },
  {
    route: 'POST /admin/api/accounts/:id/disable',
    action: 'account.disable',
    reason: 'abuse',
    async run(h, client) {
      const c = await h.customer();
      const reply = await client.post(`/admin/api/accounts/${c.accountId}/disable`, { reason: 'abuse' });
      return { reply, target: { type: 'account', id: c.accountId } };
    },
  },
  {
    route: 'POST /admin/api/accounts/:id/enable',
    action: 'account.enable',
    reason: 'appeal accepted',
    async run(h, client) {
      const c = await h.customer();
      await h.t.ctx.db.kysely.updateTable('accounts').set({ status: 'disabled' }).where('id', '=', c.accountId).execute();
      const reply = await client.post(`/admin/api/accounts/${c.accountId}/enable`, { reason: 'appeal accepted' });
      return { reply, target: { type: 'account', id: c.accountId } };
    },
  },
  {
    route: 'POST /admin/api/accounts/:id/sessions/end',
    action: 'account.sessions_end',
    reason: 'shared password',
    async run(h, client) {
      const c = await h.customer();
      const reply = await client.post(`/admin/api/accounts/${c.accountId}/sessions/end`, { reason: 'shared password' });
      return { reply, target: { type: 'account', id: c.accountId } };
    },
  },
  // ---- end accounts ----

  // ---- codes and catalog (h/op-codes): append rows here ----
  {
    route: 'POST /admin/api/codes/batches',
    role: 'finance',
    action: 'codes.create',
    reason: 'spring promotion',
    async run(_h, client) {
      const reply = await client.post('/admin/api/codes/batches', {
        name: 'spring',
        kind: 'credits',
        credits: 1000,
        count: 3,
        prefix: 'SPRING',
        reason: 'spring promotion',
      });
      return { reply, target: { type: 'code_batch', id: (reply.body as { batch: { id: string } }).batch.id } };
    },
  },
  {
    route: 'POST /admin/api/codes/batches/:id/revoke',
    action: 'codes.revoke',
    reason: 'leaked on a forum',
    async run(h, client) {
      const { batch } = await h.t.ctx.codes.createBatch(
        { name: 'leaky', kind: 'credits', credits: 10, count: 1, usesPerCode: 1, prefix: '', expiresAt: null },
        'acc_seed',
        () => Promise.resolve(),
      );
      const reply = await client.post(`/admin/api/codes/batches/${batch.id}/revoke`, { reason: 'leaked on a forum' });
      return { reply, target: { type: 'code_batch', id: batch.id } };
    },
  },
  {
    route: 'PATCH /admin/api/catalog/products/:id',
    role: 'finance',
    action: 'product.update',
    reason: 'new price',
    async run(_h, client) {
      const reply = await client.request('PATCH', '/admin/api/catalog/products/credits_100k', {
        prices: { USD: 249 },
        reason: 'new price',
      });
      return { reply, target: { type: 'product', id: 'credits_100k' } };
    },
  },
  {
    route: 'POST /admin/api/catalog/products',
    role: 'finance',
    action: 'product.create',
    reason: 'a bigger pack',
    async run(_h, client) {
      const texts = { en: 'Big pack', 'zh-CN': '大包', 'zh-TW': '大包' };
      const reply = await client.post('/admin/api/catalog/products', {
        id: 'credits_audit',
        kind: 'credits',
        credits: 5000,
        prices: { CNY: 100, USD: 20 },
        name: texts,
        description: texts,
        reason: 'a bigger pack',
      });
      return { reply, target: { type: 'product', id: 'credits_audit' } };
    },
  },
  {
    route: 'DELETE /admin/api/catalog/products/:id',
    role: 'finance',
    action: 'product.retire',
    reason: 'no longer sold',
    async run(_h, client) {
      const reply = await client.delete('/admin/api/catalog/products/credits_2m?reason=no%20longer%20sold');
      return { reply, target: { type: 'product', id: 'credits_2m' } };
    },
  },
  // ---- end codes and catalog ----

  // ---- orders, receipts and invoices (h/op-orders): append rows here ----
  {
    route: 'POST /admin/api/orders/:id/refund',
    role: 'finance',
    action: 'order.refund',
    reason: 'customer asked',
    async run(h, client) {
      const orderId = await paidSandboxOrder(h);
      const reply = await client.post(`/admin/api/orders/${orderId}/refund`, { reason: 'customer asked' });
      return { reply, target: { type: 'order', id: orderId } };
    },
  },
  {
    route: 'POST /admin/api/orders/:id/requery',
    role: 'finance',
    action: 'order.requery',
    reason: 'reconciliation',
    async run(h, client) {
      const orderId = await paidSandboxOrder(h);
      const reply = await client.post(`/admin/api/orders/${orderId}/requery`, { reason: 'reconciliation' });
      return { reply, target: { type: 'order', id: orderId } };
    },
  },
  {
    route: 'POST /admin/api/invoices/:id/issue',
    role: 'finance',
    action: 'invoice.issue',
    async run(h, client) {
      const id = await invoiceRequest(h);
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('%PDF-1.4\n%%EOF\n')], { type: 'application/pdf' }), 'invoice.pdf');
      const reply = await client.post(`/admin/api/invoices/${id}/issue`, form);
      return { reply, target: { type: 'invoice', id } };
    },
  },
  {
    route: 'POST /admin/api/invoices/:id/reject',
    role: 'finance',
    action: 'invoice.reject',
    reason: 'the tax number does not match the title',
    async run(h, client) {
      const id = await invoiceRequest(h);
      const reply = await client.post(`/admin/api/invoices/${id}/reject`, { reason: 'the tax number does not match the title' });
      return { reply, target: { type: 'invoice', id } };
    },
  },
  // ---- end orders ----

  // ---- engines, providers and settings (h/op-engines): append rows here ----
  {
    route: 'POST /admin/api/models/installs',
    action: 'model.install',
    async run(h, client) {
      // A catalogue of one model on a port nothing listens on: the install is recorded and fails offline at once.
      h.t.ctx.modelInstalls.source = () =>
        parseCatalogue({
          bases: { local: 'http://127.0.0.1:1/' },
          models: [
            {
              name: 'audit-sample',
              family: 'piper',
              languages: ['en'],
              speakers: 1,
              sampleRate: 16000,
              downloads: [{ base: 'local', path: 'audit-sample.onnx', bytes: 10, file: 'model.onnx' }],
              licence: { name: 'MIT', commercial: true },
              source: 'test',
            },
          ],
        });
      const reply = await client.post('/admin/api/models/installs', { name: 'audit-sample' });
      await h.t.ctx.modelInstalls.drain();
      return { reply, target: { type: 'model', id: 'audit-sample' } };
    },
  },
  {
    route: 'DELETE /admin/api/models/:name',
    action: 'model.remove',
    async run(h, client) {
      await fs.mkdir(path.join(h.t.ctx.config.MODELS_DIR, 'hand-placed'), { recursive: true });
      const reply = await client.delete('/admin/api/models/hand-placed');
      return { reply, target: { type: 'model', id: 'hand-placed' } };
    },
  },
  ...(
    [
      ['POST /admin/api/providers', 'provider.create', (id: string, c: Client) => c.post('/admin/api/providers', providerBody())],
      [
        'PATCH /admin/api/providers/:id',
        'provider.update',
        (id: string, c: Client) => c.request('PATCH', `/admin/api/providers/${id}`, { name: 'Renamed' }),
      ],
      [
        'PUT /admin/api/providers/:id/enabled',
        'provider.enable',
        (id: string, c: Client) => c.put(`/admin/api/providers/${id}/enabled`, { enabled: true }),
      ],
      [
        'POST /admin/api/providers/:id/test',
        'provider.test',
        (id: string, c: Client) => c.post(`/admin/api/providers/${id}/test`),
      ],
      ['DELETE /admin/api/providers/:id', 'provider.delete', (id: string, c: Client) => c.delete(`/admin/api/providers/${id}`)],
    ] as const
  ).map(([route, action, call]): Sample => ({
    route,
    action,
    async run(h, client) {
      if (route === 'POST /admin/api/providers') {
        const reply = await call('', client);
        return { reply, target: { type: 'provider', id: (reply.body as { id: string }).id } };
      }
      const { id } = await h.t.ctx.providers.create(providerBody());
      return { reply: await call(id, client), target: { type: 'provider', id } };
    },
  })),
  {
    route: 'PATCH /admin/api/settings',
    action: 'setting.update',
    async run(h, client) {
      const reply = await client.request('PATCH', '/admin/api/settings', { VERIFY_PER_MINUTE: 12 });
      return { reply, target: { type: 'settings', id: 'settings' } };
    },
  },
  // ---- end engines ----
  // ---- moderation (h/moderation) ----
  {
    route: 'POST /admin/api/moderation/terms',
    action: 'moderation.add_term',
    async run(_h, client) {
      const reply = await client.post('/admin/api/moderation/terms', { term: `audit sample ${Date.now()}`, category: 'audit' });
      return { reply, target: { type: 'moderation_term', id: (reply.body as { id: string }).id } };
    },
  },
  {
    route: 'DELETE /admin/api/moderation/terms/:id',
    action: 'moderation.remove_term',
    async run(h, client) {
      const { id } = await h.t.ctx.moderation.addTerm(h.t.ctx.db.kysely, `audit removed ${Date.now()}`, 'audit', 'test');
      return { reply: await client.delete(`/admin/api/moderation/terms/${id}`), target: { type: 'moderation_term', id } };
    },
  },
  // ---- end moderation ----

  // ---- reports and protected voices (h/reports): append rows here ----
  {
    route: 'POST /admin/api/protected-voices',
    action: 'protected_voice.add',
    reason: 'public figure',
    async run(h, client) {
      const form = new FormData();
      form.append('name', 'Audit sample');
      form.append('category', 'public_figure');
      form.append('reason', 'public figure');
      form.append('file', new Blob([new Uint8Array(await fs.readFile(JFK_WAV))], { type: 'audio/wav' }), 'jfk.wav');
      const reply = await client.post('/admin/api/protected-voices', form);
      return { reply, target: { type: 'protected_voice', id: (reply.body as { id: string }).id } };
    },
  },
  {
    route: 'DELETE /admin/api/protected-voices/:id',
    action: 'protected_voice.remove',
    reason: 'mistake',
    async run(h, client) {
      const id = await protectedVoice(h);
      return {
        reply: await client.delete(`/admin/api/protected-voices/${id}?reason=mistake`),
        target: { type: 'protected_voice', id },
      };
    },
  },
  {
    route: 'POST /admin/api/reports/:id/review',
    action: 'report.review',
    reason: 'looking',
    async run(h, client) {
      const id = await voiceReport(h);
      return {
        reply: await client.post(`/admin/api/reports/${id}/review`, { reason: 'looking' }),
        target: { type: 'report', id },
      };
    },
  },
  {
    route: 'POST /admin/api/reports/:id/reject',
    action: 'report.reject',
    reason: 'no breach',
    async run(h, client) {
      const id = await voiceReport(h);
      return {
        reply: await client.post(`/admin/api/reports/${id}/reject`, { reason: 'no breach' }),
        target: { type: 'report', id },
      };
    },
  },
  {
    route: 'POST /admin/api/reports/:id/takedown',
    action: 'voice.takedown',
    reason: 'impersonation',
    async run(h, client) {
      const { reportId, voiceId } = await ownVoiceReport(h);
      const reply = await client.post(`/admin/api/reports/${reportId}/takedown`, { reason: 'impersonation' });
      return { reply, target: { type: 'voice', id: voiceId } };
    },
  },
  {
    route: 'POST /admin/api/reports/:id/protect',
    action: 'protected_voice.add',
    reason: 'keep it out',
    async run(h, client) {
      const { reportId } = await ownVoiceReport(h);
      const reply = await client.post(`/admin/api/reports/${reportId}/protect`, { reason: 'keep it out', name: 'Reported' });
      const entry = await h.t.ctx.db.kysely
        .selectFrom('protected_voices')
        .select('id')
        .where('report_id', '=', reportId)
        .executeTakeFirstOrThrow();
      return { reply, target: { type: 'protected_voice', id: entry.id } };
    },
  },
  {
    route: 'POST /admin/api/reports/:id/disable-account',
    action: 'account.disable',
    reason: 'abuse',
    async run(h, client) {
      const { reportId, accountId } = await ownVoiceReport(h);
      const reply = await client.post(`/admin/api/reports/${reportId}/disable-account`, { reason: 'abuse' });
      return { reply, target: { type: 'account', id: accountId } };
    },
  },
  // ---- end reports ----
];

/** A provider on a port nothing listens on (h/op-engines): its test fails at once, offline. */
function providerBody() {
  return { kind: 'openai' as const, name: 'Audit sample', url: 'http://127.0.0.1:1', key: 'sk-audit-sample-1234' };
}
// ---- orders, receipts and invoices (h/op-orders): helpers of its samples ----
/** A customer's credit pack paid through the sandbox; its order id. */
async function paidSandboxOrder(h: Harness): Promise<string> {
  const c = await h.customer();
  const order = await newOrder(c.client, 'credits_100k');
  const done = await complete(h.t, order.id, { token: await sandboxToken(c.client, order.id), outcome: 'success' });
  if (done.status !== 303) throw new Error(`sandbox payment failed ${done.status}`);
  return order.id;
}
/** A 发票 request on a paid order; its id. */
async function invoiceRequest(h: Harness): Promise<string> {
  const c = await h.customer();
  const orderId = await paidSandboxOrder({ ...h, customer: async () => c });
  const res = await c.client.post(`/accounts/me/orders/${orderId}/invoice`, {
    type: 'normal',
    title: 'ACME Ltd',
    email: c.email,
  });
  if (res.status !== 201) throw new Error(`invoice request failed ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
}
// ---- end orders helpers ----

// ---- reports and protected voices (h/reports): helpers of its samples ----
/** A protected voice made straight in the table (its audit entry is not the call's); its id. */
async function protectedVoice(h: Harness): Promise<string> {
  const id = `pvc_audit_${Math.random().toString(36).slice(2)}`;
  const op = await h.as('owner');
  await h.t.ctx.db.kysely
    .insertInto('protected_voices')
    .values({
      id,
      name: 'x',
      category: 'other',
      voiceprint: '[]',
      storage_key: null,
      source_voice_id: null,
      report_id: null,
      created_by: op.accountId,
      created_at: new Date().toISOString(),
    })
    .execute();
  return id;
}
/** A report of a library voice; its id. */
async function voiceReport(h: Harness): Promise<string> {
  const res = await new Client(h.t.url).post('/reports', {
    reason: 'other',
    contact: 'reporter@example.com',
    voice_id: 'voice_espeak.en-us',
  });
  if (res.status !== 201) throw new Error(`report failed ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
}
/** A customer's clone voice (written straight into the tables, with a sample's measures) and a report of it. */
async function ownVoiceReport(h: Harness): Promise<{ reportId: string; voiceId: string; accountId: string }> {
  const c = await h.customer();
  const now = new Date().toISOString();
  const suffix = Math.random().toString(36).slice(2);
  const fileId = `file_audit_${suffix}`;
  const voiceId = `voice_audit_${suffix}`;
  const voiceprint = Array.from({ length: 33 }, (_, i) => (i === 32 ? 7 : i / 10));
  const db = h.t.ctx.db.kysely;
  await db
    .insertInto('voice_samples')
    .values({
      id: fileId,
      account_id: c.accountId,
      idx: 1,
      format: 'wav',
      size: 1,
      duration: 11,
      sample_rate: 16000,
      measures: JSON.stringify({ measures: { voiceprint } }),
      noisy: 0,
      storage_key: `samples/${fileId}.wav`,
      consent_at: now,
      consent_ip: '127.0.0.1',
      sha256: null,
      synthetic: null,
      created_at: now,
    })
    .execute();
  await db
    .insertInto('own_voices')
    .values({
      id: voiceId,
      account_id: c.accountId,
      name: 'Reported',
      type: 'clone',
      model: 'flite',
      gender: 'male',
      languages: '["en"]',
      base_voice: 'flite:slt',
      profile: '{}',
      mix: null,
      prompt: null,
      file_id: fileId,
      transcript: null,
      preview_id: null,
      audio_key: null,
      status: 'active',
      created_at: now,
      updated_at: now,
    })
    .execute();
  const res = await new Client(h.t.url).post('/reports', {
    reason: 'impersonation',
    contact: 'reporter@example.com',
    voice_id: voiceId,
  });
  if (res.status !== 201) throw new Error(`report failed ${res.status} ${JSON.stringify(res.body)}`);
  return { reportId: (res.body as { id: string }).id, voiceId, accountId: c.accountId };
}
// ---- end reports helpers ----

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe.each(DIALECTS)('operator routes: audit coverage (%s)', (dialect) => {
  let t: TestApp;
  const operators = new Map<OperatorRole, { client: Client; accountId: string; email: string }>();
  let n = 0;
  const h: Harness = {
    get t() {
      return t;
    },
    async as(role) {
      if (!operators.has(role)) operators.set(role, await makeOperator(t, role));
      return operators.get(role)!;
    },
    async customer() {
      const client = new Client(t.url, 'en');
      await client.anonymous();
      const email = `customer-${dialect}-${process.pid}-${++n}@example.com`;
      const account = (await signIn(client, t.outbox, email)) as { id: string };
      return { client, accountId: account.id, email };
    },
  };

  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { REPORTS_PER_HOUR: '100' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('has a sample call for every mutating operator route in the route table', () => {
    const mutating = [...t.app.authRules.entries()]
      .filter(([key, rule]) => rule === 'operator' && MUTATING.has(key.split(' ')[0]!) && key.includes(' /admin/api/'))
      .map(([key]) => key);
    expect(mutating.length).toBeGreaterThan(0);
    const sampled = new Set(SAMPLES.map((s) => s.route));
    expect(mutating.filter((route) => !sampled.has(route))).toEqual([]);
    // …and no sample names a route that does not exist.
    expect(SAMPLES.map((s) => s.route).filter((route) => !t.app.authRules.has(route))).toEqual([]);
  });

  it.each(SAMPLES.map((s) => [`${s.route} → ${s.action}`, s] as const))('%s writes exactly one entry', async (_name, sample) => {
    const actor = await h.as(sample.role ?? 'owner');
    const before = await t.ctx.db.kysely.selectFrom('audit_log').selectAll().execute();
    const { reply, target, by } = await sample.run(h, actor.client);
    expect(reply.status, JSON.stringify(reply.body)).toBeGreaterThanOrEqual(200);
    expect(reply.status).toBeLessThan(300);
    const after = await t.ctx.db.kysely.selectFrom('audit_log').selectAll().execute();
    const known = new Set(before.map((e) => e.id));
    // Entries written by the sample's own preparation (making operators) are not the call's: the call's carry its request id.
    const requestId = reply.headers.get('x-request-id');
    const written = after.filter((e) => !known.has(e.id) && e.request_id === requestId);
    expect(written).toHaveLength(1);
    const entry = written[0]!;
    const who = by ?? { accountId: actor.accountId, role: sample.role ?? 'owner' };
    expect(entry).toMatchObject({
      operator_id: who.accountId,
      operator_role: who.role,
      request_id: requestId,
      action: sample.action,
      target_type: target.type,
      target_id: target.id,
      ip: '127.0.0.1',
      reason: sample.reason ?? null,
    });
    expect(entry.at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});
