import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type LogLine, type TestApp } from '../support/app.js';
import { givePlan } from '../support/economy.js';
import { eventually, ffmpegChildren, heldHolds, holdsOf, longText, pipeline, rawPost } from '../support/leave.js';

/** Clients that leave at every moment of a paid request: nothing charged, nothing left running, nothing logged as an error. */
describe.each(DIALECTS)('synthesis when the client leaves (%s)', (dialect) => {
  let t: TestApp;
  const logs: LogLine[] = [];
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', HOLD_SWEEP_SECONDS: '86400' }, logs });
    await t.ctx.voices.load();
  });
  afterAll(async () => {
    await t.close();
  });

  async function payer(): Promise<{ c: Client; id: string; balance: () => Promise<number> }> {
    const c = new Client(t.url);
    await c.anonymous();
    const account = await signIn(c, t.outbox, `leaver-${dialect}-${++n}@example.com`);
    await givePlan(t, account.id); // texts longer than the free plan's limit: a subscriber's
    return { c, id: account.id, balance: async () => (await c.get('/accounts/me')).body.vip.credits as number };
  }

  /** Errors the server logged or answered (500) since `from`; a client leaving must cause none. */
  const serverErrors = (from: number) =>
    logs.slice(from).filter((l) => l.level >= 50 || (l.res as { statusCode?: number } | undefined)?.statusCode === 500);

  it('releases a stream left before its first chunk, and kills its encoder', async () => {
    const { c, id, balance } = await payer();
    const before = await balance();
    const from = logs.length;
    expect(ffmpegChildren()).toBe(0);
    const { req } = rawPost(
      t.url,
      '/tts',
      { text: longText(40), voice_id: 'voice_espeak.en-us', format: 'mp3', stream: true },
      {
        'x-sid': c.sid!,
      },
    );
    req.on('error', () => {});
    // Leave once the price is held and synthesis has begun, before any audio exists.
    expect(await eventually(async () => (await heldHolds(t, id)).length === 1, 300, 10)).toBe(true);
    req.destroy();
    expect(await eventually(async () => (await heldHolds(t, id)).length === 0)).toBe(true);
    expect((await holdsOf(t, id)).map((h) => h.status)).toEqual(['released']);
    expect(await balance()).toBe(before);
    expect(await eventually(() => ffmpegChildren() === 0)).toBe(true);
    expect(serverErrors(from)).toEqual([]);
  });

  it('releases /v1/audio/speech streams of several callers who all leave before any audio', async () => {
    const callers = await Promise.all([payer(), payer(), payer()]);
    const before = await Promise.all(callers.map((p) => p.balance()));
    const from = logs.length;
    const requests = callers.map(({ c }) => {
      const { req } = rawPost(
        t.url,
        '/v1/audio/speech',
        { model: 'tts-1', input: longText(30, 'an API caller who hangs up'), voice: 'alloy', response_format: 'opus' },
        { authorization: `Bearer ${c.sid}` },
      );
      req.on('error', () => {});
      return req;
    });
    // All leave once their price is held, while the first sentences are being made.
    const held = async () =>
      (await Promise.all(callers.map(async (p) => (await heldHolds(t, p.id)).length))).every((k) => k === 1);
    expect(await eventually(held, 600, 5)).toBe(true);
    for (const req of requests) req.destroy();
    for (const [i, p] of callers.entries()) {
      expect(await eventually(async () => (await heldHolds(t, p.id)).length === 0)).toBe(true);
      expect(await p.balance()).toBe(before[i]);
    }
    expect(await eventually(() => ffmpegChildren() === 0)).toBe(true);
    expect(serverErrors(from)).toEqual([]);
  });

  it('charges a stream read to its end exactly once, after the last chunk', async () => {
    const { c, id, balance } = await payer();
    const before = await balance();
    const res = await fetch(new URL('/tts', t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid! },
      body: JSON.stringify({
        text: longText(6, 'a stream heard in full'),
        voice_id: 'voice_espeak.en-us',
        format: 'mp3',
        stream: true,
      }),
    });
    const charged = Number(res.headers.get('x-credits-charged'));
    expect(charged).toBeGreaterThan(0);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    expect(await eventually(async () => (await holdsOf(t, id)).every((h) => h.status === 'settled'))).toBe(true);
    expect(await balance()).toBe(before - charged);
  });

  it('charges nothing when the client leaves a plain /tts while it is synthesized, and logs no error', async () => {
    const { c, id, balance } = await payer();
    const before = await balance();
    const from = logs.length;
    const { req } = rawPost(
      t.url,
      '/tts',
      { text: longText(40, 'a plain request'), voice_id: 'voice_espeak.en-us' },
      {
        'x-sid': c.sid!,
      },
    );
    req.on('error', () => {});
    expect(await eventually(async () => (await heldHolds(t, id)).length === 1, 300, 10)).toBe(true);
    req.destroy();
    expect(await eventually(async () => (await heldHolds(t, id)).length === 0)).toBe(true);
    expect((await holdsOf(t, id)).map((h) => h.status)).toEqual(['released']);
    expect(await balance()).toBe(before);
    expect(serverErrors(from)).toEqual([]);
  });

  it('charges nothing when the client leaves while the finished audio waits to be sent', async () => {
    const { c, id, balance } = await payer();
    const short = { text: 'A short answer that waits its turn.', voice_id: 'voice_espeak.en-us', format: 'mp3' };
    expect((await c.post('/tts', short)).status).toBe(200);
    expect(await eventually(async () => (await heldHolds(t, id)).length === 0)).toBe(true);
    const before = await balance();
    const from = logs.length;
    // Pipelined on one connection, the short reply (a cache hit, ready at once) is queued behind a
    // long stream, so it is synthesized and paid for but cannot be delivered while the stream runs.
    const long = { text: longText(60, 'a stream in front'), voice_id: 'voice_espeak.en-us', format: 'mp3', stream: true };
    const socket = pipeline(t.url, c.sid!, [long, short]);
    expect(await eventually(() => socket.received() > 20_000 && socket.received() < 200_000, 600, 10)).toBe(true);
    const holds = await heldHolds(t, id);
    expect(holds).toHaveLength(2);
    socket.destroy();
    expect(await eventually(async () => (await heldHolds(t, id)).length === 0)).toBe(true);
    expect((await holdsOf(t, id)).slice(-2).map((h) => h.status)).toEqual(['released', 'released']);
    expect(await balance()).toBe(before);
    expect(serverErrors(from)).toEqual([]);
  });

  it('charges a plain /tts whose audio was delivered, and serves the cache hit the same way', async () => {
    const { c, id, balance } = await payer();
    const before = await balance();
    const body = { text: 'A short sentence, delivered in full.', voice_id: 'voice_espeak.en-us', format: 'mp3' };
    const first = await c.post('/tts', body);
    expect(first.status).toBe(200);
    const second = await c.post('/tts', body);
    expect(second.headers.get('x-cache')).toBe('hit');
    const charged = Number(first.headers.get('x-credits-charged'));
    expect(await eventually(async () => (await holdsOf(t, id)).every((h) => h.status === 'settled'))).toBe(true);
    expect(await balance()).toBe(before - 2 * charged);
  });
});

describe.each(DIALECTS)('synthesis at shutdown (%s)', (dialect) => {
  it('closes even when a finished reply sits unread: the app does not wait for a client that stopped reading', async () => {
    let t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', HOLD_SWEEP_SECONDS: '86400' } });
    try {
      const c = new Client(t.url);
      await c.anonymous();
      const account = await signIn(c, t.outbox, `unread-${dialect}@example.com`);
      await givePlan(t, account.id); // texts longer than the free plan's limit: a subscriber's
      // mp3 of a mid-length text: all of it is made and handed to the socket, where nobody reads it.
      const { req, response } = rawPost(
        t.url,
        '/tts',
        { text: longText(60, 'a reply nobody reads'), voice_id: 'voice_espeak.en-us', format: 'mp3', stream: true },
        { 'x-sid': c.sid! },
      );
      req.on('error', () => {});
      const res = await response;
      res.on('error', () => {});
      expect(res.statusCode).toBe(200);
      await eventually(async () => (await heldHolds(t, account.id)).length === 0);
      t = await t.restart();
      const statuses = (await holdsOf(t, account.id)).map((h) => h.status);
      expect(statuses).toHaveLength(1);
      expect(['settled', 'released']).toContain(statuses[0]);
    } finally {
      await t.close();
    }
  }, 300_000); // two cold starts of the engines and a 60-sentence stream, on a machine other work keeps busy

  it('releases the hold of a stream in flight when the app closes, and stops its encoder', async () => {
    let t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', HOLD_SWEEP_SECONDS: '86400' } });
    try {
      const c = new Client(t.url);
      await c.anonymous();
      const account = await signIn(c, t.outbox, `shutdown-${dialect}@example.com`);
      await givePlan(t, account.id); // texts longer than the free plan's limit: a subscriber's
      const before = (await c.get('/accounts/me')).body.vip.credits as number;
      const { req, response } = rawPost(
        t.url,
        '/tts',
        // WAV: megabytes more than the sockets' buffers hold, so the stream is still being made when the app closes.
        { text: longText(85, 'a stream cut by a restart'), voice_id: 'voice_espeak.en-us', format: 'wav', stream: true },
        { 'x-sid': c.sid! },
      );
      req.on('error', () => {});
      const res = await response;
      expect(res.statusCode).toBe(200);
      // Unread, the stream waits at a chunk: the shutdown has to stop it, not wait for its end.
      res.on('error', () => {});
      expect((await heldHolds(t, account.id)).length).toBe(1);
      t = await t.restart();
      expect(ffmpegChildren()).toBe(0);
      expect((await holdsOf(t, account.id)).map((h) => h.status)).toEqual(['released']);
      const again = new Client(t.url);
      again.sid = c.sid;
      expect((await again.get('/accounts/me')).body.vip.credits).toBe(before);
    } finally {
      await t.close();
    }
  }, 300_000);
});
