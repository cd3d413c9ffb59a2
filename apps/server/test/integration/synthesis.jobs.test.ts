import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';
import { givePlan } from '../support/economy.js';
import { eventually, holdsOf, longText } from '../support/leave.js';

const serverRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** Jobs that outlive their hold's lifetime, a restart, or their caller's patience. */
describe.each(DIALECTS)('synthesis jobs and their holds (%s)', (dialect) => {
  let t: TestApp;
  let n = 0;

  beforeAll(async () => {
    // A one-second hold lifetime: every job here runs longer than its hold would live unattended.
    const config = JSON.parse(await fs.readFile(path.join(serverRoot, 'config/credits.json'), 'utf8')) as Record<string, unknown>;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-credits-'));
    const file = path.join(dir, 'credits.json');
    await fs.writeFile(file, JSON.stringify({ ...config, hold_ttl_seconds: 1 }));
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', HOLD_SWEEP_SECONDS: '86400', CREDITS_CONFIG: file } });
    await t.ctx.voices.load();
  });
  afterAll(async () => {
    await t.close();
  });

  async function payer() {
    const c = new Client(t.url);
    await c.anonymous();
    const account = await signIn(c, t.outbox, `jobs-${dialect}-${++n}@example.com`);
    await givePlan(t, account.id); // long texts are a subscriber's
    return { c, id: account.id as string, balance: async () => (await t.ctx.credits.balance(account.id)) as number };
  }
  const job = (c: Client, id: string) => c.get(`/tts/jobs/${id}`).then((r) => r.body);
  const until = async (c: Client, id: string, ok: (j: { status: string; progress: { done: number } }) => boolean) =>
    eventually(async () => ok(await job(c, id)), 1200, 50);
  const body = (what: string, sentences = 15) => ({
    text: longText(sentences, what),
    voice_id: 'voice_espeak.en-us',
    format: 'mp3',
  });

  it('keeps the hold of a running job alive past its lifetime, then charges it', async () => {
    const { c, id, balance } = await payer();
    const before = await balance();
    const created = (await c.post('/tts/jobs', body('a job slower than its hold', 30))).body;
    const deadline = async () =>
      (await t.ctx.db.kysely.selectFrom('credit_holds').select('deadline').where('account_id', '=', id).executeTakeFirstOrThrow())
        .deadline;
    const first = await deadline();
    // The hold moves its deadline while the job runs; a sweep past the first deadline leaves it alone.
    expect(await eventually(async () => (await deadline()) > first, 200, 25)).toBe(true);
    expect((await job(c, created.id)).status).toBe('running');
    await t.ctx.credits.sweepExpiredHolds(new Date(Date.parse(first) + 1));
    expect((await holdsOf(t, id)).map((h) => h.status)).toEqual(['held']);
    expect(await until(c, created.id, (j) => j.status !== 'running')).toBe(true);
    expect((await job(c, created.id)).status).toBe('succeeded');
    // The row says succeeded just before the hold is settled (jobs/database.ts): the settle follows at once.
    const settled = async () => (await holdsOf(t, id)).map((h) => h.status).join() === 'settled';
    expect(await eventually(settled, 200, 25)).toBe(true);
    expect(await balance()).toBe(before - created.credits);
  });

  it('charges a job whose hold was swept mid-work instead of giving the audio away', async () => {
    const { c, id, balance } = await payer();
    const before = await balance();
    const created = (await c.post('/tts/jobs', body('a job whose hold is swept', 30))).body;
    expect(await until(c, created.id, (j) => j.progress.done >= 1)).toBe(true);
    // A sweep far in the future frees the hold whatever its deadline.
    expect(await t.ctx.credits.sweepExpiredHolds(new Date(Date.now() + 3600_000))).toBe(1);
    expect(await until(c, created.id, (j) => j.status !== 'running')).toBe(true);
    expect((await job(c, created.id)).status).toBe('succeeded');
    // The row says succeeded just before the hold is settled (jobs/database.ts): the settle follows at once.
    const settled = async () => (await holdsOf(t, id)).map((h) => h.status).join() === 'settled';
    expect(await eventually(settled, 200, 25)).toBe(true);
    expect(await balance()).toBe(before - created.credits);
  });

  it('fails a job whose swept hold can no longer be paid, and keeps its audio back', async () => {
    const { c, id, balance } = await payer();
    const created = (await c.post('/tts/jobs', body('a job its caller cannot pay', 30))).body;
    expect(await until(c, created.id, (j) => j.progress.done >= 1)).toBe(true);
    expect(await t.ctx.credits.sweepExpiredHolds(new Date(Date.now() + 3600_000))).toBe(1);
    const spend = await t.ctx.credits.hold(id, await balance(), 'tts', 3600);
    expect(await until(c, created.id, (j) => j.status !== 'running')).toBe(true);
    const failed = await job(c, created.id);
    expect(failed).toMatchObject({ status: 'failed', audio_url: null, error: { code: 'INSUFFICIENT_BALANCE' } });
    expect((await c.get(`/tts/jobs/${created.id}/audio`)).status).toBe(404);
    await t.ctx.credits.release(spend.id);
  });

  it('cancels a running job: its hold is released and the work stops', async () => {
    const { c, id, balance } = await payer();
    const before = await balance();
    const created = (await c.post('/tts/jobs', body('a job cancelled midway', 30))).body;
    const other = new Client(t.url);
    await other.anonymous();
    expect((await other.delete(`/tts/jobs/${created.id}`)).status).toBe(404);
    expect(await until(c, created.id, (j) => j.progress.done >= 1)).toBe(true);
    const cancelled = await c.delete(`/tts/jobs/${created.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: created.id, status: 'cancelled', audio_url: null });
    expect((await holdsOf(t, id)).map((h) => h.status)).toEqual(['released']);
    expect(await balance()).toBe(before);
    const list = await c.get('/tts/jobs?page=1&page_size=5');
    expect(list.body.total).toBe(1);
    expect(list.body.items[0]).toMatchObject({ id: created.id, status: 'cancelled' });
  });

  it('keeps a paid job reachable after a restart, and lists jobs newest first', async () => {
    const { c } = await payer();
    const first = (await c.post('/tts/jobs', { ...body('a job kept across a restart'), text: 'A short job.' })).body;
    const created = (await c.post('/tts/jobs', body('a job kept across a restart'))).body;
    expect(await until(c, created.id, (j) => j.status === 'succeeded')).toBe(true);
    expect(await until(c, first.id, (j) => j.status === 'succeeded')).toBe(true);
    t = await t.restart();
    const again = new Client(t.url);
    again.sid = c.sid;
    const after = await job(again, created.id);
    expect(after).toMatchObject({ id: created.id, status: 'succeeded', credits: created.credits });
    const audio = await fetch(new URL(after.audio_url, t.url), { headers: { 'x-sid': again.sid! } });
    expect(audio.status).toBe(200);
    expect(await decodedSeconds(Buffer.from(await audio.arrayBuffer()))).toBeGreaterThan(20);
    const list = await again.get('/tts/jobs?page_size=1');
    expect(list.body).toMatchObject({ total: 2, items: [{ id: created.id }] });
    expect((await again.get('/tts/jobs?page=2&page_size=1')).body.items[0].id).toBe(first.id);
    expect((await again.get('/tts/jobs?page_size=101')).status).toBe(400);
  });

  it('after a crash, fails and releases unfinished jobs, settles finished ones, and removes stray files', async () => {
    const { c, id, balance } = await payer();
    const before = await balance();
    const db = t.ctx.db.kysely;
    const row = (jobId: string, holdId: string, status: string, key: string | null) => ({
      id: jobId,
      account_id: id,
      status,
      progress_done: 0,
      progress_total: 3,
      credits: 100,
      characters: 100,
      content_type: 'audio/mpeg',
      hold_id: holdId,
      storage_key: key,
      error_code: null,
      error_params: null,
      created_at: new Date().toISOString(),
      finished_at: status === 'succeeded' ? new Date().toISOString() : null,
      expires_at: status === 'succeeded' ? new Date(Date.now() + 3600_000).toISOString() : null,
    });
    // What a process killed mid-work leaves: one job running, one recorded as done but not yet settled.
    const running = await t.ctx.credits.hold(id, 100, 'tts', 3600);
    const done = await t.ctx.credits.hold(id, 100, 'tts', 3600);
    await t.ctx.storage.put('jobs/job_crashdone', Buffer.from('ID3 audio'));
    await t.ctx.storage.put('jobs/job_orphan', Buffer.from('nobody refers to me'));
    await fs.writeFile(path.join(t.dataDir, 'files/jobs/job_half.tmp-999'), 'half written');
    await db
      .insertInto('synthesis_jobs')
      .values(row('job_crashrun', running.id, 'running', null))
      .execute();
    await db
      .insertInto('synthesis_jobs')
      .values(row('job_crashdone', done.id, 'succeeded', 'jobs/job_crashdone'))
      .execute();

    t = await t.restart();
    const again = new Client(t.url);
    again.sid = c.sid;
    expect(await job(again, 'job_crashrun')).toMatchObject({ status: 'failed', error: { code: 'INTERNAL' } });
    expect(await job(again, 'job_crashdone')).toMatchObject({ status: 'succeeded' });
    expect((await again.get('/tts/jobs/job_crashdone/audio')).status).toBe(200);
    const holds = new Map((await holdsOf(t, id)).map((h) => [h.id, h.status]));
    expect(holds.get(running.id)).toBe('released');
    expect(holds.get(done.id)).toBe('settled');
    expect(await t.ctx.credits.balance(id)).toBe(before - 100);
    const left = await fs.readdir(path.join(t.dataDir, 'files/jobs'));
    expect(left).toContain('job_crashdone');
    expect(left).not.toContain('job_orphan');
    expect(left).not.toContain('job_half.tmp-999');
  });

  it('deletes expired jobs with their audio', async () => {
    const { c } = await payer();
    const created = (await c.post('/tts/jobs', { ...body('a job that expires'), text: 'Soon gone.' })).body;
    expect(await until(c, created.id, (j) => j.status === 'succeeded')).toBe(true);
    expect(await t.ctx.jobs.sweep(new Date(Date.now() + 2 * 3600_000))).toBeGreaterThanOrEqual(1);
    expect((await c.get(`/tts/jobs/${created.id}`)).status).toBe(404);
    expect(await fs.readdir(path.join(t.dataDir, 'files/jobs'))).not.toContain(created.id);
  });
});
