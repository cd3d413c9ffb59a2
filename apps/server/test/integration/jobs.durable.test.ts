import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/platform/db/database.js';
import { Client, signIn } from '../support/client.js';
import { givePlanIn } from '../support/economy.js';
import { createPgDatabase, DIALECTS } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';
import { longText, within } from '../support/leave.js';
import { kill, killAll, startServer } from '../support/processes.js';

/** A server killed with SIGKILL in the middle of a job (embedded, ROLE=all): nothing is lost, nothing charged twice. */
describe.each(DIALECTS)('durable jobs across a SIGKILL (%s)', (dialect) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    killAll();
    for (const c of cleanups.splice(0)) await c();
  });

  async function setup(extra: Record<string, string> = {}) {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-durable-'));
    const database = dialect === 'postgres' ? await createPgDatabase() : null;
    const env = {
      DATA_DIR: dataDir,
      WEB_DIST: path.join(dataDir, 'none'),
      SPEECH_WORKERS: '1',
      JOB_STALE_SECONDS: '1',
      HOLD_SWEEP_SECONDS: '3600',
      ...(database ? { DATABASE_URL: database.url } : {}),
      ...extra,
    };
    let db: Db | null = null;
    cleanups.push(async () => {
      await db?.close();
      await database?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    });
    const first = await startServer(env);
    db = openDatabase({ databaseUrl: database?.url, dataDir });
    const c = new Client(first.url);
    await c.anonymous();
    const account = (await signIn(c, path.join(dataDir, 'outbox'), `durable-${dialect}@example.com`)) as { id: string };
    // Long texts are a subscriber's: the free plan's limit is below a job's.
    await givePlanIn(db.kysely, account.id);
    const balance = async () =>
      Number(
        (await db!.kysely.selectFrom('accounts').select('credits').where('id', '=', account.id).executeTakeFirstOrThrow())
          .credits,
      );
    const row = (id: string) =>
      db!.kysely.selectFrom('synthesis_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const holds = () =>
      db!.kysely.selectFrom('credit_holds').select(['id', 'status']).where('account_id', '=', account.id).execute();
    const ledger = async () =>
      (
        await db!.kysely
          .selectFrom('credit_ledger')
          .select(['kind', 'amount', 'hold_id'])
          .where('account_id', '=', account.id)
          .execute()
      ).map((e) => ({ ...e, amount: Number(e.amount) }));
    /** Starts a long job and kills the server once a few of its sentences are done. */
    const killMidJob = async () => {
      const before = await balance();
      const created = (
        await c.post('/tts/jobs', {
          text: longText(60, 'a job whose server dies'),
          voice_id: 'voice_espeak.en-us',
          format: 'mp3',
        })
      ).body as { id: string; credits: number };
      expect(
        await within(
          async () => ((await c.get(`/tts/jobs/${created.id}`)).body as { progress: { done: number } }).progress.done >= 2,
        ),
      ).toBe(true);
      await kill(first);
      const killedAt = Date.now();
      // Mid-way: the row says running, its hold is held, nothing is charged yet.
      expect(await row(created.id)).toMatchObject({ status: 'running' });
      expect((await holds()).map((h) => h.status)).toEqual(['held']);
      return { before, created, killedAt };
    };
    return { env, c, db: () => db!, balance, row, holds, ledger, killMidJob };
  }

  it('runs the job again after the restart and charges it exactly once', async () => {
    const s = await setup();
    const { before, created, killedAt } = await s.killMidJob();
    const second = await startServer(s.env);
    const upAt = Date.now();
    const again = new Client(second.url);
    again.sid = s.c.sid;
    expect(await within(async () => Number((await s.row(created.id)).attempts) === 2)).toBe(true);
    const resumedAt = Date.now();
    expect(await within(async () => (await s.row(created.id)).status !== 'running')).toBe(true);
    const doneAt = Date.now();
    const job = (await again.get(`/tts/jobs/${created.id}`)).body as {
      status: string;
      audio_url: string;
      progress: { done: number; total: number };
    };
    expect(job).toMatchObject({ status: 'succeeded', progress: { done: 60, total: 60 } });
    const audio = await fetch(new URL(job.audio_url, second.url), { headers: { 'x-sid': again.sid! } });
    expect(audio.status).toBe(200);
    expect(await decodedSeconds(Buffer.from(await audio.arrayBuffer()))).toBeGreaterThan(60);
    // One hold, settled once; the balance is the ledger's sum, less exactly the job's price.
    const holds = await s.holds();
    expect(holds.map((h) => h.status)).toEqual(['settled']);
    const entries = (await s.ledger()).filter((e) => e.hold_id === holds[0]!.id);
    expect(entries.map((e) => e.kind).sort()).toEqual(['hold', 'settle']);
    expect(await s.balance()).toBe(before - created.credits);
    expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(-created.credits);
    console.info(
      `[figures] durable job (${dialect}): killed → restarted ${upAt - killedAt} ms, restarted → resumed ${resumedAt - upAt} ms, ` +
        `resumed → succeeded ${doneAt - resumedAt} ms; ${created.credits} credits charged once`,
    );
  }, 600_000);

  it('fails a job interrupted more often than JOB_MAX_ATTEMPTS allows and gives its hold back', async () => {
    const s = await setup({ JOB_MAX_ATTEMPTS: '1' });
    const { before, created } = await s.killMidJob();
    const second = await startServer(s.env);
    const again = new Client(second.url);
    again.sid = s.c.sid;
    expect(await within(async () => (await s.row(created.id)).status === 'failed')).toBe(true);
    expect((await again.get(`/tts/jobs/${created.id}`)).body).toMatchObject({ status: 'failed', error: { code: 'INTERNAL' } });
    expect((await again.get(`/tts/jobs/${created.id}/audio`)).status).toBe(404);
    expect((await s.holds()).map((h) => h.status)).toEqual(['released']);
    expect(await s.balance()).toBe(before);
  }, 600_000);
});
