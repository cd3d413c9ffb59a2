import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { PNG_1X1 } from '../support/errors.js';

const BOUNDARY = 'polyvoxkeepalive';

/** A multipart body of the given parts, framed by hand so its bytes are exactly known. */
function multipart(parts: { name: string; filename?: string; type?: string; data: Buffer | string }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${BOUNDARY}\r\ncontent-disposition: ${disposition}\r\n${part.type ? `content-type: ${part.type}\r\n` : ''}\r\n`,
      ),
      Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  reused: boolean;
}

/** One request through `agent`; resolves with the answer, whatever happens to the rest of the upload. */
function send(
  agent: http.Agent,
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method, headers, agent },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, reused: req.reusedSocket }));
        res.on('error', reject);
      },
    );
    // A server that answers before reading the whole body may stop reading: the write's failure is not the answer.
    req.on('error', reject);
    if (body) req.end(body);
    else req.end();
  });
}

/**
 * Sends the refused request and then a second one through the same keep-alive agent (one socket at most). The
 * second must be answered (200), not left waiting for the request timeout (408) on a connection whose body is unread.
 */
async function thenHealthy(t: TestApp, first: () => Promise<Answer>, agent: http.Agent) {
  const refused = await first();
  // A connection left hung would be answered by the request timeout (408), not by the route (200).
  const next = await send(agent, t.url, 'GET', '/healthz', {});
  expect(next.status).toBe(200);
  // Either the connection was closed (and the agent opened a new one) or it was drained and reused.
  if (next.reused) expect(refused.headers.connection).not.toBe('close');
  else expect(refused.headers.connection).toBe('close');
  return refused;
}

describe.each(DIALECTS)('a refused request leaves its keep-alive connection usable (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let agent: http.Agent;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { REQUEST_TIMEOUT_SECONDS: '20', SAMPLE_UPLOADS_PER_ACCOUNT_HOUR: '1' } });
    c = new Client(t.url);
    await c.anonymous();
  });
  afterAll(async () => {
    await t.close();
  });
  const fresh = () => {
    agent?.destroy();
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    return agent;
  };

  const mp = (body: Buffer, extra: Record<string, string> = {}) => ({
    'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    'content-length': String(body.length),
    ...extra,
  });

  it('keeps the connection of a request whose body was read (the refusal rule closes nothing else)', async () => {
    const a = fresh();
    const body = multipart([
      { name: 'type', data: 'avatar' },
      { name: 'file', filename: 'a.png', type: 'image/png', data: PNG_1X1 },
    ]);
    const saved = await send(a, t.url, 'POST', '/uploads', mp(body, { 'x-sid': c.sid! }), body);
    expect(saved.status).toBe(201);
    expect(saved.headers.connection).not.toBe('close');
    const next = await send(a, t.url, 'GET', '/healthz', {});
    expect(next).toMatchObject({ status: 200, reused: true });
    const bad = Buffer.from('{"name": 5}');
    const refused = await send(
      a,
      t.url,
      'PUT',
      '/accounts/me',
      { 'content-type': 'application/json', 'content-length': String(bad.length), 'x-sid': c.sid! },
      bad,
    );
    // Refused by its schema once read whole: the connection stays.
    expect(refused.status).toBe(400);
    expect(refused.headers.connection).not.toBe('close');
    expect((await send(a, t.url, 'GET', '/healthz', {})).reused).toBe(true);
  });

  it('after an avatar upload with two files (400, one file at most)', async () => {
    const a = fresh();
    const big = Buffer.alloc(256 * 1024, 7);
    const body = multipart([
      { name: 'type', data: 'avatar' },
      { name: 'file', filename: 'a.png', type: 'image/png', data: PNG_1X1 },
      { name: 'file', filename: 'b.png', type: 'image/png', data: big },
    ]);
    const refused = await thenHealthy(t, () => send(a, t.url, 'POST', '/uploads', mp(body, { 'x-sid': c.sid! }), body), a);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.code).toBe('VALIDATION_FAILED');
  });

  it('after an upload refused for its session before the body is read (401)', async () => {
    const a = fresh();
    const body = multipart([
      { name: 'type', data: 'avatar' },
      { name: 'file', filename: 'a.png', type: 'image/png', data: Buffer.alloc(1024 * 1024, 1) },
    ]);
    const refused = await thenHealthy(t, () => send(a, t.url, 'POST', '/uploads', mp(body), body), a);
    expect(refused.status).toBe(401);
  });

  it('after a body over the limit (413), declared up front', async () => {
    const a = fresh();
    const body = Buffer.from(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }));
    const refused = await thenHealthy(
      t,
      () =>
        send(
          a,
          t.url,
          'PUT',
          '/accounts/me',
          { 'content-type': 'application/json', 'content-length': String(body.length), 'x-sid': c.sid! },
          body,
        ),
      a,
    );
    expect(refused.status).toBe(413);
  });

  it('after an unsupported media type (415) on the upload routes', async () => {
    for (const path of ['/uploads', '/files_upload?type=clone']) {
      const a = fresh();
      const body = Buffer.alloc(512 * 1024, 65);
      const refused = await thenHealthy(
        t,
        () =>
          send(
            a,
            t.url,
            'POST',
            path,
            { 'content-type': 'text/plain', 'content-length': String(body.length), 'x-sid': c.sid! },
            body,
          ),
        a,
      );
      expect(refused.status, path).toBe(415);
    }
  });

  it('after a clone sample refused by its rate limit (429) and by its field names (400)', async () => {
    const own = new Client(t.url);
    await own.anonymous();
    const sample = multipart([
      { name: 'consent', data: 'true' },
      { name: 'other', filename: 'x.wav', type: 'audio/wav', data: Buffer.alloc(300 * 1024, 3) },
    ]);
    let a = fresh();
    const badField = await thenHealthy(
      t,
      () => send(a, t.url, 'POST', '/files_upload?type=clone', mp(sample, { 'x-sid': own.sid! }), sample),
      a,
    );
    expect(badField.status).toBe(400);
    // The first upload of the hour was spent above (SAMPLE_UPLOADS_PER_ACCOUNT_HOUR=1): this one is refused unread.
    a = fresh();
    const limited = await thenHealthy(
      t,
      () => send(a, t.url, 'POST', '/files_upload?type=clone', mp(sample, { 'x-sid': own.sid! }), sample),
      a,
    );
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeTruthy();
  });

  it('after a POST with a body to a route that does not exist (404)', async () => {
    const a = fresh();
    const body = Buffer.alloc(512 * 1024, 66);
    const refused = await thenHealthy(
      t,
      () =>
        send(
          a,
          t.url,
          'POST',
          '/no-such-upload',
          { 'content-type': 'application/octet-stream', 'content-length': String(body.length) },
          body,
        ),
      a,
    );
    expect(refused.status).toBe(404);
  });

  it('answers a refused request whose body is still on its way, then closes, on a raw socket', async () => {
    // Headers and a first slice of a large declared body; the rest never comes. The answer must arrive and the
    // connection end, instead of the server waiting for bytes it will never read.
    const { port } = new URL(t.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /uploads HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: multipart/form-data; boundary=${BOUNDARY}\r\ncontent-length: ${10 * 1024 * 1024}\r\nconnection: keep-alive\r\n\r\n--${BOUNDARY}\r\n`,
    );
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 401 /);
    expect(received.toLowerCase()).toContain('connection: close');
    // One answer, not the request timeout's 408 twenty seconds later.
    expect(received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });
});
