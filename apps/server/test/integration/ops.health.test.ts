import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type LogLine, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { registerQueueDepth } from '../../src/platform/metrics.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = () => `polyvox-test:${process.pid}:${Math.random().toString(36).slice(2)}:`;

/** A loopback port nobody listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The value of one series in a Prometheus text page (0 when absent). */
function sample(text: string, series: string): number {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return 0;
}

/** Scrapes until `ready` holds for the page (a settlement runs once the answer is written out), at most 10 s. */
async function scrapeUntil(url: string, ready: (text: string) => boolean): Promise<string> {
  let text = '';
  for (let i = 0; i < 200; i++) {
    text = await scrape(url);
    if (ready(text)) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  return text;
}

const scrape = async (url: string) => {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
};

describe.each(DIALECTS)('operations (%s)', (dialect) => {
  let t: TestApp;
  const logs: LogLine[] = [];
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { REDIS_URL, REDIS_PREFIX: prefix(), SPEECH_WORKERS: '1' }, logs });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers /healthz (alive) and /readyz with database, Redis and storage reachable', async () => {
    const c = new Client(t.url);
    const health = await c.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', database: dialect, role: 'all' });
    // Alive at once, but not ready while the engines warm up (nothing has started them yet in this test): the first
    // request after /readyz said ready must not pay for the warm-up.
    const warming = await c.get('/readyz');
    expect(warming.status).toBe(503);
    expect(warming.body).toMatchObject({
      status: 'unavailable',
      failed: ['speech'],
      checks: { database: { ok: true }, redis: { ok: true }, storage: { ok: true }, speech: { ok: false } },
    });
    expect((await c.get('/healthz')).status).toBe(200);
    // Warming takes a second or two on a quiet machine, minutes on a loaded one: waited for, not timed.
    let ready = await c.get('/readyz');
    for (let i = 0; ready.status !== 200 && i < 2800; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await c.get('/readyz');
    }
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      role: 'all',
      checks: { database: { ok: true }, redis: { ok: true }, storage: { ok: true }, speech: { ok: true } },
    });
    expect(ready.body.failed).toBeUndefined();
    // Ready means warm: the engines have started (and run the paths a first request takes).
    expect(t.ctx.speech.ready()).toBe(true);
    expect((await t.ctx.speech.get()).enginesStarted).toBe(true);
  }, 420_000);

  it('keeps a plain incoming x-request-id, on the answer, the error body and every log line of the request', async () => {
    const id = `lb-${Math.random().toString(36).slice(2)}`;
    const res = await fetch(`${t.url}/accounts/me`, { headers: { 'x-request-id': id } });
    expect(res.headers.get('x-request-id')).toBe(id);
    const body = (await res.json()) as { error: { request_id: string } };
    expect(body.error.request_id).toBe(id);
    const lines = logs.filter((l) => l.reqId === id);
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    expect(lines.find((l) => l.msg === 'incoming request')?.req).toMatchObject({ url: '/accounts/me' });
  });

  it('replaces an incoming x-request-id that is not a plain token with its own', async () => {
    for (const bad of ['has space', 'quote"d', 'x'.repeat(200), '-leading-dash', 'a\tb']) {
      const res = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': bad } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id'), bad).toMatch(/^req_/);
    }
    const missing = await new Client(t.url).get('/accounts/me');
    expectError(missing, 'UNAUTHENTICATED');
    expect(missing.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('exposes the metric families, and their values move after a synthesis', async () => {
    const before = await scrape(t.url);
    for (const family of [
      'polyvox_http_requests_total',
      'polyvox_http_request_seconds',
      'polyvox_synthesis_seconds',
      'polyvox_synthesis_real_time_factor',
      'polyvox_credits_held_total',
      'polyvox_credits_settled_total',
      'polyvox_credits_on_hold',
      'polyvox_jobs',
      'polyvox_queue_depth',
      'process_resident_memory_bytes',
    ]) {
      expect(before, family).toContain(`# TYPE ${family} `);
    }
    expect(sample(before, 'polyvox_jobs{state="running"}')).toBe(0);
    expect(sample(before, 'polyvox_queue_depth')).toBe(0);

    const c = new Client(t.url);
    await c.anonymous();
    const text = `Metrics are counted here ${Math.random().toString(36).slice(2)}.`;
    const res = await c.post('/tts', { text, voice_id: 'voice_espeak.en-us', format: 'mp3' });
    expect(res.status).toBe(200);
    const settledBefore = sample(before, 'polyvox_credits_settled_total');
    const after = await scrapeUntil(t.url, (p) => sample(p, 'polyvox_credits_settled_total') > settledBefore);
    const engine = '{engine="espeak",kind="file"}';
    expect(sample(after, `polyvox_synthesis_seconds_count${engine}`)).toBe(
      sample(before, `polyvox_synthesis_seconds_count${engine}`) + 1,
    );
    expect(sample(after, `polyvox_synthesis_seconds_sum${engine}`)).toBeGreaterThan(
      sample(before, `polyvox_synthesis_seconds_sum${engine}`),
    );
    expect(sample(after, 'polyvox_synthesis_real_time_factor_count{engine="espeak"}')).toBe(
      sample(before, 'polyvox_synthesis_real_time_factor_count{engine="espeak"}') + 1,
    );
    const held = sample(after, 'polyvox_credits_held_total') - sample(before, 'polyvox_credits_held_total');
    const settled = sample(after, 'polyvox_credits_settled_total') - sample(before, 'polyvox_credits_settled_total');
    expect(held).toBeGreaterThan(0);
    expect(settled).toBe(held);
    expect(
      sample(after, 'polyvox_http_request_seconds_count{method="POST",route="/tts",status="200"}') -
        sample(before, 'polyvox_http_request_seconds_count{method="POST",route="/tts",status="200"}'),
    ).toBe(1);

    // The same request again is a cache hit: charged, but no synthesis time is counted for it.
    const again = await c.post('/tts', { text, voice_id: 'voice_espeak.en-us', format: 'mp3' });
    expect(again.headers.get('x-cache')).toBe('hit');
    const settledAfter = sample(after, 'polyvox_credits_settled_total');
    const third = await scrapeUntil(t.url, (p) => sample(p, 'polyvox_credits_settled_total') > settledAfter);
    expect(sample(third, `polyvox_synthesis_seconds_count${engine}`)).toBe(
      sample(after, `polyvox_synthesis_seconds_count${engine}`),
    );
    expect(sample(third, 'polyvox_credits_settled_total')).toBeGreaterThan(sample(after, 'polyvox_credits_settled_total'));
  });

  it('reads queue depth from the source the queue module registers, and 0 again once it is gone', async () => {
    const unregister = registerQueueDepth(() => ({ synthesis: 7, jobs: 2 }));
    try {
      const text = await scrape(t.url);
      expect(sample(text, 'polyvox_queue_depth{queue="synthesis"}')).toBe(7);
      expect(sample(text, 'polyvox_queue_depth{queue="jobs"}')).toBe(2);
    } finally {
      unregister();
    }
    const text = await scrape(t.url);
    expect(sample(text, 'polyvox_queue_depth')).toBe(0);
    expect(text).not.toContain('polyvox_queue_depth{queue="synthesis"}');
    // A source that fails does not fail the scrape.
    const failing = registerQueueDepth(() => Promise.reject(new Error('redis down')));
    try {
      expect(sample(await scrape(t.url), 'polyvox_queue_depth')).toBe(0);
    } finally {
      failing();
    }
  });
});

describe('readiness with Redis unreachable', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres', {
      env: { REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, SPEECH_WARMUP: 'false' },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers /readyz 503 naming redis, while /healthz (alive) stays 200', async () => {
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as {
      status: string;
      failed: string[];
      checks: Record<string, { ok: boolean; error?: string }>;
    };
    expect(body.status).toBe('unavailable');
    expect(body.failed).toEqual(['redis']);
    expect(body.checks.redis!.ok).toBe(false);
    // Which part failed, not how: the error (an internal host and port) goes to the log only.
    expect(body.checks.redis!.error).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain('127.0.0.1');
    expect(body.checks.database!.ok).toBe(true);
    expect(body.checks.storage!.ok).toBe(true);
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });
});
