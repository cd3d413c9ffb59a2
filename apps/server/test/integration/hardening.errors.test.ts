import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@polyvox/contracts';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';

/** Keys that name something on Object.prototype: a plain-object lookup by user input finds them. */
const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];

/** Sends raw bytes and returns everything the server answers before closing. */
function rawRequest(url: string, bytes: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

function parseRaw(answer: string): { status: number; headers: Map<string, string>; body: any } {
  const [head = '', ...rest] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n')) };
}

describe.each(DIALECTS)('bad input answers the contract, never 500 (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    c = new Client(t.url);
    await c.anonymous();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers random texts for a known language and refuses prototype names as a language', async () => {
    const zh = await c.get('/api/random/text?lang=zh-CN');
    expect(zh.status).toBe(200);
    expect(zh.body.lang).toBe('zh-CN');
    for (const lang of PROTO_KEYS) {
      const res = await c.get(`/api/random/text?lang=${lang}`);
      expectError(res, 'VALIDATION_FAILED');
      expect(res.body.error.message).toContain('lang');
    }
  });

  it('refuses prototype names as an OpenAI voice with 404, and still maps OpenAI voice names', async () => {
    for (const voice of PROTO_KEYS) {
      const res = await c.post('/v1/audio/speech', { model: 'tts-1', input: 'Hi.', voice });
      expectError(res, 'NOT_FOUND');
    }
  });

  it('reports an empty OpenAI input as field input', async () => {
    const res = await c.post('/v1/audio/speech', { model: 'tts-1', input: '', voice: 'alloy' });
    const error = expectError(res, 'VALIDATION_FAILED');
    expect(error.message).toContain('input');
    expect(error.message).not.toMatch(/\btext\b/);
  });

  it('refuses text without words for GnuSpeech with a 4xx, and speaks text with words', async () => {
    for (const text of ['?', '...', ' !? ']) {
      const res = await c.post('/tts/estimate', { text, voice_id: 'voice_gnuspeech.male' });
      expectError(res, 'VALIDATION_FAILED');
      const spoken = await c.post('/tts', { text, voice_id: 'voice_gnuspeech.male', format: 'wav' });
      expectError(spoken, 'VALIDATION_FAILED');
    }
    const ok = await c.post('/tts', { text: 'Hi?', voice_id: 'voice_gnuspeech.male', format: 'wav' });
    expect(ok.status).toBe(200);
  });

  it('refuses a NUL character in any field with 400 naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['/accounts/anonymous', { device: { udid: 'web-a\u0000b', model: 'x', brand: 'other', os: 'other' } }, 'device.udid'],
      ['/accounts/anonymous', { device: { udid: 'web-ok', model: 'a\u0000', brand: 'other', os: 'other' } }, 'device.model'],
      ['/accounts/anonymous', { channel: 'x\u0000', device: { udid: 'web-ok2', brand: 'other', os: 'other' } }, 'channel'],
      ['/accounts/anonymous', { referrer: '\u0000', device: { udid: 'web-ok3', brand: 'other', os: 'other' } }, 'referrer'],
      ['/verification/email', { email: 'a\u0000@example.com' }, 'email'],
    ];
    for (const [url, body, field] of cases) {
      const res = await c.post(url, body);
      expect(expectError(res, 'VALIDATION_FAILED').message, url).toContain(field);
    }
    const zh = await c.post('/verification/email?lang=zh-CN', { email: '\u0000' });
    expect(expectError(zh, 'VALIDATION_FAILED').message).toBe('email 的值无效：不能包含 NUL 字符');
    const named = await c.put('/accounts/me', { name: 'Al\u0000ce' });
    expect(expectError(named, 'VALIDATION_FAILED').message).toContain('name');
    const exists = await c.get('/accounts/exists?email=a%00b%40example.com');
    expect(expectError(exists, 'VALIDATION_FAILED').message).toContain('email');
  });

  it('answers 404 or 400 for /files/ paths with NUL or other bad bytes', async () => {
    for (const id of ['file_%00', '%00', 'a%00b', '%FF%FE', '..%2F..%2Fetc%2Fpasswd', '__proto__', 'constructor']) {
      const res = await c.get(`/files/${id}`);
      expectError(res, res.status === 404 ? 'NOT_FOUND' : 'VALIDATION_FAILED');
    }
    expectError(await c.get('/files/file_unknown'), 'NOT_FOUND');
  });

  it('refuses more than 10 multipart fields and a multipart body without a boundary', async () => {
    const form = new FormData();
    for (let i = 0; i < 12; i++) form.append(`f${i}`, 'x');
    form.append('type', 'avatar');
    expectError(await c.post('/uploads', form), 'VALIDATION_FAILED');
    const noBoundary = await c.request('POST', '/uploads', undefined, { 'content-type': 'multipart/form-data' });
    expect(noBoundary.status).toBeGreaterThanOrEqual(400);
    expect(noBoundary.status).toBeLessThan(500);
    expect(ERROR_CODES).toContain(noBoundary.body.error.code);
    const raw = await fetch(`${t.url}/uploads`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data', 'x-sid': c.sid! },
      body: '--x\r\ncontent-disposition: form-data; name="type"\r\n\r\navatar\r\n--x--\r\n',
    });
    expect(raw.status).toBeGreaterThanOrEqual(400);
    expect(raw.status).toBeLessThan(500);
  });

  it('answers query violations with VALIDATION_FAILED, not PARAMETERS_NEEDED', async () => {
    for (const q of ['page=-1', 'page_size=101', 'gender=robot']) {
      const res = await c.get(`/voice?source=official&${q}`);
      const field = q.split('=')[0]!;
      expect(expectError(res, 'VALIDATION_FAILED').message, q).toContain(field);
    }
  });

  it('signs out with a JSON content type and no body, and takes a client event without a body', async () => {
    const other = new Client(t.url);
    await other.anonymous();
    const out = await other.request('DELETE', '/accounts/me/session', undefined, { 'content-type': 'application/json' });
    expect(out.status).toBeLessThan(300);
    const stats = await c.request('POST', '/stats/api/app/open', undefined, { 'content-type': 'application/json' });
    expect(stats.status).toBe(204);
    const bare = await c.request('POST', '/stats/api/app/open');
    expect(bare.status).toBe(204);
    // A required body that is absent is still PARAMETERS_NEEDED.
    expectError(await c.request('POST', '/tts', undefined, { 'content-type': 'application/json' }), 'PARAMETERS_NEEDED');
  });

  it('says the body limit in a sentence, in the request language', async () => {
    const big = { text: 'a'.repeat(1024 * 1024 + 10), voice_id: 'voice_espeak.en-us' };
    const en = expectError(await c.post('/tts', big), 'FILE_TOO_LARGE');
    expect(en.message).toContain('1 MB');
    expect(en.message).not.toContain('limit size');
    const zh = expectError(await c.post('/tts?lang=zh-CN', big), 'FILE_TOO_LARGE');
    expect(zh.message).toContain('文件过大');
  });

  it('answers an over-long header with a contract 431 body and x-request-id', async () => {
    const answer = await rawRequest(
      t.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
    );
    const res = parseRaw(answer);
    expect(res.status).toBe(431);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.request_id).toMatch(/^req_/);
    expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
    const zh = parseRaw(
      await rawRequest(
        t.url,
        `GET /healthz?lang=zh-TW HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
      ),
    );
    expect(zh.body.error.message).toContain('的值無效');
  });

  it('answers a malformed request with a contract 400 body and x-request-id', async () => {
    const answer = await rawRequest(t.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n');
    const res = parseRaw(answer);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
  });
});
