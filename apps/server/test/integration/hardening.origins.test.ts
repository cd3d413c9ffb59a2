import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { buyer, complete, newOrder, sandboxToken } from '../support/economy.js';
import { loadConfig } from '../../src/platform/config.js';

/** One request with headers fetch will not send as given (Host, X-Forwarded-Host). */
function raw(
  base: string,
  method: string,
  pathname: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(pathname, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method, headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const FORGED: Record<string, string>[] = [
  { host: 'evil.example' },
  { host: 'evil.example:443', 'x-forwarded-proto': 'https' },
  { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
  { origin: 'http://evil.example', referer: 'http://evil.example/page' },
];

describe.each(DIALECTS)('origins come from PUBLIC_URL and ALLOWED_ORIGINS, never from the request (%s)', (dialect) => {
  for (const trustProxy of ['false', 'true'] as const) {
    describe(`TRUST_PROXY=${trustProxy}`, () => {
      let t: TestApp;
      beforeAll(async () => {
        t = await startTestApp(dialect, {
          env: { PUBLIC_URL: 'https://polyvox.example', ALLOWED_ORIGINS: 'https://pay.polyvox.example', TRUST_PROXY: trustProxy },
        });
      });
      afterAll(async () => {
        await t.close();
      });

      it('refuses the forged host as a return_url with VALIDATION_FAILED, for every method, in the request language', async () => {
        const { client } = await buyer(t);
        const order = await newOrder(client);
        for (const headers of FORGED) {
          for (const method of ['sandbox', 'card', 'alipay', 'wechat']) {
            for (const [lang, message] of [
              ['en', 'Invalid value for return_url: must be a path or a URL of this site'],
              ['zh-CN', 'return_url 的值无效：须为本站的路径或网址'],
            ] as const) {
              const res = await raw(
                t.url,
                'POST',
                `/accounts/me/orders/${order.id}/payment/${method}?pf=web&lang=${lang}`,
                { ...headers, 'x-sid': client.sid!, 'content-type': 'application/json' },
                JSON.stringify({ pay_platform: 'web', return_url: 'http://evil.example/phish' }),
              );
              expect(res.status, `${method} ${JSON.stringify(headers)}`).toBe(400);
              const error = (JSON.parse(res.body) as { error: { code: string; message: string } }).error;
              expect(error.code).toBe('VALIDATION_FAILED');
              expect(error.message).toBe(message);
            }
          }
        }
        expect(await t.ctx.db.kysely.selectFrom('payments').select('id').where('order_id', '=', order.id).execute()).toEqual([]);
      });

      it('resolves a relative return_url against PUBLIC_URL whatever Host says, and the sandbox returns there', async () => {
        const { client } = await buyer(t);
        const order = await newOrder(client);
        const res = await raw(
          t.url,
          'POST',
          `/accounts/me/orders/${order.id}/payment/sandbox?pf=web`,
          { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-sid': client.sid!, 'content-type': 'application/json' },
          JSON.stringify({ pay_platform: 'web', return_url: '/#/app/orders/x/result' }),
        );
        expect(res.status).toBe(200);
        const token = new URL((JSON.parse(res.body) as { pay_url: string }).pay_url, 'http://x').searchParams.get('token')!;
        const done = await raw(
          t.url,
          'POST',
          `/pay/sandbox/${order.id}/complete`,
          { host: 'evil.example', 'content-type': 'application/json' },
          JSON.stringify({ token, outcome: 'success' }),
        );
        expect(done.status).toBe(303);
        expect(done.headers.location).toBe('https://polyvox.example/#/app/orders/x/result');
        // The paid order's checkout page links back to the same place.
        const page = await raw(t.url, 'GET', `/pay/sandbox/${order.id}?token=${encodeURIComponent(token)}`, {
          host: 'evil.example',
        });
        expect(page.body).toContain('href="https://polyvox.example/#/app/orders/x/result"');
        expect(page.body).not.toContain('evil.example');
      });

      it('takes an origin of ALLOWED_ORIGINS', async () => {
        const { client } = await buyer(t);
        const order = await newOrder(client);
        const token = await sandboxToken(client, order.id, 'https://pay.polyvox.example/#/done');
        const done = await complete(t, order.id, { token, outcome: 'fail' });
        expect(done.headers.get('location')).toBe('https://pay.polyvox.example/#/done');
      });

      it('never redirects to a foreign return_url stored before the origins were narrowed', async () => {
        const { client } = await buyer(t);
        const order = await newOrder(client);
        const token = await sandboxToken(client, order.id);
        await t.ctx.db.kysely
          .updateTable('payments')
          .set({ return_url: 'http://evil.example/phish' })
          .where('order_id', '=', order.id)
          .execute();
        const done = await complete(t, order.id, { token, outcome: 'success' });
        expect(done.status).toBe(303);
        expect(done.headers.get('location')).toBe('https://polyvox.example/');
        const page = await (await fetch(new URL(`/pay/sandbox/${order.id}?token=${encodeURIComponent(token)}`, t.url))).text();
        expect(page).toContain('href="https://polyvox.example/"');
        expect(page).not.toContain('evil.example');
      });

      it('names PUBLIC_URL in the OpenAPI servers and the payment notify URLs, whatever Host says', async () => {
        const doc = await raw(t.url, 'GET', '/openapi.json', { host: 'evil.example', 'x-forwarded-host': 'evil.example' });
        expect(doc.status).toBe(200);
        expect((JSON.parse(doc.body) as { servers: { url: string }[] }).servers).toEqual([{ url: 'https://polyvox.example' }]);
        expect(doc.body).not.toContain('evil.example');
      });
    });
  }
});

describe('ALLOWED_ORIGINS', () => {
  it('takes a comma list of origins and refuses anything else, naming the setting', () => {
    expect(loadConfig({ ALLOWED_ORIGINS: 'https://a.example, http://b.example:8080' }).ALLOWED_ORIGINS).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
    expect(loadConfig({}).ALLOWED_ORIGINS).toEqual([]);
    for (const bad of ['evil.example', 'https://a.example/path', 'javascript:alert(1)', 'ftp://a.example', '*']) {
      expect(() => loadConfig({ ALLOWED_ORIGINS: bad }), bad).toThrow(/ALLOWED_ORIGINS/);
    }
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://polyvox.example' })).toThrow(/PUBLIC_URL/);
  });
});
