import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';

const SHIPPED = fileURLToPath(new URL('../../config/sensitive-words.txt', import.meta.url));

describe.each(DIALECTS)('sensitive words as operator data (%s)', (dialect) => {
  let t: TestApp;
  let dir: string;
  let operatorFile: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-words-'));
    operatorFile = path.join(dir, 'operator.txt');
    fs.writeFileSync(operatorFile, '# our own\n[operator: names]\nAcme Voices\n');
    t = await startTestApp(dialect, {
      env: { SPEECH_WARMUP: 'false', SENSITIVE_WORDS_FILES: `${SHIPPED}, ${operatorFile}` },
    });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the shipped words and the operator’s own in account names, and accepts ordinary names', async () => {
    const c = new Client(t.url);
    await c.anonymous();
    expectError(await c.put('/accounts/me', { name: 'ACME-voices' }), 'SENSITIVE_WORDS', 422);
    expectError(await c.put('/accounts/me', { name: '4dm1n' }), 'SENSITIVE_WORDS', 422);
    expect((await c.put('/accounts/me', { name: 'Acme fan' })).status).toBe(200);
  });

  it('refuses sensitive API key names on create and rename, in the request language, and keeps the old name', async () => {
    const c = new Client(t.url, 'zh-CN');
    await c.anonymous();
    for (const name of ['Polyvox官方', 'admin', 'f u c k', '法轮功', 'Acme Voices']) {
      expect(expectError(await c.put('/api/authorization', { name }), 'SENSITIVE_WORDS', 422).message).toMatch(/敏感词/);
    }
    expect((await c.get('/api/authorization')).body.items).toEqual([]);
    const created = await c.put('/api/authorization', { name: 'Scunthorpe build server' });
    expect(created.status).toBe(201);
    expectError(await c.request('PATCH', '/api/authorization', { id: created.body.id, name: 'Staff' }), 'SENSITIVE_WORDS', 422);
    expect((await c.get('/api/authorization')).body.items.map((k: { name: string }) => k.name)).toEqual([
      'Scunthorpe build server',
    ]);
  });

  it('takes words the operator adds to a list without a restart', async () => {
    const c = new Client(t.url);
    await c.anonymous();
    expect((await c.put('/accounts/me', { name: 'Globex' })).status).toBe(200);
    fs.appendFileSync(operatorFile, 'globex\n');
    await vi.waitFor(
      async () => {
        expectError(await c.put('/accounts/me', { name: 'G.L.O.B.E.X' }), 'SENSITIVE_WORDS', 422);
      },
      { timeout: 30_000, interval: 200 },
    );
  });
});

describe('a sensitive-word list that cannot be read', () => {
  it('stops the start with a message naming the setting', async () => {
    const missing = path.join(os.tmpdir(), `polyvox-no-such-words-${process.pid}.txt`);
    await expect(startTestApp('sqlite', { env: { SENSITIVE_WORDS_FILES: missing } })).rejects.toThrow(
      /SENSITIVE_WORDS_FILES: .*no-such-words/,
    );
  });
});
