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
      .poll(async () => ((await c.get('/voice?page_size=100')).body.items as { id: string }[]).some((v) => v.id === 'voice_openai.alloy'), POLL)
      .toBe(true);
    const res = await c.post('/tts', { text: 'Hello there.', voice_id: 'voice_openai.alloy', format: 'wav' });
    expect(res.status).toBe(200);
    const spoken = fake.requests.filter((r) => r.path === '/v1/audio/speech');
    expect(spoken.length).toBeGreaterThan(0);
    expect(spoken.at(-1)!.headers.authorization).toBe('Bearer good');
    expect(spoken.at(-1)!.body).toMatchObject({ model: 'tts-1', voice: 'alloy' });

    const row = await t.ctx.db.kysely.selectFrom('remote_providers').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.key_sealed).not.toContain(key);
    expect(row.key_sealed.startsWith('v1.')).toBe(true);
    expect(unseal(loadSecret(t.ctx.config.SECRET, t.ctx.config.DATA_DIR), 'remote-provider-key', row.key_sealed)).toBe(key);
    expect(() => unseal('another-secret-of-32-characters!', 'remote-provider-key', row.key_sealed)).toThrow();

    // Disabled on the first process: the other drops its voices.
    await t.ctx.providers.setEnabled(created.id, false);
    await expect
      .poll(async () => ((await c.get('/voice?page_size=100')).body.items as { id: string }[]).some((v) => v.id === 'voice_openai.alloy'), POLL)
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
      expect.objectContaining({ name: kokoro.name, licence: expect.objectContaining({ name: 'CC-BY-NC-SA-4.0', commercial: false }) }),
    ]);
    await expect(t.ctx.modelInstalls.start(kokoro.name, 'acc_test')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    t.ctx.modelInstalls.remove(kokoro.name);
    expect(t.ctx.modelInstalls.listInstalled()).toEqual([]);
    expect(() => t.ctx.modelInstalls.remove(kokoro.name)).toThrow();
  }, 120_000);
});
