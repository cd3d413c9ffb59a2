/**
 * Issue 30, points 8 and 9 across processes: a setting changed on one process is in force on another without a
 * restart; a remote provider added and enabled on one process speaks on another (a fake provider speaking OpenAI's
 * wire protocol), its key sealed in the database; the environment's provider wins over the console's; a catalogue
 * model installs in the background with its progress, from a local release server, and is removed.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, codeFromOutbox } from '../support/client.js';
import { makeOperator } from '../support/operators.js';
import { DIALECTS, startPeer, startTestApp, type TestApp } from '../support/app.js';
import { buildReleases, serveReleases, type Release, type ReleaseServer } from '../support/model-releases.js';
import { openAIServer, type ProviderServer } from '../../../../packages/speech/test/support/provider-servers.js';
import { unseal } from '../../src/platform/crypto.js';
import { loadSecret } from '../../src/platform/secret.js';

const POLL = { timeout: 30_000, interval: 100 };

describe.each(DIALECTS)('operator settings and providers across processes (%s)', (dialect) => {
  let t: TestApp;
  let peer: Awaited<ReturnType<typeof startPeer>>;
  let fake: ProviderServer;

  beforeAll(async () => {
    fake = await openAIServer();
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', SPEECH_WARMUP: 'false' } });
    peer = await startPeer(t);
  }, 120_000);
  afterAll(async () => {
    await peer?.close();
    await t?.close();
    await fake?.close();
  });

  it('a setting changed on one process applies on the other: sign-up closes (told in the reader language) and reopens, the trial amount follows', async () => {
    const other = new Client(peer.url, 'zh-CN');
    const email = `closed-${dialect}@example.com`;
    await t.ctx.settings.update({ SIGNUP_OPEN: false, ANONYMOUS_TRIAL_CREDITS: 7 }, 'acc_test');
    await expect.poll(() => peer.ctx.settings.current().SIGNUP_OPEN, POLL).toBe(false);
    expect((await other.post('/verification/email', { email })).status).toBe(200);
    const refused = await other.post('/auth/email', { email, vcode: await codeFromOutbox(t.outbox, email) });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', message: '暂未开放注册：仅已有账户可以登录' });
    const visitor = new Client(peer.url);
    expect((await visitor.anonymous()).account.vip.credits).toBe(7);

    await t.ctx.settings.update({ SIGNUP_OPEN: true, ANONYMOUS_TRIAL_CREDITS: 1000 }, 'acc_test');
    await expect.poll(() => peer.ctx.settings.current().SIGNUP_OPEN, POLL).toBe(true);
    const reopened = `open-${dialect}@example.com`;
    expect((await other.post('/verification/email', { email: reopened })).status).toBe(200);
    const signed = await other.post('/auth/email', { email: reopened, vcode: await codeFromOutbox(t.outbox, reopened) });
    expect(signed.status).toBe(200);
  }, 60_000);

  it('a provider added and enabled on one process speaks on the other, without a restart; its key is sealed', async () => {
    const key = 'good';
    const created = await t.ctx.providers.create({ kind: 'openai', name: 'Fake OpenAI', url: fake.url, model: 'tts-1', key });
    expect(created).toMatchObject({ key_hint: '…', enabled: false, overridden_by_env: false });
    expect(JSON.stringify(created)).not.toContain('"good"');
    await t.ctx.providers.setEnabled(created.id, true);
    const c = new Client(peer.url);
    await c.anonymous();
    await expect
      .poll(
        async () =>
          ((await c.get('/voice?page_size=100')).body.items as { id: string }[]).some((v) => v.id === 'voice_openai.alloy'),
        POLL,
      )
      .toBe(true);
    const res = await c.post('/tts', { text: 'Hello there.', voice_id: 'voice_openai.alloy', format: 'wav' });
    expect(res.status).toBe(200);
    const spoken = fake.requests.filter((r) => r.path === '/v1/audio/speech');
    expect(spoken.length).toBeGreaterThan(0);
    expect(spoken.at(-1)!.headers.authorization).toBe('Bearer good');
    expect(spoken.at(-1)!.body).toMatchObject({ model: 'tts-1', voice: 'alloy' });

    const row = await t.ctx.db.kysely
      .selectFrom('remote_providers')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.key_sealed).not.toContain(key);
    expect(row.key_sealed.startsWith('v1.')).toBe(true);
    expect(unseal(loadSecret(t.ctx.config.SECRET, t.ctx.config.DATA_DIR), 'remote-provider-key', row.key_sealed)).toBe(key);
    expect(() => unseal('another-secret-of-32-characters!', 'remote-provider-key', row.key_sealed)).toThrow();

    // Disabled on the first process: the other drops its voices.
    await t.ctx.providers.setEnabled(created.id, false);
    await expect
      .poll(
        async () =>
          ((await c.get('/voice?page_size=100')).body.items as { id: string }[]).some((v) => v.id === 'voice_openai.alloy'),
        POLL,
      )
      .toBe(false);
  }, 120_000);
});

describe.each(DIALECTS)('the environment wins over the console (%s)', (dialect) => {
  let t: TestApp;
  let fromEnv: ProviderServer;
  let fromConsole: ProviderServer;

  beforeAll(async () => {
    fromEnv = await openAIServer();
    fromConsole = await openAIServer();
    t = await startTestApp(dialect, {
      env: { SPEECH_WORKERS: '1', SPEECH_WARMUP: 'false', OPENAI_TTS_URL: fromEnv.url, OPENAI_TTS_KEY: 'good' },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await fromEnv?.close();
    await fromConsole?.close();
  });

  it('a console provider of a kind the environment sets is marked overridden and never called', async () => {
    const p = await t.ctx.providers.create({ kind: 'openai', name: 'Console', url: fromConsole.url, key: 'good' });
    await t.ctx.providers.setEnabled(p.id, true);
    await t.ctx.providerSync.sync();
    expect(t.ctx.providers.envKinds()).toEqual(['openai']);
    expect((await t.ctx.providers.list())[0]).toMatchObject({ overridden_by_env: true, enabled: true });
    const c = new Client(t.url);
    await c.anonymous();
    const res = await c.post('/tts', { text: 'From the environment.', voice_id: 'voice_openai.alloy', format: 'wav' });
    expect(res.status).toBe(200);
    expect(fromEnv.requests.some((r) => r.path === '/v1/audio/speech')).toBe(true);
    expect(fromConsole.requests).toEqual([]);
  }, 120_000);

  it("tells a provider test's outcome in the reader's language: the voices found, or the provider's refusal", async () => {
    const good = await t.ctx.providers.create({ kind: 'openai', name: 'Good', url: fromConsole.url, key: 'good' });
    const bad = await t.ctx.providers.create({ kind: 'openai', name: 'Bad', url: fromConsole.url, key: 'wrong' });
    const owner = await makeOperator(t, 'owner', 'zh-CN');
    const tested = await owner.client.post(`/admin/api/providers/${good.id}/test`);
    expect(tested.status).toBe(200);
    const voices = (tested.body.last_test.message as string).match(/^(\d+) 个声音$/)?.[1];
    expect(Number(voices)).toBeGreaterThan(0);
    const inTw = new Client(t.url, 'zh-TW');
    inTw.sid = owner.client.sid;
    const inEn = new Client(t.url, 'en');
    inEn.sid = owner.client.sid;
    const find = async (c: Client, id: string) =>
      ((await c.get('/admin/api/providers')).body.items as { id: string; last_test: { ok: boolean; message: string } }[]).find(
        (p) => p.id === id,
      )!.last_test;
    expect(await find(inTw, good.id)).toMatchObject({ ok: true, message: `${voices} 個聲音` });
    expect(await find(inEn, good.id)).toMatchObject({ ok: true, message: `${voices} voices` });
    const refused = await owner.client.post(`/admin/api/providers/${bad.id}/test`);
    expect(refused.body.last_test.ok).toBe(false);
    const [code, zh] = (refused.body.last_test.message as string).split(': ');
    const en = (await find(inEn, bad.id)).message;
    expect(en.startsWith(`${code}: `)).toBe(true);
    expect(zh).toMatch(/[\u4e00-\u9fff]/);
    expect(en.slice(code!.length + 2)).not.toMatch(/[\u4e00-\u9fff]/);
    // The trail keeps the outcome in English.
    const entry = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .select('after')
      .where('action', '=', 'provider.test')
      .where('target_id', '=', good.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(entry.after!)).toMatchObject({ ok: true, message: `${voices} voices` });
  }, 60_000);
});

describe.each(DIALECTS)('a catalogue model installed from the console in the background (%s)', (dialect) => {
  let t: TestApp;
  let work: string;
  let server: ReleaseServer;
  let kokoro: Release;

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-console-models-'));
    kokoro = (await buildReleases(path.join(work, 'build'))).find((r) => r.family === 'kokoro')!;
    server = await serveReleases(kokoro.files);
    const catalogue = path.join(work, 'catalogue.json');
    await fs.writeFile(
      catalogue,
      JSON.stringify({
        bases: { 'sherpa-onnx': server.url, piper: server.url },
        models: [
          {
            name: kokoro.name,
            family: 'kokoro',
            languages: ['en'],
            speakers: 2,
            sampleRate: 16000,
            downloads: kokoro.downloads,
            licence: { name: 'CC-BY-NC-SA-4.0', commercial: false },
            source: 'test',
          },
        ],
      }),
    );
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', SPEECH_WARMUP: 'false', MODELS_CATALOGUE: catalogue } });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await server?.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  it('installs with its progress recorded, lists the licence, and removes it', async () => {
    expect(t.ctx.modelInstalls.listCatalogue()).toEqual([
      expect.objectContaining({ name: kokoro.name, installed: false, licence: expect.objectContaining({ commercial: false }) }),
    ]);
    const job = await t.ctx.modelInstalls.start(kokoro.name, 'acc_test');
    expect(job).toMatchObject({ status: 'running', bytes_done: 0 });
    expect(job.bytes_total).toBeGreaterThan(0);
    await t.ctx.modelInstalls.run(job);
    const done = await t.ctx.modelInstalls.get(job.id);
    expect(done).toMatchObject({ status: 'succeeded', error: null, bytes_done: job.bytes_total });
    expect(t.ctx.modelInstalls.listInstalled()).toEqual([
      expect.objectContaining({
        name: kokoro.name,
        licence: expect.objectContaining({ name: 'CC-BY-NC-SA-4.0', commercial: false }),
      }),
    ]);
    await expect(t.ctx.modelInstalls.start(kokoro.name, 'acc_test')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    t.ctx.modelInstalls.remove(kokoro.name);
    expect(t.ctx.modelInstalls.listInstalled()).toEqual([]);
    expect(() => t.ctx.modelInstalls.remove(kokoro.name)).toThrow();
  }, 120_000);
});

describe.each(DIALECTS)('the console routes of engines, providers and settings (%s)', (dialect) => {
  let t: TestApp;
  let work: string;
  let server: ReleaseServer;
  let kokoro: Release;
  let owner: Client;
  let admin: Client;
  const SECRET_KEY = 'sk-console-secret-key-9f8e7d';

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-console-routes-'));
    kokoro = (await buildReleases(path.join(work, 'build'))).find((r) => r.family === 'kokoro')!;
    server = await serveReleases(kokoro.files);
    const catalogue = path.join(work, 'catalogue.json');
    await fs.writeFile(
      catalogue,
      JSON.stringify({
        bases: { 'sherpa-onnx': server.url, piper: server.url },
        models: [
          {
            name: kokoro.name,
            family: 'kokoro',
            languages: ['en'],
            speakers: 2,
            sampleRate: 16000,
            downloads: kokoro.downloads,
            licence: { name: 'CC-BY-NC-SA-4.0', commercial: false },
            source: 'test',
          },
          // The same files, listed with a wrong SHA-256: its install fails, told in the reader's language.
          {
            name: `${kokoro.name}-mislisted`,
            family: 'kokoro',
            languages: ['en'],
            speakers: 2,
            sampleRate: 16000,
            downloads: kokoro.downloads.map((d) => ({ ...d, sha256: '0'.repeat(64) })),
            licence: { name: 'Apache-2.0', commercial: true },
            source: 'test',
          },
        ],
      }),
    );
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', SPEECH_WARMUP: 'false', MODELS_CATALOGUE: catalogue } });
    owner = (await makeOperator(t, 'owner')).client;
    admin = (await makeOperator(t, 'admin', 'zh-CN')).client;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await server?.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  it('refuses an invalid setting naming the rule, and audits a change with its values before and after', async () => {
    const bad = await owner.request('PATCH', '/admin/api/settings', { VERIFY_PER_MINUTE: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'Invalid value for VERIFY_PER_MINUTE: must be at least 1',
    });
    const label = await admin.request('PATCH', '/admin/api/settings', { AI_LABEL_EXPLICIT: 'loud' });
    expect(label.status).toBe(400);
    expect(label.body.error.code).toBe('VALIDATION_FAILED');
    expect(label.body.error.message).toContain('AI_LABEL_EXPLICIT');
    const unknown = await owner.request('PATCH', '/admin/api/settings', { SECRET: 'x'.repeat(20) });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('VALIDATION_FAILED');
    expect((await owner.get('/admin/api/settings')).body).toMatchObject({ version: 0, overrides: {} });

    const ok = await owner.request('PATCH', '/admin/api/settings', { VERIFY_PER_MINUTE: 25, SIGNUP_OPEN: false });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      version: 1,
      overrides: { VERIFY_PER_MINUTE: 25, SIGNUP_OPEN: false },
      starting: { VERIFY_PER_MINUTE: 10, SIGNUP_OPEN: true },
      values: { VERIFY_PER_MINUTE: 25, SIGNUP_OPEN: false, AI_LABEL_EXPLICIT: 'off' },
    });
    const entry = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'setting.update')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(entry.before!)).toEqual({ VERIFY_PER_MINUTE: 10, SIGNUP_OPEN: true });
    expect(JSON.parse(entry.after!)).toEqual({ VERIFY_PER_MINUTE: 25, SIGNUP_OPEN: false });
    await owner.request('PATCH', '/admin/api/settings', { SIGNUP_OPEN: true });
  });

  it('refuses a settings change prepared from an older version (If-Match): 409 with the current ETag, told in the reader language', async () => {
    const read = await owner.get('/admin/api/settings');
    const etag = read.headers.get('etag')!;
    expect(etag).toBe(`"settings-v${read.body.version}"`);
    const first = await owner.request('PATCH', '/admin/api/settings', { VERIFY_PER_MINUTE: 21 }, { 'if-match': etag });
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe(`"settings-v${read.body.version + 1}"`);
    // The second operator read before the first saved: its write is refused, nothing changes, nothing is audited.
    const audited = async () =>
      (await t.ctx.db.kysely.selectFrom('audit_log').select('id').where('action', '=', 'setting.update').execute()).length;
    const entries = await audited();
    const stale = await admin.request('PATCH', '/admin/api/settings', { VERIFY_PER_MINUTE: 22 }, { 'if-match': etag });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: '在你打开之后已有人修改了这里的内容：请重新加载后再修改',
    });
    expect(stale.headers.get('etag')).toBe(first.headers.get('etag'));
    expect((await owner.get('/admin/api/settings')).body.values.VERIFY_PER_MINUTE).toBe(21);
    expect(await audited()).toBe(entries);
    // With the current ETag it goes through; a malformed one is refused naming the header.
    const retried = await admin.request(
      'PATCH',
      '/admin/api/settings',
      { VERIFY_PER_MINUTE: 22 },
      { 'if-match': stale.headers.get('etag')! },
    );
    expect(retried.status).toBe(200);
    expect(retried.body.values.VERIFY_PER_MINUTE).toBe(22);
    const bad = await owner.request('PATCH', '/admin/api/settings', { VERIFY_PER_MINUTE: 23 }, { 'if-match': '*' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('If-Match');
  });

  it("never answers a provider's key again, on any route, and keeps it sealed", async () => {
    const created = await owner.post('/admin/api/providers', {
      kind: 'elevenlabs',
      name: 'Studio',
      url: 'http://127.0.0.1:1',
      key: SECRET_KEY,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'elevenlabs', key_hint: `…${SECRET_KEY.slice(-4)}`, enabled: false });
    const id = created.body.id as string;
    const edited = await owner.request('PATCH', `/admin/api/providers/${id}`, { name: 'Studio 2', model: 'eleven_v3' });
    expect(edited.body).toMatchObject({ name: 'Studio 2', model: 'eleven_v3' });
    const tested = await owner.post(`/admin/api/providers/${id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.body.last_test).toMatchObject({ ok: false });
    const answers = [
      created,
      edited,
      tested,
      await owner.get('/admin/api/providers'),
      await owner.put(`/admin/api/providers/${id}/enabled`, { enabled: true }),
      await owner.get('/admin/api/engines'),
      await owner.get('/admin/api/audit'),
      await owner.get('/admin/api/audit/export'),
    ];
    for (const a of answers) expect(typeof a.body === 'string' ? a.body : JSON.stringify(a.body)).not.toContain(SECRET_KEY);
    const rows = await t.ctx.db.kysely.selectFrom('remote_providers').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(SECRET_KEY);
    const audit = await t.ctx.db.kysely.selectFrom('audit_log').selectAll().execute();
    expect(JSON.stringify(audit)).not.toContain(SECRET_KEY);
    expect(audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(['provider.create', 'provider.update', 'provider.test', 'provider.enable']),
    );
    // Unreachable, so the engines report it (the ElevenLabs engine lists its voices first) and keep the local ones.
    await expect
      .poll(
        async () =>
          ((await owner.get('/admin/api/engines')).body.engines as { id: string; status: string }[]).find(
            (e) => e.id === 'elevenlabs',
          )?.status,
        POLL,
      )
      .toBe('unavailable');
    expect((await owner.delete(`/admin/api/providers/${id}`)).status).toBe(200);
    expect((await owner.get('/admin/api/providers')).body.items).toEqual([]);
  }, 60_000);

  it('installs a non-commercial model only when an owner confirms, shows the progress, and removes it', async () => {
    const refused = await admin.post('/admin/api/models/installs', { name: kokoro.name });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('该模型的许可证不允许商业使用：只有所有者确认后才能安装');
    expect((await admin.post('/admin/api/models/installs', { name: kokoro.name, confirm_non_commercial: true })).status).toBe(
      403,
    );
    expect((await owner.post('/admin/api/models/installs', { name: kokoro.name })).status).toBe(403);
    expect((await owner.post('/admin/api/models/installs', { name: 'nothing-such' })).status).toBe(404);

    const started = await owner.post('/admin/api/models/installs', { name: kokoro.name, confirm_non_commercial: true });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ model: kokoro.name, status: 'running' });
    const seen: number[] = [];
    await expect
      .poll(async () => {
        const job = (await owner.get(`/admin/api/models/installs/${started.body.id}`)).body;
        seen.push(job.bytes_done);
        return job.status;
      }, POLL)
      .toBe('succeeded');
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(started.body.bytes_total);
    const models = (await owner.get('/admin/api/models')).body;
    expect(models.installed).toEqual([
      expect.objectContaining({ name: kokoro.name, licence: expect.objectContaining({ commercial: false }) }),
    ]);
    expect(models.catalogue[0]).toMatchObject({ name: kokoro.name, installed: true });
    const again = await owner.post('/admin/api/models/installs', { name: kokoro.name, confirm_non_commercial: true });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('VALIDATION_FAILED');
    const entry = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'model.install')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(entry.after!)).toMatchObject({
      licence: 'CC-BY-NC-SA-4.0',
      commercial: false,
      confirmed_non_commercial: true,
    });

    // A failed install is told in the reader's language, whoever started it.
    const failing = await owner.post('/admin/api/models/installs', { name: `${kokoro.name}-mislisted` });
    expect(failing.status).toBe(202);
    await expect
      .poll(async () => (await owner.get(`/admin/api/models/installs/${failing.body.id}`)).body.status, POLL)
      .toBe('failed');
    const told = async (lang: string) => {
      const reader = new Client(t.url, lang);
      reader.sid = owner.sid;
      return (await reader.get(`/admin/api/models/installs/${failing.body.id}`)).body.error as string;
    };
    expect(await told('en')).toMatch(/ does not match the catalogue's SHA-256: refused and deleted$/);
    expect(await told('zh-CN')).toMatch(/ 的 SHA-256 与目录不符：已拒绝并删除$/);
    expect(await told('zh-TW')).toMatch(/ 的 SHA-256 與目錄不符：已拒絕並刪除$/);
    const listed = (await admin.get('/admin/api/models')).body.installs as { id: string; error: string | null }[];
    expect(listed.find((i) => i.id === failing.body.id)?.error).toMatch(/与目录不符/);

    expect((await owner.delete(`/admin/api/models/${kokoro.name}`)).status).toBe(200);
    expect((await owner.get('/admin/api/models')).body.installed).toEqual([]);
    expect((await owner.delete(`/admin/api/models/${kokoro.name}`)).status).toBe(404);
  }, 120_000);
});
