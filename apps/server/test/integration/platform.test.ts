import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

/** Every route the contract names, as OpenAPI spells its path. */
const CONTRACT_ROUTES: [string, string][] = [
  ['post', '/accounts/anonymous'],
  ['get', '/accounts/me'],
  ['put', '/accounts/me'],
  ['post', '/uploads'],
  ['get', '/accounts/exists'],
  ['post', '/verification/email'],
  ['post', '/auth/email'],
  ['put', '/accounts/me/email'],
  ['post', '/verification/mobile'],
  ['post', '/auth/sms'],
  ['put', '/accounts/me/mobile'],
  ['delete', '/accounts/me/session'],
  ['get', '/api/me'],
  ['get', '/tts/config'],
  ['get', '/voice'],
  ['post', '/tts'],
  ['post', '/tts/estimate'],
  ['post', '/v1/audio/speech'],
  ['get', '/api/random/text'],
  ['get', '/docs/{name}'],
  ['post', '/stats/api/{t}/{e}'],
  ['get', '/healthz'],
  ['get', '/metrics'],
  ['get', '/api/authorization'],
  ['put', '/api/authorization'],
  ['patch', '/api/authorization'],
  ['delete', '/api/authorization'],
  ['get', '/api/credits/records'],
  ['get', '/api/statistics/day_credits'],
  ['get', '/api/statistics/current'],
  ['post', '/v1/text-to-speech/{voice_id}'],
  ['post', '/v1/text-to-speech/{voice_id}/stream'],
  ['post', '/v1/text-to-dialogue'],
  ['post', '/v1/text-to-dialogue/stream'],
  ['post', '/v1/text-to-dialogue/with-timestamps'],
  ['post', '/v1/text-to-dialogue/stream/with-timestamps'],
  ['get', '/v1/voices'],
];

describe.each(DIALECTS)('platform routes (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    c = new Client(t.url);
  });
  afterAll(async () => {
    await t.close();
  });

  it('documents every contract route in the OpenAPI document, with the error schema', async () => {
    const res = await c.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    for (const [method, path] of CONTRACT_ROUTES) {
      expect(res.body.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
    expect(res.body.paths['/accounts/anonymous'].post.responses['201']).toBeDefined();
    expect(JSON.stringify(res.body.paths['/verification/email'].post.responses['429'])).toContain('#/components/schemas/Error');
    expect(JSON.stringify(res.body.components.schemas.Error)).toContain('request_id');
    expect(Object.keys(res.body.paths['/tts'].post.responses['200'].content)).toEqual([
      'audio/mpeg',
      'audio/wav',
      'audio/ogg',
      'audio/pcm',
    ]);
    expect(Object.keys(res.body.paths['/v1/text-to-speech/{voice_id}/stream'].post.responses['200'].content)).toContain(
      'audio/mpeg',
    );
  });

  it('has an auth rule for every route it serves', () => {
    // The router's own tree: each line one segment under its parent's (4 characters of indent a level).
    const served: string[] = [];
    const paths: string[] = [];
    for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
      const m = /^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
      if (!m) continue;
      const depth = m[1]!.length / 4;
      paths[depth] = (depth > 0 ? paths[depth - 1]! : '') + m[2]!;
      if (m[3]) served.push(...m[3].split(', ').map((method) => `${method} ${paths[depth]}`));
    }
    expect(served.length).toBeGreaterThan(60);
    // A wildcard under a path that is a route itself (`/guide` and `/guide/*`) prints as `*` beneath it, its slash left out.
    const known = (route: string) => t.app.authRules.has(route) || t.app.authRules.has(route.replace(/([^/])\*$/, '$1/*'));
    expect(served.filter((route) => !known(route))).toEqual([]);
    expect(t.app.authRules.get('GET /accounts/me')).toBe('session');
    expect(t.app.authRules.get('POST /tts')).toBe('caller');
    expect(t.app.authRules.get('GET /healthz')).toBe('public');
  });

  it('serves the interactive reference with its script from this server', async () => {
    const page = await fetch(`${t.url}/reference/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<script');
    const script = await fetch(`${t.url}/reference/js/scalar.js`);
    expect(script.status).toBe(200);
    expect(Number(script.headers.get('content-length') ?? (await script.arrayBuffer()).byteLength)).toBeGreaterThan(100_000);
  });

  it("names Scalar's own language pack for the reader's language", async () => {
    for (const [lang, pack] of [
      ['en', 'en'],
      ['zh-CN', 'zh-CN'],
      // Scalar has no Traditional Chinese pack: its few words come in Simplified.
      ['zh-TW', 'zh-CN'],
    ] as const) {
      const html = await (await fetch(`${t.url}/reference/?lang=${lang}`)).text();
      expect(html, lang).toContain(`"locale": "${pack}"`);
      expect(html, lang).toContain(`lang="${lang}"`);
    }
  });

  it('answers /healthz with the database it uses', async () => {
    const res = await c.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', database: dialect });
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('serves the site documents in the requested language, English as fallback', async () => {
    const en = await c.get('/docs/terms?private=true');
    expect(en.status).toBe(200);
    expect(en.body).toMatchObject({ name: 'terms', title: 'Terms of Service' });
    expect(en.body.content).toContain('## Acceptable use');
    expect(Date.parse(en.body.updated_at)).not.toBeNaN();
    expect((await c.get('/docs/privacy?lang=zh-CN')).body.title).toBe('隐私政策');
    expect((await c.get('/docs/updates?lang=zh-TW')).body.title).toBe('更新紀錄');
    expect((await c.get('/docs/terms?lang=ja')).body.title).toBe('Terms of Service');
    const missing = await c.get('/docs/secrets');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  it('records client events and counts them in /metrics', async () => {
    const res = await c.post('/stats/api/page/view?os=osx', { user_id: 'acc_x', channel: 'def_web' });
    expect(res.status).toBe(204);
    const metrics = await fetch(`${t.url}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = await metrics.text();
    expect(text).toContain('polyvox_client_events_total{type="page",event="view",os="osx"}');
    expect(text).toMatch(/polyvox_http_requests_total\{method="POST",route="\/stats\/api\/:t\/:e",status="204"\} \d+/);
  });
});
