import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_ONLY_HEADERS, HASHED_ASSET_REDUNDANT_HEADERS } from '../../src/http/security.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';

/** One request as sent (fetch would add Accept-Encoding and decode the answer itself). */
function raw(
  base: string,
  method: string,
  pathname: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(pathname, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const decode = (r: { headers: http.IncomingHttpHeaders; body: Buffer }) =>
  r.headers['content-encoding'] === 'br'
    ? zlib.brotliDecompressSync(r.body)
    : r.headers['content-encoding'] === 'gzip'
      ? zlib.gunzipSync(r.body)
      : r.body;

describe.each(DIALECTS)('compression and caching (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let web: string;
  const script = `console.log(${JSON.stringify('polyvox '.repeat(400))});\n`;
  beforeAll(async () => {
    // A console build as the web build writes it: hashed assets with their .br and .gz beside them.
    web = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-web-'));
    await fs.mkdir(path.join(web, 'assets'));
    await fs.writeFile(
      path.join(web, 'index.html'),
      `<!doctype html><script type="module" src="/assets/index-AbCd1234.js"></script>`,
    );
    await fs.writeFile(path.join(web, 'assets/index-AbCd1234.js'), script);
    await fs.writeFile(path.join(web, 'assets/index-AbCd1234.js.br'), zlib.brotliCompressSync(script));
    await fs.writeFile(path.join(web, 'assets/index-AbCd1234.js.gz'), zlib.gzipSync(script));
    t = await startTestApp(dialect, { env: { WEB_DIST: web } });
    c = new Client(t.url);
    await c.anonymous();
  });
  afterAll(async () => {
    await t.close();
    await fs.rm(web, { recursive: true, force: true });
  });

  it('sends hashed assets precompressed and cached for a year, and index.html revalidated', async () => {
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['', undefined],
    ] as const) {
      const res = await raw(t.url, 'GET', '/assets/index-AbCd1234.js', accept ? { 'accept-encoding': accept } : {});
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(decode(res).toString()).toBe(script);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).toMatch(/javascript/);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      // A build file follows its page's policy: it carries only the headers that act on such a file.
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      for (const name of DOCUMENT_ONLY_HEADERS) expect(res.headers[name], name).toBeUndefined();
      // Nor what an immutable, hashed file never needs (validators, ranges, a request id).
      for (const name of HASHED_ASSET_REDUNDANT_HEADERS) expect(res.headers[name], name).toBeUndefined();
    }
    for (const page of ['/', '/index.html']) {
      const res = await raw(t.url, 'GET', page, { 'accept-encoding': 'br' });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control'], page).toBe('no-cache');
      // The page itself has them all.
      expect(res.headers['content-security-policy'], page).toContain("frame-ancestors 'self'");
      expect(res.headers['x-frame-options'], page).toBe('SAMEORIGIN');
      expect(res.headers['strict-transport-security'], page).toBeTruthy();
    }
    // A missing build file, or a path that only looks like one, is an answer like any other, with every header.
    for (const url of ['/assets/missing-AbCd1234.js', '/assets/index-AbCd1234.js/..%2f..%2fhealthz']) {
      const res = await raw(t.url, 'GET', url);
      expect(res.headers['content-security-policy'], url).toContain("frame-ancestors 'self'");
      expect(res.headers['x-request-id'], url).toBeTruthy();
    }
  });

  it('compresses JSON answers for a client that accepts it, and only then', async () => {
    const plain = await raw(t.url, 'GET', '/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(10_000);
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['identity', undefined],
      // `*` (any encoding) is answered in gzip, the one every client that sends it reads (@fastify/compress).
      ['*', 'gzip'],
    ] as const) {
      const res = await raw(t.url, 'GET', '/openapi.json', { 'accept-encoding': accept });
      expect(res.headers['content-encoding'], accept).toBe(encoding);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(JSON.parse(decode(res).toString())).toEqual(JSON.parse(plain.body.toString()));
      if (encoding) {
        expect(res.body.length).toBeLessThan(plain.body.length / 4);
        expect(Number(res.headers['content-length'] ?? res.body.length)).toBe(res.body.length);
      }
    }
    // An error body is JSON too; a small answer is left as it is.
    const small = await raw(t.url, 'GET', '/healthz', { 'accept-encoding': 'br' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('never compresses audio, whole or streamed, nor a stream of events, and streams them without buffering', async () => {
    const voices = await c.get('/voice?source=official&page_size=1&languages=en');
    const voice = voices.body.items[0].id as string;
    for (const stream of [false, true]) {
      const res = await raw(
        t.url,
        'POST',
        '/tts',
        { 'accept-encoding': 'gzip, br', 'content-type': 'application/json', 'x-sid': c.sid! },
        JSON.stringify({ text: 'Hello there.', voice_id: voice, format: 'mp3', stream }),
      );
      expect(res.status, res.body.toString().slice(0, 200)).toBe(200);
      expect(res.headers['content-type']).toBe('audio/mpeg');
      expect(res.headers['content-encoding']).toBeUndefined();
      if (stream) expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(res.body.length).toBeGreaterThan(1000);
    }
    // Nor a stream of text: OpenAI's speech events leave as they are made, whatever the client accepts.
    const events = await raw(
      t.url,
      'POST',
      '/v1/audio/speech',
      { 'accept-encoding': 'gzip, br', 'content-type': 'application/json', 'x-sid': c.sid! },
      JSON.stringify({ model: 'tts-1', input: 'Hello there, and again.', voice: voice, stream_format: 'sse' }),
    );
    expect(events.status, events.body.toString().slice(0, 200)).toBe(200);
    expect(events.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(events.headers['content-encoding']).toBeUndefined();
    expect(events.body.toString()).toContain('"type":"speech.audio.done"');
    // The engines start on the first synthesis: minutes on a loaded two-core machine, not the usual minute.
  }, 240_000);

  it('serves the API reference in the asked language, with its inline script allowed by hash', async () => {
    for (const [lang, title] of [
      ['en', 'Polyvox API'],
      ['zh-CN', 'Polyvox 接口'],
      ['zh-TW', 'Polyvox 介面'],
    ] as const) {
      const res = await raw(t.url, 'GET', `/reference/?lang=${lang}`, { 'accept-encoding': 'gzip' });
      expect(res.status).toBe(200);
      const html = decode(res).toString();
      expect(html).toContain(`<title>${title}</title>`);
      expect(html).toContain(`/openapi.json?lang=${lang}`);
      for (const option of [
        /"hideClientButton":\s*true/,
        /"showDeveloperTools":\s*"never"/,
        /"telemetry":\s*false/,
        /"agent":\s*\{\s*"disabled":\s*true/,
        /"mcp":\s*\{\s*"disabled":\s*true/,
      ]) {
        expect(html).toMatch(option);
      }
      const inline = /<script type="text\/javascript">([\s\S]*?)<\/script>/.exec(html)?.[1];
      expect(inline).toBeDefined();
      const hash = createHash('sha256').update(inline!).digest('base64');
      expect(String(res.headers['content-security-policy'])).toContain(`'sha256-${hash}'`);
      const doc = JSON.parse((await raw(t.url, 'GET', `/openapi.json?lang=${lang}`)).body.toString());
      expect(doc.info.title).toBe(title);
    }
    const byHeader = decode(await raw(t.url, 'GET', '/reference/', { 'accept-language': 'zh-TW,zh;q=0.9' })).toString();
    expect(byHeader).toContain('<title>Polyvox 介面</title>');
  });
});
