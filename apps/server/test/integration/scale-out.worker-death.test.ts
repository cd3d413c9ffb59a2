import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWavHeader } from '@polyvox/speech/formats';
import { openDatabase, type Db } from '../../src/platform/db/database.js';
import { Client, signIn } from '../support/client.js';
import { createPgDatabase } from '../support/app.js';
import { givePlanIn } from '../support/economy.js';
import { decodedSeconds } from '../support/audio.js';
import { eventually, longText, within } from '../support/leave.js';
import { kill, killAll, startServer, type ServerProcess } from '../support/processes.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A worker process that dies under an interactive request, with every queue timing setting at its default (what
 * users get: QUEUE_STALLED_SECONDS, QUEUE_HEARTBEAT_SECONDS, hold lifetime and sweeps unset). One API process and
 * three workers on PostgreSQL and Redis; the victims are killed with SIGKILL. The API process watches the heartbeat
 * of the worker running each request: a stream that lost its worker ends with an error within a few seconds and
 * charges nothing; a whole file is queued again and answered by another worker, charged once.
 */
describe('a worker killed under an interactive request (default timings)', () => {
  let database: Awaited<ReturnType<typeof createPgDatabase>>;
  let dataDir: string;
  let db: Db;
  let api: ServerProcess;
  let workers: ServerProcess[];
  let c: Client;
  let accountId: string;

  beforeAll(async () => {
    database = await createPgDatabase();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-death-'));
    const run = Math.random().toString(36).slice(2, 10);
    const common = {
      DATA_DIR: dataDir,
      WEB_DIST: path.join(dataDir, 'none'),
      DATABASE_URL: database.url,
      REDIS_URL,
      REDIS_PREFIX: `polyvox-test-${run}:`,
      QUEUE_PREFIX: `polyvox-test-${run}`,
      SECRET: `worker-death-test-secret-${run}`,
    };
    api = await startServer({ ...common, ROLE: 'api' });
    // Three workers (drained: 3 → 2; killed mid-file: 2 → 1, which needs the survivor; killed mid-stream: 1 → 0), with a
    // short grace on SIGTERM, so the drained worker's request does not fit in it.
    workers = await Promise.all(
      [0, 1, 2].map(() =>
        startServer({ ...common, ROLE: 'worker', SPEECH_WORKERS: '1', QUEUE_CONCURRENCY: '2', SHUTDOWN_GRACE_SECONDS: '0.3' }),
      ),
    );
    // Each worker is ready, and takes work, once its engines are warm; until then its /readyz names them.
    for (const w of workers) {
      const readyz = async () => {
        const res = await fetch(`${w.url}/readyz`);
        const body = (await res.json()) as { taking_work: boolean; failed?: string[]; checks: Record<string, { ok: boolean }> };
        // One answer agrees with itself: ready means taking work; not taking work names speech among the failed parts.
        // (Another part may time out on a loaded machine, so a 503 may come while the engines already take work.)
        expect(body.checks.speech?.ok).toBe(body.taking_work);
        if (res.status === 200) expect(body.taking_work).toBe(true);
        if (!body.taking_work) expect(body.failed).toContain('speech');
        return res.status === 200;
      };
      // Three workers warm their engines at once: on a loaded machine that takes minutes; the bound is only a hang guard.
      expect(await within(readyz, 900_000, 200)).toBe(true);
    }
    db = openDatabase({ databaseUrl: database.url, dataDir });
    c = new Client(api.url);
    await c.anonymous();
    accountId = ((await signIn(c, path.join(dataDir, 'outbox'), 'worker-death@example.com')) as { id: string }).id;
    await givePlanIn(db.kysely, accountId);
  }, 1_200_000);

  afterAll(async () => {
    killAll();
    await db?.close();
    await database?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const balance = async () =>
    Number(
      (await db.kysely.selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirstOrThrow()).credits,
    );
  const heldHolds = () =>
    db.kysely.selectFrom('credit_holds').select('id').where('account_id', '=', accountId).where('status', '=', 'held').execute();
  const logged = (proc: ServerProcess, reqId: string, what: RegExp) =>
    proc
      .output()
      .split('\n')
      .some((line) => line.includes(reqId) && what.test(line));
  /** The fields of the process's log line for this request that says `what`. */
  const line = (proc: ServerProcess, reqId: string, what: string) =>
    JSON.parse(
      proc
        .output()
        .split('\n')
        .find((l) => l.includes(reqId) && l.includes(`"${what}"`))!,
    ) as { time: number; job: string; attempt?: number; ms?: number };
  /**
   * The takeover was the API process's, as soon as the dead worker's heartbeat was gone: the other worker ran a new job
   * (a first attempt under a new id) that the API process queued again, not the dead one's job that the queue's stalled
   * check (30 to 60 s at the defaults) would have started over.
   */
  const takenOverByTheApi = (dead: ServerProcess, taker: ServerProcess, reqId: string) => {
    const first = line(dead, reqId, 'synthesis taken');
    const again = line(taker, reqId, 'synthesis taken');
    expect(again.job).not.toBe(first.job);
    expect(again.attempt).toBe(1);
    expect(logged(api, reqId, /synthesis worker lost; queued again/)).toBe(true);
    return again;
  };
  const post = (reqId: string, body: unknown) =>
    fetch(`${api.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid!, 'x-request-id': reqId },
      body: JSON.stringify(body),
    });

  it('answers a whole file whose worker is drained (SIGTERM) past its grace from another worker, charged once', async () => {
    const before = await balance();
    const reqId = `file-drain-${Math.random().toString(36).slice(2, 10)}`;
    const response = post(reqId, {
      text: longText(6, 'a file whose worker stops'),
      voice_id: 'voice_gnuspeech.male',
      format: 'wav',
    });
    expect(await eventually(() => workers.some((w) => logged(w, reqId, /synthesis taken/)), 600, 10)).toBe(true);
    const stopping = workers.find((w) => logged(w, reqId, /synthesis taken/))!;
    workers = workers.filter((w) => w !== stopping);
    const stoppedAt = Date.now();
    stopping.child.kill('SIGTERM');
    // It stops the request it could not finish in its grace and exits cleanly; the API process, which waited for that
    // request's end for ever before, queues it again as soon as the worker's heartbeat is gone.
    // (Its exit code is not asserted: a worker drained with an interactive request in flight was seen exiting 1, an
    // open defect reported apart; its output is printed then.)
    const code = await stopping.exited;
    if (code !== 0) console.info(`[drained worker exited ${code}]\n${stopping.output().split('\n').slice(-15).join('\n')}`);
    expect(logged(stopping, reqId, /synthesis stopped/)).toBe(true);
    const res = await response;
    expect(res.status).toBe(200);
    const audio = Buffer.from(await res.arrayBuffer());
    expect(audio.toString('ascii', 0, 4)).toBe('RIFF');
    const wav = parseWavHeader(audio)!;
    // One whole WAV: its RIFF size is the file's, its data chunk (after the fmt and the AIGC label's LIST chunk) ends
    // inside it, followed only by the C2PA manifest's chunk.
    expect(audio.readUInt32LE(4)).toBe(audio.length - 8);
    const end = wav.dataOffset + audio.readUInt32LE(wav.dataSizeOffset);
    expect(end).toBeLessThanOrEqual(audio.length);
    expect(audio.toString('ascii', end, end + 4)).toBe('C2PA');
    const taker = workers.find((w) => logged(w, reqId, /synthesis done/));
    expect(taker).toBeDefined();
    const taken = takenOverByTheApi(stopping, taker!, reqId);
    const charged = Number(res.headers.get('x-credits-charged'));
    expect(await eventually(async () => (await balance()) === before - charged, 200, 25)).toBe(true);
    // The drained run's hold is released by the API as the stopped attempt reports back, which may come after the answer.
    expect(await eventually(async () => (await heldHolds()).length === 0, 400, 50)).toBe(true);
    console.info(`[figures] worker drained mid-file: taken by another worker ${taken.time - stoppedAt} ms after SIGTERM`);
  }, 180_000);

  it('answers a whole file whose worker is killed mid-way from another worker, charged once', async () => {
    const before = await balance();
    const reqId = `file-kill-${Math.random().toString(36).slice(2, 10)}`;
    // GnuSpeech, 6 sentences: killed as its synthesis begins; what is bounded is the takeover, not the synthesis.
    const response = post(reqId, {
      text: longText(6, 'a file whose worker dies'),
      voice_id: 'voice_gnuspeech.male',
      format: 'wav',
    });
    expect(await eventually(() => workers.some((w) => logged(w, reqId, /synthesis taken/)), 600, 10)).toBe(true);
    const victim = workers.find((w) => logged(w, reqId, /synthesis taken/))!;
    const survivor = workers.find((w) => w !== victim)!;
    const killedAt = Date.now();
    await kill(victim);
    workers = [survivor];
    const res = await response;
    const answeredAt = Date.now();
    expect(res.status).toBe(200);
    const audio = Buffer.from(await res.arrayBuffer());
    // One whole WAV, nothing of the dead worker's run in front of it.
    expect(audio.toString('ascii', 0, 4)).toBe('RIFF');
    const wav = parseWavHeader(audio)!;
    // One whole WAV: its RIFF size is the file's, its data chunk (after the fmt and the AIGC label's LIST chunk) ends
    // inside it, followed only by the C2PA manifest's chunk.
    expect(audio.readUInt32LE(4)).toBe(audio.length - 8);
    const end = wav.dataOffset + audio.readUInt32LE(wav.dataSizeOffset);
    expect(end).toBeLessThanOrEqual(audio.length);
    expect(audio.toString('ascii', end, end + 4)).toBe('C2PA');
    expect(await decodedSeconds(audio)).toBeGreaterThan(8);
    expect(logged(survivor, reqId, /synthesis done/)).toBe(true);
    // The other worker took it as the API process saw the death, not after the queue's stalled check; what the death
    // cost is the answer's time less that synthesis (a figure, printed below).
    const takenAfter = takenOverByTheApi(victim, survivor, reqId).time - killedAt;
    const synthesisMs = line(survivor, reqId, 'synthesis done').ms!;
    const charged = Number(res.headers.get('x-credits-charged'));
    expect(charged).toBeGreaterThan(0);
    expect(await eventually(async () => (await balance()) === before - charged, 200, 25)).toBe(true);
    expect(await heldHolds()).toEqual([]);
    console.info(
      `[figures] worker killed mid-file (default settings): taken by another worker ${takenAfter} ms after the kill, ` +
        `answered ${answeredAt - killedAt} ms after it (of which ${synthesisMs} ms its synthesis there); ${charged} credits charged once`,
    );
  }, 180_000);

  it('ends a stream whose worker is killed mid-stream with an error within seconds, charging nothing', async () => {
    const before = await balance();
    const reqId = `stream-kill-${Math.random().toString(36).slice(2, 10)}`;
    // GnuSpeech, 40 sentences: several seconds of synthesis, so the worker dies in the middle of it.
    const res = await post(reqId, {
      text: longText(40, 'a stream whose worker dies'),
      voice_id: 'voice_gnuspeech.male',
      format: 'mp3',
      stream: true,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    const victim = workers.find((w) => logged(w, reqId, /synthesis taken/))!;
    expect(victim).toBeDefined();
    // Timed from the signal: the process's pipes may close later (helper processes it started hold them).
    const killedAt = Date.now();
    await kill(victim);
    workers = workers.filter((w) => w !== victim);
    // The rest of the stream ends broken, never as a complete file.
    let ended: 'error' | 'complete';
    try {
      for (;;) if ((await reader.read()).done) break;
      ended = 'complete';
    } catch {
      ended = 'error';
    }
    const endedAt = Date.now();
    expect(ended).toBe('error');
    // The API process logs the cause as it cuts the response; its line reaches this test's pipe a moment later. It was
    // cut as the worker's heartbeat was gone (the cause names the worker), not when the queue's stalled check (30 to
    // 60 s at the defaults) started the job over on another worker ("worker lost mid-stream", naming none).
    expect(await eventually(() => logged(api, reqId, /worker .* lost mid-stream/), 200, 25)).toBe(true);
    expect(logged(api, reqId, /worker [0-9a-f]{8}-[0-9a-f-]{27} lost mid-stream/)).toBe(true);
    // Nothing charged: the hold released by the API process as the stream failed, not by a later sweep.
    expect(await eventually(async () => (await heldHolds()).length === 0, 100, 50)).toBe(true);
    expect(await balance()).toBe(before);
    // No other worker ran it again: its bytes could not have been sent.
    expect(workers.some((w) => logged(w, reqId, /synthesis taken/))).toBe(false);
    console.info(
      `[figures] worker killed mid-stream (default settings): stream ended with an error ${endedAt - killedAt} ms after the kill`,
    );
  }, 180_000);
});
