import http from 'node:http';
import { Redis } from 'ioredis';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWavHeader } from '@polyvox/speech/formats';
import { openDatabase, type Db } from '../../src/platform/db/database.js';
import { Client, signIn } from '../support/client.js';
import { createPgDatabase } from '../support/app.js';
import { givePlanIn } from '../support/economy.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { decodedSeconds } from '../support/audio.js';
import { eventually, longText, within } from '../support/leave.js';
import { openRealtime } from '../support/realtime.js';
import { kill, killAll, START_DEADLINE_MS, startServer, type ServerProcess } from '../support/processes.js';
import { CreditsService } from '../../src/credits/service.js';
import { loadCreditsConfig } from '../../src/credits/credits-config.js';

const serverRoot = path.resolve(import.meta.dirname, '../..');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const VOICE = 'voice_espeak.en-us';

/**
 * Scale-out: two API processes (ROLE=api) and two worker processes (ROLE=worker) on loopback, sharing one
 * PostgreSQL database, Redis (under a prefix of this run's own), an S3 bucket (a real S3 protocol server) for
 * every file, and a DATA_DIR only for the mail outbox. Every process is a real
 * `main.ts`; the ones a test kills are killed with SIGKILL. The tests that kill, drain or restart processes have a hang
 * guard of 5 minutes: on a loaded two-core machine a whole file made again by the other worker and a replacement's
 * warm-up can take minutes, and a test cut short there would leave the next ones without their two workers.
 */
describe('two API processes and two workers (postgres, Redis)', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let dataDir: string;
  let s3: TestS3;
  let db: Db;
  let api: ServerProcess[];
  let workers: ServerProcess[];
  let c: Client;
  let accountId: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createPgDatabase();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-scale-'));
    s3 = await startS3Server();
    // Holds live two seconds unless their work keeps them alive: a dead API process's hold goes quickly.
    const credits = JSON.parse(await fs.readFile(path.join(serverRoot, 'config/credits.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const creditsFile = path.join(dataDir, 'credits.json');
    await fs.writeFile(creditsFile, JSON.stringify({ ...credits, hold_ttl_seconds: 2 }));
    const run = Math.random().toString(36).slice(2, 10);
    const common = {
      DATA_DIR: dataDir,
      WEB_DIST: path.join(dataDir, 'none'),
      DATABASE_URL: database.url,
      REDIS_URL,
      S3_URL: s3.url,
      REDIS_PREFIX: `polyvox-test-${run}:`,
      QUEUE_PREFIX: `polyvox-test-${run}`,
      SECRET: `scale-out-test-secret-${run}`,
      CREDITS_CONFIG: creditsFile,
      QUEUE_STALLED_SECONDS: '1',
      HOLD_SWEEP_SECONDS: '1',
      JOB_STALE_SECONDS: '3',
    };
    env = common;
    const apiEnv = { ...common, ROLE: 'api' };
    // A short grace on SIGTERM, so a long job does not fit in it and is handed back.
    const workerEnv = { ...common, ROLE: 'worker', SPEECH_WORKERS: '1', QUEUE_CONCURRENCY: '2', SHUTDOWN_GRACE_SECONDS: '0.3' };
    // The first one migrates the database; the others start together.
    const first = await startServer(apiEnv);
    const rest = await Promise.all([startServer(apiEnv), startServer(workerEnv), startServer(workerEnv)]);
    api = [first, rest[0]];
    workers = [rest[1], rest[2]];
    db = openDatabase({ databaseUrl: database.url, dataDir });
    c = new Client(api[0]!.url);
    await c.anonymous();
    accountId = ((await signIn(c, path.join(dataDir, 'outbox'), 'scale-out@example.com')) as { id: string }).id;
    // Long texts are a subscriber's: the free plan's limit is below a job's.
    await givePlanIn(db.kysely, accountId);
    // Each worker takes work once its engines are warm (its /readyz says so): the tests time work, not warm-ups.
    for (const w of workers)
      expect(await within(async () => (await fetch(`${w.url}/readyz`)).status === 200, 900_000, 200)).toBe(true);
  }, 1_200_000);

  afterAll(async () => {
    killAll();
    await db?.close();
    await database?.drop();
    await s3?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const balance = async () =>
    Number(
      (await db.kysely.selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirstOrThrow()).credits,
    );
  const heldHolds = () =>
    db.kysely.selectFrom('credit_holds').select('id').where('account_id', '=', accountId).where('status', '=', 'held').execute();
  /** Whether a process logged a line under the request id that matches `what`. */
  const logged = (proc: ServerProcess, reqId: string, what: RegExp) =>
    proc
      .output()
      .split('\n')
      .some((line) => line.includes(reqId) && what.test(line));
  const on = (proc: ServerProcess) => {
    const other = new Client(proc.url);
    other.sid = c.sid;
    return other;
  };

  it('speaks over the realtime socket of an API process, its pieces made in the workers, streamed and aligned', async () => {
    for (const query of ['', '&sync_alignment=true']) {
      const before = await balance();
      const rt = await openRealtime(api[0]!.url, `/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_16000${query}`, {
        'x-sid': c.sid!,
      });
      rt.send({ text: ' ' });
      rt.send({ text: 'A worker made this. ', flush: true });
      rt.send({ text: 'And this too.' });
      rt.send({ text: '' });
      await rt.next((m) => m.isFinal === true);
      expect((await rt.closed).code).toBe(1000);
      const audio = rt.messages.filter((m) => typeof m.audio === 'string');
      expect(audio.length).toBeGreaterThan(0);
      if (query) expect(audio.map((m) => m.alignment.chars.join('')).join('')).toBe('A worker made this. And this too.');
      expect(await eventually(async () => (await heldHolds()).length === 0, 200, 25)).toBe(true);
      expect(await balance()).toBeLessThan(before);
    }
  });

  it('serves a streamed synthesis made in a worker process, charges it, and logs it in the worker under the request id', async () => {
    const before = await balance();
    const threads = api.map((p) => p.threads());
    const res = await fetch(`${api[1]!.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid! },
      body: JSON.stringify({
        text: 'Two processes made this. One of them spoke it.',
        voice_id: VOICE,
        format: 'mp3',
        stream: true,
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const audio = Buffer.from(await res.arrayBuffer());
    expect(await decodedSeconds(audio)).toBeGreaterThan(1.5);
    const charged = Number(res.headers.get('x-credits-charged'));
    expect(charged).toBeGreaterThan(0);
    expect(await eventually(async () => (await balance()) === before - charged, 200, 25)).toBe(true);
    expect(await heldHolds()).toEqual([]);
    const reqId = res.headers.get('x-request-id')!;
    expect(await eventually(() => workers.some((w) => w.output().includes(reqId)), 100, 20)).toBe(true);

    // A worker is ready (database, Redis, storage, its queues) and its metrics show the synthesis it ran.
    // (a worker whose engines are still starting is alive but not ready: it takes no work yet).
    let ready = await fetch(`${workers[0]!.url}/readyz`);
    for (const end = Date.now() + START_DEADLINE_MS; ready.status !== 200 && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await fetch(`${workers[0]!.url}/readyz`);
    }
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: Record<string, { ok: boolean }> }).checks.queue?.ok).toBe(true);
    const scraped = await Promise.all(workers.map(async (w) => (await fetch(`${w.url}/metrics`)).text()));
    expect(scraped.join('\n')).toMatch(/polyvox_synthesis_seconds_count\{[^}]*engine="espeak"[^}]*\} [1-9]/);
    expect(scraped[0]).toMatch(/polyvox_queue_depth\{queue="tts"\} \d+/);

    // A whole file through the other API process, and a refusal (an unknown voice) answered as embedded.
    const file = await on(api[0]!).post('/tts', { text: 'A whole file.', voice_id: VOICE, format: 'wav' });
    expect(file.status).toBe(200);
    const unknown = await on(api[0]!).post('/tts', { text: 'Nobody speaks.', voice_id: 'voice_nobody', format: 'mp3' });
    expect(unknown.status).toBe(404);

    // A library voice's preview, rendered by a worker on demand.
    const preview = await fetch(`${api[0]!.url}/voice/preview/voice_espeak.de.mp3`);
    expect(preview.status).toBe(200);
    expect(await decodedSeconds(Buffer.from(await preview.arrayBuffer()))).toBeGreaterThan(1);

    // A worker serves no public API: only its health, on its own port.
    expect(await (await fetch(`${workers[0]!.url}/healthz`)).json()).toMatchObject({
      status: 'ok',
      role: 'worker',
      taking_work: true,
    });
    for (const [method, url] of [
      ['GET', '/voices'],
      ['POST', '/tts'],
      ['POST', '/accounts/anonymous'],
      ['GET', '/openapi.json'],
    ] as const) {
      expect((await fetch(`${workers[0]!.url}${url}`, { method, headers: { 'x-sid': c.sid! } })).status).toBe(404);
    }

    // ROLE=api starts no engines: serving these added no thread (each engine is a worker thread).
    expect(api.map((p) => p.threads())).toEqual(threads);
  });

  it('times a whole file in a worker (a Flite voice, aligned there against eSpeak NG) and keeps a job’s subtitles in S3', async () => {
    const text = 'Hello there, my friend. How are you today?';
    const res = await on(api[1]!).post('/tts', {
      text,
      voice_id: 'voice_flite.slt',
      format: 'wav',
      timestamps: true,
      subtitles: 'srt',
    });
    expect(res.status).toBe(200);
    const body = res.body as { audio_base64: string; words: { word: string; start: number; end: number }[]; subtitles: string };
    expect(body.words.map((w) => w.word)).toEqual(['Hello', 'there', 'my', 'friend', 'How', 'are', 'you', 'today']);
    const seconds = await decodedSeconds(Buffer.from(body.audio_base64, 'base64'));
    expect(body.words.at(-1)!.end).toBeLessThanOrEqual(seconds + 1e-3);
    expect(body.words[4]!.start).toBeGreaterThan(body.words[3]!.end);
    expect(body.subtitles).toMatch(/^1\n00:00:0\d,\d{3} --> /);

    // A stream with timestamps: each sentence's characters come from the worker with its audio.
    const streamed = await fetch(`${api[0]!.url}/v1/text-to-speech/voice_flite.slt/stream/with-timestamps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid! },
      body: JSON.stringify({ text }),
    });
    expect(streamed.status).toBe(200);
    const lines = (await streamed.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { audio_base64: string; alignment: { characters: string[] } | null });
    expect(lines.map((l) => l.alignment?.characters.join('') ?? '').join('')).toBe(text);
    expect(await decodedSeconds(Buffer.concat(lines.map((l) => Buffer.from(l.audio_base64, 'base64'))))).toBeGreaterThan(1.5);

    const job = (await on(api[0]!).post('/tts/jobs', { text: longText(6, 'subtitles at scale'), voice_id: VOICE, format: 'mp3' }))
      .body as { id: string };
    expect(
      await within(async () => (await on(api[1]!).get(`/tts/jobs/${job.id}`)).body.status === 'succeeded', START_DEADLINE_MS),
    ).toBe(true);
    const vtt = await on(api[1]!).get<string>(`/tts/jobs/${job.id}/subtitles?format=vtt`);
    expect(vtt.status).toBe(200);
    expect(vtt.body.startsWith('WEBVTT')).toBe(true);
    expect(vtt.body.split(' --> ').length).toBeGreaterThan(3);
  });

  it('fails a key deleted through one API process at once through the other', async () => {
    const created = (await c.put('/api/authorization', { name: 'two processes' })).body as { id: string; key: string };
    const anon = new Client(api[1]!.url);
    const bearer = { authorization: `Bearer ${created.key}` };
    expect((await anon.post('/tts/estimate', { text: 'Hi.', voice_id: VOICE }, bearer)).status).toBe(200);
    expect((await c.delete(`/api/authorization?id=${created.id}`)).status).toBe(204);
    expect((await anon.post('/tts/estimate', { text: 'Hi.', voice_id: VOICE }, bearer)).status).toBe(401);
    expect((await anon.post('/tts', { text: 'Hi.', voice_id: VOICE }, bearer)).status).toBe(401);
  });

  it('cancels through one API process a job that runs in a worker: the hold is released and the worker stops', async () => {
    const before = await balance();
    const created = (
      await on(api[0]!).post('/tts/jobs', { text: longText(60, 'a job cancelled elsewhere'), voice_id: VOICE, format: 'mp3' })
    ).body as { id: string };
    expect(await eventually(() => workers.some((w) => w.output().includes(created.id)), 600, 20)).toBe(true);
    const cancelled = await on(api[1]!).delete(`/tts/jobs/${created.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: created.id, status: 'cancelled', audio_url: null });
    expect(await balance()).toBe(before);
    expect(await heldHolds()).toEqual([]);
    const runner = workers.find((w) => w.output().includes(created.id))!;
    const ended = () =>
      runner
        .output()
        .split('\n')
        .find((l) => l.includes(created.id) && l.includes('synthesis job ended'));
    expect(await eventually(() => ended() !== undefined, 600, 20)).toBe(true);
    expect(ended()).toContain('"status":"cancelled"');
    expect((await on(api[1]!).get(`/tts/jobs/${created.id}`)).body.status).toBe('cancelled');
    expect((await on(api[0]!).get(`/tts/jobs/${created.id}/audio`)).status).toBe(404);
    // Cancelling again, or someone else's job, changes nothing.
    expect((await on(api[0]!).delete(`/tts/jobs/${created.id}`)).body.status).toBe('cancelled');
    const stranger = new Client(api[1]!.url);
    await stranger.anonymous();
    expect((await stranger.delete(`/tts/jobs/${created.id}`)).status).toBe(404);
  });

  it('finishes a whole-file synthesis in the other worker when its worker is killed with SIGKILL mid-way, delivered and charged once', async () => {
    const before = await balance();
    const reqId = `file-kill-${Math.random().toString(36).slice(2, 10)}`;
    // GnuSpeech, about 800 characters: long enough to be killed in the middle of.
    const response = fetch(`${api[0]!.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid!, 'x-request-id': reqId },
      body: JSON.stringify({ text: longText(16, 'a file whose worker dies'), voice_id: 'voice_gnuspeech.male', format: 'wav' }),
    });
    expect(await eventually(() => workers.some((w) => w.output().includes(reqId)), 600, 10)).toBe(true);
    const victim = workers.find((w) => w.output().includes(reqId))!;
    const survivor = workers.find((w) => w !== victim)!;
    await kill(victim);
    const killedAt = Date.now();
    const res = await response;
    const answeredAt = Date.now();
    expect(res.status).toBe(200);
    const audio = Buffer.from(await res.arrayBuffer());
    // One whole WAV (its header's length is the file's), nothing of the dead worker's attempt in front of it.
    expect(audio.toString('ascii', 0, 4)).toBe('RIFF');
    const wav = parseWavHeader(audio)!;
    // One whole WAV: its RIFF size is the file's, its data chunk (after the fmt and the AIGC label's LIST chunk) ends
    // inside it, followed only by the C2PA manifest's chunk.
    expect(audio.readUInt32LE(4)).toBe(audio.length - 8);
    const end = wav.dataOffset + audio.readUInt32LE(wav.dataSizeOffset);
    expect(end).toBeLessThanOrEqual(audio.length);
    expect(audio.toString('ascii', end, end + 4)).toBe('C2PA');
    expect(await decodedSeconds(audio)).toBeGreaterThan(20);
    expect(logged(survivor, reqId, /synthesis taken/) && logged(survivor, reqId, /synthesis done/)).toBe(true);
    const charged = Number(res.headers.get('x-credits-charged'));
    expect(charged).toBeGreaterThan(0);
    expect(await eventually(async () => (await balance()) === before - charged, 200, 25)).toBe(true);
    expect(await heldHolds()).toEqual([]);
    // The other workers and tests go on with two workers.
    const replacement = await startServer({
      ...env,
      ROLE: 'worker',
      SPEECH_WORKERS: '1',
      QUEUE_CONCURRENCY: '2',
      SHUTDOWN_GRACE_SECONDS: '0.3',
    });
    workers = [survivor, replacement];
    expect(
      await eventually(
        async () =>
          ((await (await fetch(`${replacement.url}/healthz`)).json()) as { taking_work?: boolean }).taking_work === true,
        600,
        100,
      ),
    ).toBe(true);
    console.info(
      `[figures] worker killed mid-file: answered by the other worker ${answeredAt - killedAt} ms after the kill; ${charged} credits charged once`,
    );
    // A hang guard only (see the top): on a loaded two-core machine this can take minutes.
  }, 300_000);

  it('completes a long job in the other worker when its worker is killed with SIGKILL mid-way, charged once', async () => {
    const before = await balance();
    const created = (
      await on(api[0]!).post('/tts/jobs', { text: longText(60, 'a job whose worker dies'), voice_id: VOICE, format: 'mp3' })
    ).body as { id: string; credits: number };
    const row = () => db.kysely.selectFrom('synthesis_jobs').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(await eventually(async () => Number((await row()).progress_done) >= 2, 600, 20)).toBe(true);
    const victim = workers.find((w) => w.output().includes(created.id))!;
    expect(victim).toBeDefined();
    await kill(victim);
    const killedAt = Date.now();
    const survivor = workers.find((w) => w !== victim)!;
    workers = [survivor];
    expect((await row()).status).toBe('running');
    expect(await eventually(async () => Number((await row()).attempts) === 2, 600, 20)).toBe(true);
    const resumedAt = Date.now();
    expect(await eventually(async () => (await row()).status !== 'running', 1200, 50)).toBe(true);
    const doneAt = Date.now();
    const job = (await on(api[1]!).get(`/tts/jobs/${created.id}`)).body as { status: string; audio_url: string };
    expect(job.status).toBe('succeeded');
    const audio = await fetch(new URL(job.audio_url, api[1]!.url), { headers: { 'x-sid': c.sid! } });
    expect(await decodedSeconds(Buffer.from(await audio.arrayBuffer()))).toBeGreaterThan(60);
    expect(survivor.output()).toContain(created.id);
    // The audio went to the bucket every process shares, and nowhere on a process's own disk.
    expect(await s3.keys()).toContain((await row()).storage_key);
    expect(await fs.readdir(path.join(dataDir, 'files')).catch(() => [])).toEqual([]);
    // Charged once: the hold settled once (if the sweep released it while no worker kept it alive, it was
    // taken again first), the balance lower by exactly the price.
    const hold = (await row()).hold_id;
    const entries = await db.kysely.selectFrom('credit_ledger').select(['kind', 'amount']).where('hold_id', '=', hold).execute();
    expect(entries.filter((e) => e.kind === 'settle')).toHaveLength(1);
    expect(entries.filter((e) => e.kind === 'hold').length).toBe(entries.filter((e) => e.kind === 'release').length + 1);
    expect(entries.reduce((sum, e) => sum + Number(e.amount), 0)).toBe(-created.credits);
    expect(await balance()).toBe(before - created.credits);
    console.info(
      `[figures] worker killed mid-job: resumed in the other worker after ${resumedAt - killedAt} ms, ` +
        `finished ${doneAt - resumedAt} ms later; ${created.credits} credits charged once (balance ${before} → ${before - created.credits})`,
    );
    // A hang guard only (see the top): on a loaded two-core machine this can take minutes.
  }, 300_000);

  it('releases the hold at once and stops the worker when the client of a stream leaves', async () => {
    const before = await balance();
    const body = JSON.stringify({
      text: longText(60, 'a stream nobody waits for'),
      voice_id: VOICE,
      format: 'mp3',
      stream: true,
    });
    let request: http.ClientRequest | undefined;
    const reqId = await new Promise<string>((resolve, reject) => {
      request = http.request(
        new URL('/tts', api[0]!.url),
        { method: 'POST', headers: { 'content-type': 'application/json', 'x-sid': c.sid! } },
        (res) => res.once('data', () => resolve(String(res.headers['x-request-id']))),
      );
      request.once('error', reject);
      request.end(body);
    });
    request!.on('error', () => {});
    request!.destroy();
    // Released by the API process that held the connection, well before any deadline would pass.
    expect(await eventually(async () => (await heldHolds()).length === 0, 200, 25)).toBe(true);
    expect(await balance()).toBe(before);
    expect(await eventually(() => workers.some((w) => logged(w, reqId, /synthesis stopped/)), 200, 25)).toBe(true);
    // A hang guard only (see the top): on a loaded two-core machine this can take minutes.
  }, 300_000);

  it('leaves no hold open after the sweep when an API process is killed mid-stream, and the worker stops', async () => {
    const before = await balance();
    const victim = api[1]!;
    const url = new URL('/tts', victim.url);
    const body = JSON.stringify({
      text: longText(60, 'a stream whose server dies'),
      voice_id: VOICE,
      format: 'mp3',
      stream: true,
    });
    const firstBytes = new Promise<string>((resolve, reject) => {
      const req = http.request(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', 'x-sid': c.sid! } },
        (res) => {
          res.once('data', () => resolve(String(res.headers['x-request-id'])));
          res.on('error', () => {});
        },
      );
      req.on('error', () => {});
      req.once('error', reject);
      req.end(body);
    });
    const reqId = await firstBytes;
    expect((await heldHolds()).length).toBe(1);
    await kill(victim);
    const killedAt = Date.now();
    // The surviving API process's sweeper releases the hold once its deadline passes (no one extends it).
    expect(await eventually(async () => (await heldHolds()).length === 0, 400, 25)).toBe(true);
    const releasedAt = Date.now();
    expect(await balance()).toBe(before);
    // The worker noticed nobody listens any more and stopped.
    expect(await eventually(() => logged(workers[0]!, reqId, /synthesis stopped/), 200, 25)).toBe(true);
    console.info(`[figures] API killed mid-stream: hold released by the other API's sweep after ${releasedAt - killedAt} ms`);
    // A hang guard only (see the top): on a loaded two-core machine this can take minutes.
  }, 300_000);

  it('drains a worker on SIGTERM: a job longer than its grace is handed back and finished by the next worker, charged once', async () => {
    const before = await balance();
    const created = (
      await on(api[0]!).post('/tts/jobs', { text: longText(90, 'a job whose worker is stopped'), voice_id: VOICE, format: 'mp3' })
    ).body as { id: string; credits: number };
    const row = () => db.kysely.selectFrom('synthesis_jobs').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    const stopping = workers[0]!;
    expect(await eventually(() => stopping.output().includes(created.id), 600, 20)).toBe(true);
    stopping.child.kill('SIGTERM');
    // It exits by itself, cleanly, once its grace is over: the job did not fit in it and went back to the queue.
    const code = await stopping.exited;
    expect(code).toBe(0);
    // Handed back, not failed: queued again for the next worker.
    expect((await row()).status).toBe('queued');
    expect(stopping.output()).toContain('handing back running synthesis');
    const next = await startServer({ ...env, ROLE: 'worker', SPEECH_WORKERS: '1' });
    workers = [next];
    expect(await eventually(async () => (await row()).status === 'succeeded', 1200, 50)).toBe(true);
    const hold = (await row()).hold_id;
    expect(
      await eventually(
        async () =>
          (await db.kysely.selectFrom('credit_holds').select('status').where('id', '=', hold).executeTakeFirstOrThrow())
            .status === 'settled',
        100,
        20,
      ),
    ).toBe(true);
    expect(await balance()).toBe(before - created.credits);
    expect(next.output()).toContain(created.id);
    // A hang guard only (see the top): on a loaded two-core machine this can take minutes.
  }, 300_000);

  it('settles, without a restart, a job a dead worker recorded as succeeded but did not settle', async () => {
    const before = await balance();
    const credits = new CreditsService({ db: db.kysely, config: loadCreditsConfig(path.join(dataDir, 'credits.json')) });
    // What a worker killed between its two writes leaves: the row succeeded, the hold still open.
    const hold = await credits.hold(accountId, 100, 'tts', 3600);
    const now = new Date().toISOString();
    await db.kysely
      .insertInto('synthesis_jobs')
      .values({
        id: 'job_diedbeforesettle',
        account_id: accountId,
        status: 'succeeded',
        progress_done: 1,
        progress_total: 1,
        credits: 100,
        characters: 100,
        content_type: 'audio/mpeg',
        hold_id: hold.id,
        storage_key: null,
        error_code: null,
        error_params: null,
        created_at: now,
        finished_at: now,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
      })
      .execute();
    const status = async () =>
      (await db.kysely.selectFrom('credit_holds').select('status').where('id', '=', hold.id).executeTakeFirstOrThrow()).status;
    expect(await eventually(async () => (await status()) === 'settled', 600, 50)).toBe(true);
    expect(await balance()).toBe(before - 100);
  });

  it('refuses a request no worker takes in time with 429 and retry-after, taking it back from the queue and charging nothing', async () => {
    // An API process whose queues no worker serves (a prefix of its own), waiting one second for a worker.
    const lonely = await startServer({ ...env, ROLE: 'api', QUEUE_PREFIX: `${env.QUEUE_PREFIX}-empty`, QUEUE_WAIT_SECONDS: '1' });
    const before = await balance();
    for (const stream of [false, true]) {
      const started = Date.now();
      const res = await fetch(`${lonely.url}/tts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sid': c.sid!, 'accept-language': 'zh-CN' },
        body: JSON.stringify({ text: `Nobody is there to say this (${stream}).`, voice_id: VOICE, format: 'mp3', stream }),
      });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('1');
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('RATE_LIMITED');
      expect(body.error.message).not.toMatch(/[a-z]{6}/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    }
    // Nothing left waiting for a worker that would come later, nothing held, nothing charged.
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.llen(`${env.QUEUE_PREFIX}-empty:tts:wait`)).toBe(0);
    } finally {
      redis.disconnect();
    }
    expect(await heldHolds()).toEqual([]);
    expect(await balance()).toBe(before);
    // A hang guard only (see the top): on a loaded two-core machine this can take minutes.
  }, 300_000);
});
