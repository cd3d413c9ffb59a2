import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type LogLine, type TestApp } from '../support/app.js';
import { newId } from '../../src/platform/ids.js';

/**
 * A job row whose stored payload is not what its kind expects (written by another release, or damaged): reading it
 * back fails that job alone (failed, its hold released, the reason in the ledger and the log), never the process.
 */
describe.each(DIALECTS)('a stored job payload that fails its schema (%s)', (dialect) => {
  let t: TestApp;
  let n = 0;
  const logs: LogLine[] = [];

  beforeAll(async () => {
    t = await startTestApp(dialect, { logs, env: { JOB_STALE_SECONDS: '1', HOLD_SWEEP_SECONDS: '86400' } });
  });
  afterAll(async () => {
    await t.close();
  });

  async function account() {
    const c = new Client(t.url);
    await c.anonymous();
    const { id } = (await signIn(c, t.outbox, `payload-${dialect}-${++n}@example.com`)) as { id: string };
    return { c, id };
  }

  /** A job row as a process that died mid-job left it (or as a queue's worker finds it), with `request` as its payload. */
  async function writeJob(accountId: string, request: string, status: 'running' | 'queued' = 'running') {
    const hold = await t.ctx.credits.hold(accountId, 25, 'tts');
    const id = newId('job');
    const long = new Date(Date.now() - 3_600_000).toISOString();
    await t.ctx.db.kysely
      .insertInto('synthesis_jobs')
      .values({
        id,
        account_id: accountId,
        status,
        progress_done: 0,
        progress_total: 0,
        credits: 25,
        characters: 100,
        content_type: 'audio/mpeg',
        hold_id: hold.id,
        storage_key: null,
        error_code: null,
        error_params: null,
        created_at: long,
        finished_at: null,
        expires_at: null,
        request,
        attempts: 1,
        owner: status === 'running' ? 'all_gone' : null,
        heartbeat_at: status === 'running' ? long : null,
        request_id: null,
      })
      .execute();
    return { id, holdId: hold.id };
  }

  const releaseNote = (holdId: string) =>
    t.ctx.db.kysely
      .selectFrom('credit_ledger')
      .select(['kind', 'note'])
      .where('hold_id', '=', holdId)
      .where('kind', '=', 'release')
      .executeTakeFirst();
  const holdStatus = (holdId: string) => t.ctx.credits.holdStatus(holdId);

  async function expectFailed(c: Client, id: string, holdId: string, problem: RegExp) {
    const job = (await c.get(`/tts/jobs/${id}`)).body as { status: string; error: { code: string } | null };
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('INTERNAL');
    expect(await holdStatus(holdId)).toBe('released');
    const note = await releaseNote(holdId);
    expect(note?.note).toMatch(/^job payload invalid: /);
    expect(note?.note).toMatch(problem);
  }

  it('fails the job and releases its hold when the heartbeat rounds take it over; the process answers on', async () => {
    const { c, id: accountId } = await account();
    const before = await t.ctx.credits.balance(accountId);
    const wrongShape = await writeJob(accountId, JSON.stringify({ request: { text: 42 }, voiceId: 'v', charge: {} }));
    const notJson = await writeJob(accountId, '{"request": {"text": "cut off');
    // What the rounds of a live process do every few seconds.
    expect(await t.ctx.jobs.runner.resumeStale()).toBe(0);
    await expectFailed(c, wrongShape.id, wrongShape.holdId, /request\.text: .*number/);
    await expectFailed(c, notJson.id, notJson.holdId, /not JSON/);
    // Both holds came back whole: nothing charged.
    expect(await t.ctx.credits.balance(accountId)).toBe(before);
    // The process is up and answers.
    expect((await c.get('/healthz')).status).toBe(200);
  });

  it('fails the job when the queue hands it to a worker, and logs why', async () => {
    const { c, id: accountId } = await account();
    const bad = await writeJob(accountId, JSON.stringify({ request: { text: 'Hi.' }, voiceId: 'v', charge: {} }), 'queued');
    const lines: LogLine[] = [];
    const log = {
      info: () => {},
      error: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 50, msg, ...obj }),
      warn: () => {},
      child: () => log,
    };
    await t.ctx.jobs.runner.runQueued(bad.id, new AbortController().signal, log as never);
    await expectFailed(c, bad.id, bad.holdId, /request\.voice: a job request carries its voice/);
    expect(lines).toEqual([expect.objectContaining({ job: bad.id, msg: 'synthesis job payload invalid; job failed' })]);
  });

  it('fails the job at the next start instead of stopping the start', async () => {
    const { id: accountId } = await account();
    const bad = await writeJob(accountId, JSON.stringify({ request: 'gone', voiceId: 1 }));
    t = await t.restart();
    const c = new Client(t.url);
    await c.anonymous();
    expect((await c.get('/healthz')).status).toBe(200);
    // Another account's job answers NOT_FOUND: read it through the database.
    const row = await t.ctx.db.kysely
      .selectFrom('synthesis_jobs')
      .select(['status', 'error_code'])
      .where('id', '=', bad.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'failed', error_code: 'INTERNAL' });
    expect(await holdStatus(bad.holdId)).toBe('released');
    expect((await releaseNote(bad.holdId))?.note).toMatch(/^job payload invalid: .*request/);
  });
});
