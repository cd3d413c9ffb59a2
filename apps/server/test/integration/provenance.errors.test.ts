/**
 * The public check refused as the contract says: no file, a file that is not audio, an address that is not this
 * server's (or a list, a prototype key, a NUL where one address goes), and a client past its rate; in the caller's
 * language; and nothing it is given reaches the record of another account. The search runs beside the event loop, which
 * keeps answering, and a check that would queue behind too many searches is refused.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectionsQueued } from '@polyvox/speech/watermark';
import { joinedLj } from '../../../../packages/speech/test/support/fixtures.js';
import { watermarkDetector } from '../../src/provenance/verify.js';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';

describe.each(DIALECTS)('POST /provenance/verify, errors (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', VERIFY_PER_MINUTE: '12' } });
    c = new Client(t.url);
    await c.anonymous();
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  const form = (bytes: Buffer | string, field = 'file') => {
    const f = new FormData();
    f.append(field, new Blob([typeof bytes === 'string' ? Buffer.from(bytes) : bytes]), 'x.bin');
    return f;
  };

  it('refuses a body without a file or address, a file that is not audio, and addresses that are not ours', async () => {
    expectError(await c.post('/provenance/verify', {}), 'PARAMETERS_NEEDED');
    expectError(await c.post('/provenance/verify', form('hello', 'other')), 'PARAMETERS_NEEDED');
    expectError(await c.post('/provenance/verify', form('just some text, not audio at all')), 'UNSUPPORTED_FILE_TYPE');
    expectError(await c.post('/provenance/verify', { url: 'https://example.com/a.mp3' }), 'VALIDATION_FAILED');
    expectError(await c.post('/provenance/verify', { url: '/provenance/verify' }), 'VALIDATION_FAILED');
    // A list, a prototype key or a NUL where one address goes.
    expectError(await c.post('/provenance/verify', { url: ['/voice'] }), 'PARAMETERS_NEEDED');
    const proto = await c.request('POST', '/provenance/verify', undefined, { 'content-type': 'application/json' });
    expect(proto.status).toBe(400);
    const res = await fetch(`${t.url}/provenance/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid! },
      body: '{"__proto__": {"url": "/voice/preview/voice_flite.slt.mp3"}}',
    });
    expect(res.status).toBe(400);
    expectError(await c.post('/provenance/verify', { url: '/voice/preview/\u0000.mp3' }), 'VALIDATION_FAILED');
    // A path of this server that is no audio.
    expectError(await c.post('/provenance/verify', { url: '/tts/config' }), 'UNSUPPORTED_FILE_TYPE');
  });

  it('keeps answering other requests while it searches a file without the mark', async () => {
    // 50 s of a person reading: the check searches its first 30 s to the end (nothing to stop it early).
    const human = readFileSync(joinedLj());
    let checked = false;
    const check = c.post('/provenance/verify', form(human)).then((r) => {
      checked = true;
      return r;
    });
    await expect.poll(() => detectionsQueued() > 0 || checked, { timeout: 60_000, interval: 5 }).toBe(true);
    expect(checked).toBe(false);
    // While the search runs, the server answers.
    const health = await c.get('/accounts/me');
    expect(health.status).toBe(200);
    expect(checked).toBe(false);
    const res = await check;
    expect(res.status).toBe(200);
    expect(res.body.watermark.detected).toBe(false);
    expect(res.body.ai_generated).toBe(false);
  });

  it('survives a client that leaves while its file is searched, and answers the next check', async () => {
    const human = readFileSync(joinedLj());
    const gone = new AbortController();
    const left = fetch(`${t.url}/provenance/verify`, { method: 'POST', body: form(human), signal: gone.signal });
    left.catch(() => undefined);
    await expect.poll(() => detectionsQueued() > 0, { timeout: 60_000, interval: 5 }).toBe(true);
    gone.abort();
    await expect(left).rejects.toThrow();
    // The search runs to its end in its thread (aborting it would end the thread and the checks queued behind it).
    await expect.poll(() => detectionsQueued(), { timeout: 60_000, interval: 20 }).toBe(0);
    const next = await c.post('/provenance/verify', form(human));
    expect(next.status).toBe(200);
    expect(next.body.watermark.detected).toBe(false);
    expect((await c.get('/accounts/me')).status).toBe(200);
  });

  it('refuses a check that would wait behind too many searches, with retry-after', async () => {
    const detect = watermarkDetector(t.ctx.provenance.watermarkKey, { maxQueued: 1 });
    const noise = Float32Array.from({ length: 16000 * 10 }, (_, i) => Math.sin(i * 0.37) * 0.1);
    const first = detect(noise.slice(), 16000);
    const second = detect(noise.slice(), 16000);
    await expect(second).rejects.toMatchObject({ code: 'RATE_LIMITED', headers: { 'retry-after': '5' } });
    expect((await first).detected).toBe(false);
  });

  it('answers in the caller’s language, and refuses a client past its rate with retry-after', async () => {
    const zh = new Client(t.url, 'zh-CN');
    zh.sid = c.sid;
    const refused = await zh.post('/provenance/verify', form('not audio'));
    expect(refused.status).toBe(415);
    expect(refused.body.error.message).toMatch(/[\u4e00-\u9fff]/);
    let last = refused;
    for (let i = 0; i < 15 && last.status !== 429; i++) last = await c.post('/provenance/verify', form('not audio'));
    expectError(last, 'RATE_LIMITED');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
