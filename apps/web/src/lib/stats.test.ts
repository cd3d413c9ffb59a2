import { describe, expect, it, vi } from 'vitest';
import { createStats, EVENT_TIMEOUT_MS } from './stats';

function setup(fetchImpl: typeof fetch, timeoutMs?: number) {
  return createStats({
    ...(timeoutMs ? { timeoutMs } : {}),
    fetchImpl,
    baseUrl: 'http://x.test',
    getSid: () => 'sid-1',
    getLang: () => 'zh-CN',
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0)',
  });
}

describe('console statistics', () => {
  it('posts a page view with the common parameters, the session and a 5 s timeout', async () => {
    const fetchImpl = vi.fn(async () => new Response(null, { status: 204 }));
    await setup(fetchImpl as unknown as typeof fetch).pageView('/app/usage');
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    const u = new URL(url);
    expect(u.pathname).toBe('/stats/api/page/view');
    expect(Object.fromEntries(u.searchParams)).toMatchObject({ from: 'web', lang: 'zh-CN', os: 'osx' });
    expect(init.method).toBe('POST');
    expect((init.headers as Record<string, string>)['x-sid']).toBe('sid-1');
    expect(JSON.parse(init.body as string)).toEqual({ channel: 'def_web', detail: '/app/usage' });
    expect(init.keepalive).toBe(true);
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(EVENT_TIMEOUT_MS).toBe(5000);
  });

  it('counts a path once in a row, and reports errors with their name, at most twenty', async () => {
    const fetchImpl = vi.fn(async () => new Response(null, { status: 204 }));
    const stats = setup(fetchImpl as unknown as typeof fetch);
    await stats.pageView('/a');
    await stats.pageView('/a');
    await stats.pageView('/b');
    expect(fetchImpl).toHaveBeenCalledTimes(2);
    for (let i = 0; i < 30; i++) await stats.error(new TypeError(`boom ${i}`));
    expect(fetchImpl).toHaveBeenCalledTimes(22);
    const body = JSON.parse((fetchImpl.mock.calls[2] as unknown as [string, RequestInit])[1].body as string);
    expect(body.detail).toBe('TypeError: boom 0');
    await stats.error('x'.repeat(5000));
  });

  it('never throws nor waits on a failing or hanging server', async () => {
    const failing = setup(async () => {
      throw new TypeError('network down');
    });
    await expect(failing.pageView('/x')).resolves.toBeUndefined();
    const rejecting = setup(async () => new Response('{}', { status: 429 }));
    await expect(rejecting.error(new Error('e'))).resolves.toBeUndefined();
    // A server that never answers: the promise settles when the timeout aborts the request.
    let aborted: unknown = null;
    const hanging = setup(
      (_url, init) =>
        new Promise((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => {
            aborted = init.signal?.reason;
            reject(init.signal?.reason);
          }),
        ),
      30,
    );
    await expect(hanging.pageView('/slow')).resolves.toBeUndefined();
    expect((aborted as DOMException).name).toBe('TimeoutError');
  });
});
