import fs from 'node:fs/promises';
import { id3Size } from '@polyvox/speech/formats';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { createPgDatabase, startPeer, startTestApp, type LogLine, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { decodedSeconds } from '../support/audio.js';
import { postgresSweepGate } from '../../src/platform/sweep-gate.js';
import { startSweeper } from '../../src/platform/sweeper.js';
import { CACHE_FOLDER } from '../../src/synthesis/shared-cache.js';

/** Several server processes on one PostgreSQL database and one Redis: two apps in this process, each with its own pools. */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = () => `polyvox-test:${process.pid}:${Math.random().toString(36).slice(2)}:`;

/** An app and a second process on one PostgreSQL database and one Redis prefix of their own. */
async function twoProcesses(env: Record<string, string>): Promise<{ t: TestApp; peer: Peer }> {
  const t = await startTestApp('postgres', { env: { REDIS_URL, REDIS_PREFIX: prefix(), PREVIEW_PRERENDER: 'false', ...env } });
  return { t, peer: await startPeer(t) };
}

async function closeBoth(t: TestApp, peer: Peer): Promise<void> {
  await peer.close();
  await t.close();
}

type Peer = Awaited<ReturnType<typeof startPeer>>;

/** Waits for `done` to hold, asking every 50 ms, at most `seconds`. */
async function until(done: () => Promise<boolean> | boolean, seconds = 15): Promise<void> {
  for (let i = 0; i < seconds * 20; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not reached');
}

const silentLog = { info: () => {}, error: () => {}, warn: () => {} } as never;

describe('the sweeper lock on one PostgreSQL database', () => {
  let db: Awaited<ReturnType<typeof createPgDatabase>>;
  beforeAll(async () => {
    db = await createPgDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('lets one process lead until it closes; a lock taken again is still given back by one close', async () => {
    const a = postgresSweepGate(db.url);
    const b = postgresSweepGate(db.url);
    try {
      expect(await a.leading()).toBe(true);
      expect(await b.leading()).toBe(false);
      for (let i = 0; i < 3; i++) expect(await a.leading()).toBe(true);
      expect(await b.leading()).toBe(false);
      await a.close();
      expect(await a.leading()).toBe(false);
      expect(await b.leading()).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('runs each round in one process only, and another takes over when the leader’s connection dies', async () => {
    const counts = [0, 0];
    const gates = [postgresSweepGate(db.url), postgresSweepGate(db.url)];
    const stops = gates.map((gate, i) =>
      startSweeper({ sweep: () => Promise.resolve(++counts[i]!), done: 'x', field: 'n', failed: 'y' }, 1, silentLog, gate),
    );
    try {
      await until(() => counts[0]! + counts[1]! >= 3);
      const leader = counts[0]! > 0 ? 0 : 1;
      expect(counts[1 - leader]).toBe(0);
      // The leader's connection dies (a network cut, a killed backend): its lock goes with the session, and the
      // rounds go on, led by whichever process asks first (the old leader reconnects and asks like any other).
      const total = () => counts[0]! + counts[1]!;
      const before = total();
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      try {
        const killed = await admin.query(
          `SELECT pg_terminate_backend(l.pid) FROM pg_locks l
            WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        expect(killed.rowCount).toBe(1);
      } finally {
        await admin.end();
      }
      await until(() => total() >= before + 2);
      // The leader stops for good: the other one leads.
      const current = await gates[0]!.leading();
      const other = current ? 1 : 0;
      const otherBefore = counts[other]!;
      stops[1 - other]!();
      await gates[1 - other]!.close();
      await until(() => counts[other]! > otherBefore);
    } finally {
      for (const stop of stops) stop();
      for (const gate of gates) await gate.close();
    }
  });
});

describe('the apps’ sweepers with two processes on one PostgreSQL database', () => {
  let t: TestApp;
  let peer: Peer;
  const firstLogs: LogLine[] = [];
  const peerLogs: LogLine[] = [];
  beforeAll(async () => {
    t = await startTestApp('postgres', {
      env: { HOLD_SWEEP_SECONDS: '1', ORDER_SWEEP_SECONDS: '1', SPEECH_WARMUP: 'false', PREVIEW_PRERENDER: 'false' },
      logs: firstLogs,
    });
    peer = await startPeer(t, { logs: peerLogs });
  });
  afterAll(async () => {
    await peer.close();
    await t.close();
  });

  const swept = (logs: LogLine[]) =>
    logs.filter((l) => l.msg === 'released expired credit holds').reduce((n, l) => n + Number(l.released), 0);

  it('releases expired holds in one process only, round after round; the other takes over when it stops', async () => {
    const c = new Client(t.url);
    const { account } = await c.anonymous();
    const accountId = account.id as string;
    const holds: string[] = [];
    for (let round = 0; round < 3; round++) {
      // Expired at once: the next round of whichever process sweeps releases them.
      const made = await Promise.all([1, 2, 3].map(() => t.ctx.credits.hold(accountId, 1, 'tts', 0)));
      holds.push(...made.map((h) => h.id));
      await until(async () =>
        (await Promise.all(made.map((h) => t.ctx.credits.holdStatus(h.id)))).every((s) => s === 'released'),
      );
    }
    // Nine holds released, all by the first process to start (the leader); the peer's rounds were skipped.
    expect(swept(firstLogs)).toBe(9);
    expect(swept(peerLogs)).toBe(0);
    // Each hold was released once: one release entry per hold in the ledger.
    const releases = await t.ctx.db.kysely.selectFrom('credit_ledger').select('hold_id').where('kind', '=', 'release').execute();
    expect(releases.filter((r) => holds.includes(r.hold_id!)).length).toBe(9);

    await t.stop();
    const late = await peer.ctx.credits.hold(accountId, 1, 'tts', 0);
    await until(async () => (await peer.ctx.credits.holdStatus(late.id)) === 'released');
    expect(swept(peerLogs)).toBe(1);
  });
});

describe('shared state across two API processes (PostgreSQL and Redis)', () => {
  let t: TestApp;
  let peer: Peer;
  beforeAll(async () => {
    ({ t, peer } = await twoProcesses({ SPEECH_WORKERS: '1', EXISTS_LIMIT_PER_IP_MINUTE: '4' }));
  });
  afterAll(() => closeBoth(t, peer));

  const balance = async (c: Client) => (await c.get('/accounts/me')).body.vip.credits as number;

  it('serves one process’s synthesis from the other’s cache, byte for byte, each caller charged once', async () => {
    const text = `Shared between processes ${Math.random().toString(36).slice(2)}.`;
    const body = { text, voice_id: 'voice_espeak.en-us', format: 'mp3' };
    const here = new Client(t.url);
    const there = new Client(peer.url);
    await here.anonymous();
    await there.anonymous();
    const price = (await here.post('/tts/estimate', body)).body.credits as number;
    const [hereBefore, thereBefore] = [await balance(here), await balance(there)];

    const made = await fetch(`${t.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': here.sid! },
      body: JSON.stringify(body),
    });
    expect(made.headers.get('x-cache')).toBe('miss');
    const audio = Buffer.from(await made.arrayBuffer());
    const served = await fetch(`${peer.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': there.sid! },
      body: JSON.stringify(body),
    });
    expect(served.status).toBe(200);
    expect(served.headers.get('x-cache')).toBe('hit');
    // The same audio, byte for byte; each answer is its own piece of content, with its own label and manifest in
    // the ID3 tag in front of the frames.
    const frames = (mp3: Buffer) => mp3.subarray(id3Size(mp3));
    const again = Buffer.from(await served.arrayBuffer());
    expect(frames(again).equals(frames(audio))).toBe(true);
    expect(again.equals(audio)).toBe(false);

    await until(async () => (await balance(here)) !== hereBefore && (await balance(there)) !== thereBefore);
    expect(await balance(here)).toBe(hereBefore - price);
    expect(await balance(there)).toBe(thereBefore - price);
  });

  it('never serves a damaged or missing shared file: the other process makes the audio again', async () => {
    const text = `Damaged on purpose ${Math.random().toString(36).slice(2)}.`;
    const body = JSON.stringify({ text, voice_id: 'voice_espeak.en-us', format: 'wav' });
    const here = new Client(t.url);
    await here.anonymous();
    const there = new Client(peer.url);
    await there.anonymous();
    const known = new Set(await t.ctx.storage.list(CACHE_FOLDER));
    const made = await fetch(`${t.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': here.sid! },
      body,
    });
    const audio = Buffer.from(await made.arrayBuffer());
    const key = (await t.ctx.storage.list(CACHE_FOLDER)).find((k) => !known.has(k))!;
    expect(key).toBeDefined();
    // Cut short, as a half-copied file would be: its size no longer matches the index.
    await t.ctx.storage.put(key, audio.subarray(0, audio.length - 1000));
    const again = await fetch(`${peer.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': there.sid! },
      body,
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-cache')).toBe('miss');
    // Made again, whole: as long as the first (engines need not repeat themselves bit for bit), not the cut file.
    const remade = Buffer.from(await again.arrayBuffer());
    expect(remade.equals(audio.subarray(0, audio.length - 1000))).toBe(false);
    expect(Math.abs((await decodedSeconds(remade)) - (await decodedSeconds(audio)))).toBeLessThan(0.05);
    // Gone altogether (another machine's local folder, a lifecycle rule): a miss too, never an error.
    const third = new Client(peer.url);
    await third.anonymous();
    const other = JSON.stringify({ text: `${text} Again.`, voice_id: 'voice_espeak.en-us', format: 'wav' });
    const known2 = new Set(await t.ctx.storage.list(CACHE_FOLDER));
    await fetch(`${t.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': here.sid! },
      body: other,
    });
    const key2 = (await t.ctx.storage.list(CACHE_FOLDER)).find((k) => !known2.has(k))!;
    await t.ctx.storage.delete(key2);
    const fourth = await fetch(`${peer.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': third.sid! },
      body: other,
    });
    expect(fourth.status).toBe(200);
    expect(fourth.headers.get('x-cache')).toBe('miss');
  });

  it('removes shared files whose index entry expired, in the sweep', async () => {
    const orphan = `${CACHE_FOLDER}/${'0'.repeat(64)}`;
    await t.ctx.storage.put(orphan, Buffer.from('old audio'));
    const removed = await t.ctx.audioCache!.sweep();
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await t.ctx.storage.get(orphan)).toBeNull();
    // Live entries stay.
    expect((await t.ctx.storage.list(CACHE_FOLDER)).length).toBeGreaterThan(0);
  });

  it('holds the one-time code cooldown across processes, even for two requests at the same moment', async () => {
    for (let i = 0; i < 4; i++) {
      const email = `both-${i}-${Math.random().toString(36).slice(2)}@example.com`;
      const answers = await Promise.all([
        new Client(t.url).post('/verification/email', { email }),
        new Client(peer.url).post('/verification/email', { email }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 429]);
      const refused = answers.find((a) => a.status === 429)!;
      expectError(refused, 'CODE_COOLDOWN');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const mails = (await fs.readdir(t.outbox)).filter((f) => f.endsWith('.eml'));
      let sent = 0;
      for (const f of mails) if ((await fs.readFile(path.join(t.outbox, f), 'utf8')).includes(email)) sent += 1;
      expect(sent).toBe(1);
      const codes = await t.ctx.db.kysely.selectFrom('verification_codes').select('id').where('email', '=', email).execute();
      expect(codes).toHaveLength(1);
    }
    // One after the other, through the other process.
    const email = `seq-${Math.random().toString(36).slice(2)}@example.com`;
    expect((await new Client(t.url).post('/verification/email', { email })).status).toBe(200);
    expectError(await new Client(peer.url).post('/verification/email', { email }), 'CODE_COOLDOWN');
  });

  it("counts an API key's work in flight across processes, and frees the slot when the client leaves", async () => {
    const owner = new Client(t.url);
    await owner.anonymous();
    const { body: key } = await owner.put('/api/authorization', { name: 'one at a time', concurrency: 1 });
    const auth = { authorization: `Bearer ${key.key}` };
    // A stream through the first process, read to its first chunk and left open: it holds the key's one slot.
    const leave = new AbortController();
    const stream = await fetch(`${t.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({
        text: 'A stream that stays open for a while. '.repeat(12),
        voice_id: 'voice_espeak.en-us',
        format: 'mp3',
        stream: true,
      }),
      signal: leave.signal,
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    expectError(await new Client(peer.url).get('/api/me', auth), 'RATE_LIMITED');
    leave.abort();
    await reader.cancel().catch(() => {});
    await until(async () => (await new Client(peer.url).get('/api/me', auth)).status === 200);
  });

  it('counts a per-IP limit across processes (Redis)', async () => {
    const ask = (url: string) => new Client(url).get(`/accounts/exists?email=${Math.random().toString(36).slice(2)}@example.com`);
    for (const url of [t.url, peer.url, t.url, peer.url]) expect((await ask(url)).status).toBe(200);
    expectError(await ask(peer.url), 'RATE_LIMITED');
    expectError(await ask(t.url), 'RATE_LIMITED');
  });
});

describe('trial allowance across two API processes', () => {
  let t: TestApp;
  let peer: Peer;
  beforeAll(async () => {
    ({ t, peer } = await twoProcesses({ SPEECH_WARMUP: 'false', TRIAL_GRANTS_PER_IP_DAY: '1' }));
  });
  afterAll(() => closeBoth(t, peer));

  it('grants one trial per IP per day, whichever process creates the account', async () => {
    const first = new Client(t.url);
    await first.anonymous();
    const second = new Client(peer.url);
    await second.anonymous();
    const credits = async (c: Client) => (await c.get('/accounts/me')).body.vip.credits as number;
    expect(await credits(first)).toBeGreaterThan(0);
    expect(await credits(second)).toBe(0);
  });
});
