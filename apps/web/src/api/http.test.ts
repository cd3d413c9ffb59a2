import { describe, expect, it, vi } from 'vitest';
import { ApiError } from './errors';
import { buildUrl, createHttp } from './http';
import { RequestQueue } from './queue';

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function setup(fetchImpl: typeof fetch, sid: string | null = 'sid-1') {
  const queue = new RequestQueue();
  const http = createHttp({
    queue,
    getSid: () => sid,
    getLang: () => 'zh-TW',
    clientVersion: '1.2.3',
    baseUrl: 'http://x.test',
    fetchImpl,
  });
  return { queue, http };
}

describe('buildUrl', () => {
  it('adds the common parameters and skips empty query values', () => {
    const url = new URL(
      buildUrl(
        'http://x.test',
        '/voice',
        { from: 'web', cv: '1', lang: 'en' },
        { page: 2, name: undefined, mix: null, ok: true },
      ),
    );
    expect(url.pathname).toBe('/voice');
    expect(Object.fromEntries(url.searchParams)).toEqual({ from: 'web', cv: '1', lang: 'en', page: '2', ok: 'true' });
  });
});

describe('createHttp', () => {
  it('sends from/cv/lang, the x-sid header and a JSON body', async () => {
    const fetchImpl = vi.fn(async () => json(200, { ok: 1 }));
    const { queue, http } = setup(fetchImpl as unknown as typeof fetch);
    queue.open();
    await expect(http('PUT', '/accounts/me', { json: { name: 'A' } })).resolves.toEqual({ ok: 1 });
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    const u = new URL(url);
    expect(u.searchParams.get('from')).toBe('web');
    expect(u.searchParams.get('cv')).toBe('1.2.3');
    expect(u.searchParams.get('lang')).toBe('zh-TW');
    expect((init.headers as Record<string, string>)['x-sid']).toBe('sid-1');
    expect((init.headers as Record<string, string>)['content-type']).toBe('application/json');
    expect(init.body).toBe('{"name":"A"}');
    expect(init.method).toBe('PUT');
  });

  it('omits x-sid without a session', async () => {
    const fetchImpl = vi.fn(async () => json(201, {}));
    const { http } = setup(fetchImpl as unknown as typeof fetch, null);
    await http('POST', '/accounts/anonymous', { json: {}, bypassQueue: true });
    const init = (fetchImpl.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect((init.headers as Record<string, string>)['x-sid']).toBeUndefined();
  });

  it('queues calls until the session is ready, except those that set it up', async () => {
    const fetchImpl = vi.fn(async () => json(200, {}));
    const { queue, http } = setup(fetchImpl as unknown as typeof fetch);
    const queued = http('GET', '/accounts/me');
    await http('POST', '/accounts/anonymous', { bypassQueue: true });
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    queue.open();
    await queued;
    expect(fetchImpl).toHaveBeenCalledTimes(2);
  });

  it('turns an error body into ApiError with its code, message and retry-after', async () => {
    const body = { error: { code: 'CODE_COOLDOWN', message: '請等待 42 秒', request_id: 'req_1' } };
    const { queue, http } = setup((async () => json(429, body, { 'retry-after': '42' })) as typeof fetch);
    queue.open();
    const error = (await http('POST', '/verification/email').catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(429);
    expect(error.code).toBe('CODE_COOLDOWN');
    expect(error.serverMessage).toBe('請等待 42 秒');
    expect(error.requestId).toBe('req_1');
    expect(error.retryAfter).toBe(42);
  });

  it('reports a failed connection as NETWORK and a 204 as undefined', async () => {
    const { queue, http } = setup((async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch);
    queue.open();
    await expect(http('GET', '/x')).rejects.toMatchObject({ code: 'NETWORK', status: 0 });
    const ok = setup((async () => new Response(null, { status: 204 })) as typeof fetch);
    ok.queue.open();
    await expect(ok.http('DELETE', '/accounts/me/session')).resolves.toBeUndefined();
  });

  it('gives a non-JSON failure a code from its status', async () => {
    const { queue, http } = setup((async () => new Response('<html>bad gateway</html>', { status: 502 })) as typeof fetch);
    queue.open();
    await expect(http('GET', '/x')).rejects.toMatchObject({ code: 'INTERNAL', status: 502 });
  });

  it('hands back the unread Response in raw mode, and still turns a failure into ApiError', async () => {
    const fetchImpl = vi.fn(async () => new Response(new Uint8Array([1, 2, 3]), { headers: { 'content-type': 'audio/mpeg' } }));
    const { queue, http } = setup(fetchImpl as typeof fetch);
    queue.open();
    const res = await http<Response>('POST', '/tts', { json: { text: 'hi' }, raw: true });
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
    const init = (fetchImpl.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect((init.headers as Record<string, string>).accept).toBe('*/*');
    const failing = setup((async () =>
      json(402, { error: { code: 'INSUFFICIENT_BALANCE', message: 'Insufficient Balance' } })) as typeof fetch);
    failing.queue.open();
    await expect(failing.http('POST', '/tts', { raw: true })).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      status: 402,
    });
  });
});
