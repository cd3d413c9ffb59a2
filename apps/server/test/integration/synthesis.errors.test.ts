import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

/** A local server speaking OpenAI's speech protocol that answers with the status the test sets. */
function fakeOpenAI(): Promise<{ url: string; setStatus(s: number): void; close(): Promise<void> }> {
  let status = 500;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '7' } : {}) });
      res.end(
        JSON.stringify({
          error: { message: 'upstream says no', type: status === 429 ? 'rate_limit_exceeded' : 'server_error', code: null },
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        setStatus: (s) => (status = s),
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

describe.each(DIALECTS)('synthesis errors (%s)', (dialect) => {
  let t: TestApp;
  let upstream: Awaited<ReturnType<typeof fakeOpenAI>>;
  let c: Client;
  beforeAll(async () => {
    upstream = await fakeOpenAI();
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', OPENAI_TTS_URL: upstream.url, OPENAI_TTS_KEY: 'sk-test' } });
    c = new Client(t.url);
    await c.anonymous();
    const { id } = await signIn(c, t.outbox, `errors-${dialect}@example.com`);
    await givePlan(t, id); // streams texts longer than the free plan's limit
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  const balance = async (client = c) => (await client.get('/accounts/me')).body.vip.credits as number;
  const ledgerRows = async () => (await t.ctx.db.kysely.selectFrom('credit_ledger').select('id').execute()).length;

  it('refuses with 402 before any audio when credits are short, and changes nothing', async () => {
    const poor = new Client(t.url);
    await poor.anonymous('web-shared-device');
    const broke = new Client(t.url);
    const { account } = await broke.anonymous('web-shared-device'); // the trial was given once per device
    expect(account.vip.credits).toBe(0);
    const rows = await ledgerRows();
    const res = await broke.post('/tts', { text: 'Hello there, how are you?', voice_id: 'voice_espeak.en-us' });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(res.headers.get('content-type')).toMatch(/json/);
    expect(await ledgerRows()).toBe(rows);
  });

  it('stops the synthesis that ran beside a refused hold: nothing of it is kept for anyone', async () => {
    await new Client(t.url).anonymous('web-raced-device');
    const broke = new Client(t.url);
    await broke.anonymous('web-raced-device');
    const body = { text: 'A sentence nobody paid for must not be made for free.', voice_id: 'voice_espeak.en-us' };
    expect((await broke.post('/tts', body)).status).toBe(402);
    // Synthesis starts while the price is held; the refusal stopped it before it reached the cache.
    const paid = await c.post('/tts', body);
    expect(paid.status).toBe(200);
    expect(paid.headers.get('x-cache')).toBe('miss');
  });

  it("refuses text over the plan's limit with TEXT_TOO_LONG naming the limit, in the caller's language", async () => {
    // A free account's limit (plans.privileges.test.ts covers each plan and route).
    const free = new Client(t.url);
    await free.anonymous();
    const res = await free.post('/tts?lang=zh-CN', { text: 'a'.repeat(1001), voice_id: 'voice_espeak.en-us' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('TEXT_TOO_LONG');
    expect(res.body.error.message).toBe('文本超过 1,000 个字符的限制');
  });

  it('refuses text in a language the voice does not speak', async () => {
    const before = await balance();
    const res = await c.post('/tts', { text: '这是一段很长的中文文本，英文声音不会读。', voice_id: 'voice_flite.slt' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('LANGUAGE_UNSUPPORTED');
    const estimate = await c.post('/tts/estimate', {
      text: '这是一段很长的中文文本，英文声音不会读。',
      voice_id: 'voice_flite.slt',
    });
    expect(estimate.status).toBe(200);
    expect(estimate.body.language_supported).toBe(false);
    expect(await balance()).toBe(before);
  });

  it('answers 404 for an unknown voice and 400 for out-of-range parameters', async () => {
    expect((await c.post('/tts', { text: 'Hello.', voice_id: 'voice_nope' })).body.error.code).toBe('NOT_FOUND');
    expect((await c.get('/voice?id=voice_nope')).status).toBe(404);
    const fast = await c.post('/tts', { text: 'Hello.', voice_id: 'voice_espeak.en-us', speed: 3 });
    expect(fast.status).toBe(400);
    expect(fast.body.error.code).toBe('VALIDATION_FAILED');
    expect(fast.body.error.message).toContain('speed');
    const format = await c.post('/tts', { text: 'Hello.', voice_id: 'voice_espeak.en-us', format: 'aiff' });
    expect(format.body.error.code).toBe('VALIDATION_FAILED');
    const missing = await c.post('/tts', { voice_id: 'voice_espeak.en-us' });
    expect(missing.body.error.code).toBe('PARAMETERS_NEEDED');
    expect((await c.get('/voice?page_size=101')).status).toBe(400);
  });

  it('releases the hold when the client leaves a stream before its end', async () => {
    const before = await balance();
    const controller = new AbortController();
    const text = Array.from({ length: 40 }, (_, i) => `Sentence ${i + 1} of a stream that nobody will finish hearing.`).join(' ');
    const res = await fetch(new URL('/tts', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid! },
      body: JSON.stringify({ text, voice_id: 'voice_espeak.en-us', stream: true }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    let holds: { status: string }[] = [];
    for (let i = 0; i < 100; i++) {
      holds = await t.ctx.db.kysely.selectFrom('credit_holds').select('status').where('status', '=', 'held').execute();
      if (holds.length === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(holds).toHaveLength(0);
    expect(await balance()).toBe(before);
    const last = await t.ctx.db.kysely
      .selectFrom('credit_holds')
      .select('status')
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(last.status).toBe('released');
  });

  it('charges nothing when the provider fails, and maps its 429 to RATE_LIMITED', async () => {
    const before = await balance();
    upstream.setStatus(500);
    const failed = await c.post('/tts', { text: 'This will fail upstream.', voice_id: 'voice_openai.alloy' });
    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatchObject({ code: 'INTERNAL', message: 'Something went wrong, please try again later' });
    expect(JSON.stringify(failed.body)).not.toContain('upstream says no');
    upstream.setStatus(429);
    const limited = await c.post('/tts', { text: 'This will be rate limited.', voice_id: 'voice_openai.alloy', stream: true });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await balance()).toBe(before);
    const holds = await t.ctx.db.kysely.selectFrom('credit_holds').select('status').where('status', '=', 'held').execute();
    expect(holds).toHaveLength(0);
  });
});

describe.each(DIALECTS)('synthesis security (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('needs a session to synthesize or estimate; a forged one is refused', async () => {
    const c = new Client(t.url);
    const body = { text: 'Hello.', voice_id: 'voice_espeak.en-us' };
    for (const [path, payload] of [
      ['/tts', body],
      ['/tts/estimate', body],
      ['/v1/audio/speech', { model: 'tts-1', input: 'Hello.', voice: 'alloy' }],
    ] as const) {
      expect((await c.post(path, payload)).status).toBe(401);
      expect((await c.post(path, payload, { 'x-sid': 'forged-session' })).status).toBe(401);
      expect((await c.post(path, payload, { cookie: 'sid=forged' })).status).toBe(401);
      expect((await c.post(path, payload, { authorization: 'Bearer forged' })).status).toBe(401);
    }
  });

  it('charges the caller, never another account', async () => {
    const a = new Client(t.url);
    await a.anonymous();
    const b = new Client(t.url);
    await b.anonymous();
    const before = (await b.get('/accounts/me')).body.vip.credits;
    expect((await a.post('/tts', { text: 'Only my credits.', voice_id: 'voice_espeak.en-us' })).status).toBe(200);
    expect((await b.get('/accounts/me')).body.vip.credits).toBe(before);
  });
});
