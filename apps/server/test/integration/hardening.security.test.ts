import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { PNG_1X1 } from '../support/errors.js';

const avatarForm = (data: Buffer, name = 'a.png', type = 'image/png') => {
  const form = new FormData();
  form.append('type', 'avatar');
  form.append('file', new Blob([new Uint8Array(data)], { type }), name);
  return form;
};

const series = (text: string, metric: string) => text.split('\n').filter((l) => l.startsWith(`${metric}{`));

describe.each(DIALECTS)('HTTP hardening (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { REQUEST_TIMEOUT_SECONDS: '1', HEADERS_TIMEOUT_SECONDS: '1' } });
    c = new Client(t.url);
    await c.anonymous();
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends CSP with frame-ancestors, nosniff, Referrer-Policy and X-Frame-Options on every answer', async () => {
    for (const url of ['/healthz', '/accounts/me', '/no-such-route']) {
      const res = await fetch(`${t.url}${url}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, url).toContain("frame-ancestors 'self'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-eval');
      // The console plays audio from blob: URLs and Mantine injects styles.
      expect(csp).toMatch(/media-src [^;]*blob:/);
      expect(csp).toMatch(/style-src [^;]*'unsafe-inline'/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBeTruthy();
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    }
  });

  it('lets the API reference run exactly its own inline script', async () => {
    const res = await fetch(`${t.url}/reference/`);
    const html = await res.text();
    const inline = /<script type="text\/javascript">([\s\S]*?)<\/script>/.exec(html)?.[1];
    expect(inline).toBeDefined();
    const hash = createHash('sha256').update(inline!).digest('base64');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`'sha256-${hash}'`);
    expect(csp).not.toMatch(/script-src [^;]*'unsafe-inline'/);
    expect(csp).toContain("frame-ancestors 'self'");
  });

  it('re-encodes avatars: appended HTML, metadata and oversize pictures do not survive', async () => {
    const withHtml = Buffer.concat([PNG_1X1, Buffer.from('<html><script>alert(document.cookie)</script></html>')]);
    const up = await c.post('/uploads', avatarForm(withHtml));
    expect(up.status).toBe(201);
    const served = await fetch(`${t.url}${up.body.url}`);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes.includes('<script')).toBe(false);
    expect((await sharp(bytes).metadata()).format).toBe('png');

    const big = await sharp({ create: { width: 2000, height: 1000, channels: 3, background: '#336699' } })
      .jpeg()
      .withExif({ IFD0: { Copyright: 'home-at-51.5N-0.12W' } })
      .toBuffer();
    expect(big.includes('home-at-51.5N')).toBe(true);
    const upJpeg = await c.post('/uploads', avatarForm(big, 'b.jpg', 'image/jpeg'));
    expect(upJpeg.status).toBe(201);
    const jpeg = Buffer.from(await (await fetch(`${t.url}${upJpeg.body.url}`)).arrayBuffer());
    expect(jpeg.includes('home-at-51.5N')).toBe(false);
    const meta = await sharp(jpeg).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'jpeg', width: 512, height: 256 });
  });

  it('refuses a picture whose bytes claim PNG but do not decode', async () => {
    const broken = Buffer.concat([PNG_1X1.subarray(0, 40), Buffer.alloc(200, 7)]);
    const res = await c.post('/uploads', avatarForm(broken));
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_FILE_TYPE');
  });

  it('bounds client-event series: 4,000 new names add at most one series', async () => {
    const before = series(await (await fetch(`${t.url}/metrics`)).text(), 'polyvox_client_events_total').length;
    for (let i = 0; i < 4000; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => fetch(`${t.url}/stats/api/t${i + j}/e${i + j}?os=os${i + j}`, { method: 'POST' })),
      );
    }
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const after = series(text, 'polyvox_client_events_total');
    expect(after.length - before).toBeLessThanOrEqual(1);
    expect(text).toMatch(/polyvox_client_events_total\{type="other",event="other",os="other"\} (\d+)/);
    const count = Number(/polyvox_client_events_total\{type="other",event="other",os="other"\} (\d+)/.exec(text)![1]);
    expect(count).toBeGreaterThanOrEqual(4000);
    // Known names keep their own series.
    expect((await c.post('/stats/api/page/view?os=ios')).status).toBe(204);
    expect(await (await fetch(`${t.url}/metrics`)).text()).toContain('{type="page",event="view",os="ios"}');
  });

  it('keeps every metrics line well-formed whatever names are posted', async () => {
    for (const name of ['a%0Db', 'a%0Ab', 'a%22b', 'a%5Cb', '__proto__']) {
      expect((await fetch(`${t.url}/stats/api/${name}/${name}?os=${name}`, { method: 'POST' })).status).toBe(204);
    }
    const text = await (await fetch(`${t.url}/metrics`)).text();
    expect(text).not.toContain('\r');
    // prom-client separates families with an empty line and writes NaN as `Nan` (Prometheus reads either).
    for (const line of text.trimEnd().split('\n').filter(Boolean)) {
      expect(line).toMatch(
        /^(# (HELP|TYPE) .+|[a-z_][a-z0-9_]*(\{([a-z_]+="([^"\\\n]|\\[\\"n])*",?)*\})? ([0-9.e+-]+|NaN|Nan|[+-]Inf))$/,
      );
    }
  });

  it('answers a request whose headers trickle in with 408 and closes the connection', async () => {
    const { port } = new URL(t.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a');
    });
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.code).toBe('VALIDATION_FAILED');
  });

  it('answers a request whose body trickles in with 408 and closes the connection', async () => {
    const { port } = new URL(t.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write('POST /tts HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"te');
    });
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(answer.toLowerCase()).toContain(`x-request-id: ${body.error.request_id}`.toLowerCase());
  });
});

describe('console pages', () => {
  it('serves the built console with the same headers, framable by this origin only', async () => {
    const web = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-web-'));
    await fs.writeFile(
      path.join(web, 'index.html'),
      '<!doctype html><div id="root"></div><script type="module" src="/a.js"></script>',
    );
    const t = await startTestApp('sqlite', { env: { WEB_DIST: web } });
    try {
      const res = await fetch(`${t.url}/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    } finally {
      await t.close();
      await fs.rm(web, { recursive: true, force: true });
    }
  });
});

describe('private files', () => {
  it('creates DATA_DIR 0700 and the database, uploads and mail 0600', async () => {
    const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-perm-'));
    const dataDir = path.join(parent, 'data');
    const t = await startTestApp('sqlite', { env: { DATA_DIR: dataDir } });
    try {
      const c = new Client(t.url);
      await c.anonymous();
      expect((await c.post('/verification/email', { email: 'perm@example.com' })).status).toBe(200);
      expect((await c.post('/uploads', avatarForm(PNG_1X1))).status).toBe(201);
      const mode = async (p: string) => (await fs.stat(p)).mode & 0o777;
      expect(await mode(dataDir)).toBe(0o700);
      expect(await mode(path.join(dataDir, 'polyvox.db'))).toBe(0o600);
      const outbox = path.join(dataDir, 'outbox');
      const mails = (await fs.readdir(outbox)).filter((f) => f.endsWith('.eml'));
      expect(mails.length).toBeGreaterThan(0);
      for (const mail of mails) expect(await mode(path.join(outbox, mail))).toBe(0o600);
      const avatars = path.join(dataDir, 'files', 'avatars');
      for (const file of await fs.readdir(avatars)) expect(await mode(path.join(avatars, file))).toBe(0o600);
    } finally {
      await t.close();
      await fs.rm(parent, { recursive: true, force: true });
    }
  });
});
