/**
 * Clients that leave, and clients that are refused, never take the server down. A real server process
 * (main.ts, as `npm start` runs it) is hammered with parallel paid requests on every synthesis route and
 * format, each left at a random moment or refused for its price, then asked whether it still serves and
 * whether every account's ledger is exact: no hold left open, the balance equal to the sum of the records
 * the user sees and of the ledger itself.
 *
 * This is the process-level guard of issue 14 item A: a sentence that waited in the synthesis pool while
 * its caller left (or its hold was refused) had a closed port in its transfer list, and posting it threw
 * from the pool's message handler, an uncaught exception that ended the process.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { createPgDatabase, DIALECTS } from '../support/app.js';
import { killAll, startServer, type ServerProcess } from '../support/processes.js';
import { seededRandom } from '../support/random.js';

afterAll(killAll);

interface Outcome {
  route: string;
  /** The status, when an answer came and was read to its end. */
  status?: number;
  /** The client left (at `leftAt` ms) before the answer was read. */
  left: boolean;
}

/**
 * A POST whose client leaves after `leaveAfterMs` (undefined: it stays and reads the whole answer).
 * Never rejects: a connection the server refused or reset is an outcome too.
 */
function post(
  base: string,
  route: string,
  body: unknown,
  headers: Record<string, string>,
  leaveAfterMs?: number,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const req = http.request(new URL(route, base), {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), ...headers },
    });
    let settled = false;
    const done = (o: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const timer =
      leaveAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            req.destroy();
            done({ route, left: true });
          }, leaveAfterMs);
    req.on('response', (res) => {
      res.on('data', () => {});
      res.on('end', () => done({ route, status: res.statusCode!, left: false }));
      res.on('error', () => done({ route, left: true }));
    });
    req.on('error', () => done({ route, left: true }));
    req.end(payload);
  });
}

async function json(base: string, method: string, route: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(new URL(route, base), {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

interface Caller {
  id: string;
  sid: string;
  key: string;
}

async function caller(base: string, n: string): Promise<Caller> {
  const anon = await json(
    base,
    'POST',
    '/accounts/anonymous',
    {},
    {
      device: { udid: `crash-${n}`, model: 'x', brand: 'other', os: 'other' },
    },
  );
  expect(anon.status).toBe(201);
  const sid = anon.body.sid as string;
  const key = await json(base, 'PUT', '/api/authorization', { 'x-sid': sid }, { name: `crash ${n}` });
  expect(key.status).toBe(201);
  return { id: anon.body.account.id as string, sid, key: key.body.key as string };
}

const VOICES = ['voice_espeak.en-us', 'voice_flite.slt'];
const sentence = (i: number) => `Sentence ${i} is spoken for a caller who may not stay for it.`;
const text = (i: number, sentences: number) => Array.from({ length: sentences }, (_, k) => sentence(i * 10 + k)).join(' ');

/** Every paid route and format a client can leave: [route, body, headers] for request `i` of `c`. */
function requests(c: Caller, i: number): [string, unknown, Record<string, string>][] {
  const voice = VOICES[i % VOICES.length]!;
  const session = { 'x-sid': c.sid };
  const out: [string, unknown, Record<string, string>][] = [];
  for (const format of ['mp3', 'wav', 'opus', 'pcm'])
    for (const stream of [false, true])
      out.push(['/tts', { text: text(i, stream ? 3 : 1), voice_id: voice, format, stream }, session]);
  // A two-sentence mp3 is encoded sentence by sentence, a one-sentence one straight from the worker.
  out.push(['/tts', { text: text(i, 2), voice_id: voice, format: 'mp3' }, session]);
  for (const response_format of ['mp3', 'opus', 'wav', 'pcm'])
    out.push([
      '/v1/audio/speech',
      { model: 'tts-1', input: text(i, 1), voice: 'alloy', response_format },
      { authorization: `Bearer ${c.sid}` },
    ]);
  for (const output_format of ['mp3_44100_128', 'opus_48000_64', 'pcm_24000', 'ulaw_8000'])
    for (const stream of ['', '/stream'])
      out.push([
        `/v1/text-to-speech/${voice}${stream}`,
        { text: text(i, stream ? 2 : 1), output_format },
        { 'xi-api-key': c.key },
      ]);
  out.push([
    '/voice/previews',
    { type: 'prompt', model: 'flite', language: 'en', preview_text: text(i, 1), prompt: 'a calm voice, slow' },
    session,
  ]);
  out.push(['/tts/jobs', { text: text(i, 4), voice_id: voice, format: 'mp3' }, session]);
  return out;
}

/** Polls until `check` holds or `ms` pass; returns whether it held (the caller asserts). */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const alive = async (proc: ServerProcess): Promise<boolean> => {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return false;
  try {
    return (await fetch(`${proc.url}/healthz`)).status === 200;
  } catch {
    return false;
  }
};

describe.each(DIALECTS)('a server process whose clients leave or are refused (%s)', (dialect) => {
  it('keeps serving, closes every hold, and keeps every ledger exact', async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
    const rand = seededRandom(seed);
    const database = dialect === 'postgres' ? await createPgDatabase() : null;
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-crash-'));
    const proc = await startServer({
      DATA_DIR: dataDir,
      WEB_DIST: path.join(dataDir, 'none'),
      ...(database ? { DATABASE_URL: database.url } : {}),
    });
    const context = () => `seed ${seed} (CRASH_SEED=${seed} replays it); server output:\n${proc.output().slice(-4000)}`;
    const callers = await Promise.all(['a', 'b', 'c'].map((n) => caller(proc.url, `${dialect}-${seed}-${n}`)));
    const outcomes: Outcome[] = [];

    // Every route and format at once, each client leaving at a random moment (some at once, some while
    // its sentence waits in the pool, some while audio flows) or staying; the accounts run out of credits
    // on the way, so later requests are refused for their price while earlier ones still run.
    for (let wave = 0; wave < 3; wave++) {
      const batch = callers.flatMap((c, k) =>
        requests(c, wave * 3 + k).map(([route, body, headers]) =>
          post(proc.url, route, body, headers, rand() < 0.8 ? Math.floor(rand() * 600) : undefined),
        ),
      );
      outcomes.push(...(await Promise.all(batch)));
      expect(await alive(proc), `the server died in wave ${wave}: ${context()}`).toBe(true);
    }

    // A hundred one-sentence mp3 requests at once on one fresh account, nobody leaving: most are refused
    // for their price while the first ones' sentences wait in the pool.
    const poor = await caller(proc.url, `${dialect}-${seed}-poor`);
    const many = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        post(proc.url, '/tts', { text: sentence(1000 + i), voice_id: VOICES[0], format: 'mp3' }, { 'x-sid': poor.sid }),
      ),
    );
    outcomes.push(...many);
    expect(await alive(proc), `the server died under 100 parallel requests: ${context()}`).toBe(true);
    const answered = many.map((o) => o.status);
    expect(answered.filter((s) => s === 200).length, context()).toBeGreaterThan(0);
    expect(answered.filter((s) => s === 402).length, context()).toBeGreaterThan(0);
    expect(
      answered.every((s) => s === 200 || s === 402),
      JSON.stringify(answered),
    ).toBe(true);

    // Still serving: a new caller gets its file.
    const after = await caller(proc.url, `${dialect}-${seed}-after`);
    const res = await fetch(`${proc.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': after.sid },
      body: JSON.stringify({ text: 'The server still speaks.', voice_id: VOICES[0], format: 'mp3' }),
    });
    expect(res.status, context()).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);

    // The ledger: once the work still running (jobs, previews) is done, no hold is open, and each
    // account's balance is the sum of its ledger and of the records its user sees.
    const db = openDatabase({ dataDir, ...(database ? { databaseUrl: database.url } : {}) });
    try {
      const accounts = [...callers, poor, after];
      const open = async () =>
        (
          await db.kysely
            .selectFrom('credit_holds')
            .select('id')
            .where(
              'account_id',
              'in',
              accounts.map((a) => a.id),
            )
            .where('status', '=', 'held')
            .execute()
        ).length;
      expect(await until(async () => (await open()) === 0, 180_000), `holds left open: ${context()}`).toBe(true);
      for (const a of accounts) {
        const balance = (await json(proc.url, 'GET', '/accounts/me', { 'x-sid': a.sid })).body.vip.credits as number;
        let recorded = 0;
        let seen = 0;
        for (let page = 1; ; page++) {
          const { body } = await json(proc.url, 'GET', `/api/credits/records?page=${page}&page_size=100`, {
            'x-sid': a.sid,
          });
          for (const r of body.items as { amount: number }[]) recorded += r.amount;
          seen += body.items.length;
          if (seen >= body.total || body.items.length === 0) break;
        }
        const ledger = await db.kysely
          .selectFrom('credit_ledger')
          .select(['amount', 'balance_after'])
          .where('account_id', '=', a.id)
          .execute();
        const sum = ledger.reduce((n, e) => n + Number(e.amount), 0);
        expect({ account: a.id, balance, records: recorded, ledger: sum }).toEqual({
          account: a.id,
          balance,
          records: balance,
          ledger: balance,
        });
        expect(balance).toBeGreaterThanOrEqual(0);
        expect(ledger.every((e) => Number(e.balance_after) >= 0)).toBe(true);
      }
    } finally {
      await db.close();
    }
    expect(proc.output()).not.toMatch(/DataCloneError|EPIPE|ERR_IPC_CHANNEL_CLOSED|uncaught/i);
    const left = outcomes.filter((o) => o.left).length;
    console.info(
      `crash figures ${JSON.stringify({ dialect, seed, requests: outcomes.length, left, refused: outcomes.filter((o) => o.status === 402).length })}`,
    );

    // And it still shuts down cleanly.
    proc.child.kill('SIGTERM');
    expect(await proc.exited, context()).toBe(0);
    await database?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }, 600_000);
});
