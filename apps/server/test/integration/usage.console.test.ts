import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

/**
 * The console sends `from=web&cv=…&lang=…` with every request (API.md, common rules), and the
 * records route also names its date filter `from`: the marker must list records, not fail.
 */
describe.each(DIALECTS)('usage records as the console asks for them (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('reads from=web as no date filter, and a date in its place as the filter', async () => {
    const c = new Client(t.url);
    await c.anonymous();
    const all = await c.get('/api/credits/records?from=web&cv=v1.1.4&lang=zh-CN');
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(1);
    expect(all.body.items[0]).toMatchObject({ type: 'grant' });

    const later = await c.get('/api/credits/records?from=2999-01-01&cv=v1.1.4&lang=en');
    expect(later.status).toBe(200);
    expect(later.body.total).toBe(0);

    const bad = await c.get('/api/credits/records?from=webby&lang=en');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('documents the from parameter in the OpenAPI document', async () => {
    const doc = await new Client(t.url).get('/openapi.json');
    expect(doc.status).toBe(200);
    const params = doc.body.paths['/api/credits/records'].get.parameters as { name: string; description?: string }[];
    expect(params.find((p) => p.name === 'from')?.description).toContain('web');
  });
});
