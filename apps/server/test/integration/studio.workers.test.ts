import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/platform/db/database.js';
import { Client, signIn } from '../support/client.js';
import { givePlanIn } from '../support/economy.js';
import { createPgDatabase, DIALECTS } from '../support/app.js';
import { within } from '../support/leave.js';
import { killAll, startServer, type ServerProcess } from '../support/processes.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CHAPTERS = 6;
const PER_CHAPTER = 3;

/**
 * A whole project's conversion through the queue (ROLE=api and two ROLE=worker processes on PostgreSQL and Redis, as
 * the scale-out tests run them): one conversion, its chapters spoken by both workers, each paragraph once and charged
 * once, and one snapshot of the whole. Which process ran what is read from what the rows recorded (each part's owner).
 */
describe.skipIf(!DIALECTS.includes('postgres'))('Studio conversion shared by two workers (postgres, Redis)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    killAll();
    for (const c of cleanups.splice(0)) await c();
  });

  it('runs the chapters of one conversion in both workers', async () => {
    const database = await createPgDatabase();
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-studio-workers-'));
    let db: Db | null = null;
    cleanups.push(async () => {
      await db?.close();
      await database.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    });
    const run = Math.random().toString(36).slice(2, 10);
    const common = {
      DATA_DIR: dataDir,
      WEB_DIST: path.join(dataDir, 'none'),
      DATABASE_URL: database.url,
      REDIS_URL,
      REDIS_PREFIX: `polyvox-test-${run}:`,
      QUEUE_PREFIX: `polyvox-test-${run}`,
      SECRET: `studio-workers-test-secret-${run}`,
      HOLD_SWEEP_SECONDS: '3600',
    };
    const workerEnv = { ...common, ROLE: 'worker', SPEECH_WORKERS: '1', QUEUE_CONCURRENCY: '2' };
    // The first one migrates the database; the workers start after it.
    const api = await startServer({ ...common, ROLE: 'api' });
    const workers: ServerProcess[] = await Promise.all([startServer(workerEnv), startServer(workerEnv)]);
    // Each worker takes work once its engines are warm (its /readyz says so).
    for (const w of workers)
      expect(await within(async () => (await fetch(`${w.url}/readyz`)).status === 200, 900_000, 200)).toBe(true);
    db = openDatabase({ databaseUrl: database.url, dataDir });
    const k = db.kysely;
    const c = new Client(api.url);
    await c.anonymous();
    const account = (await signIn(c, path.join(dataDir, 'outbox'), 'studio-workers@example.com')) as { id: string };
    await givePlanIn(k, account.id);
    const balance = async () =>
      Number((await k.selectFrom('accounts').select('credits').where('id', '=', account.id).executeTakeFirstOrThrow()).credits);

    const text = Array.from(
      { length: CHAPTERS },
      (_, i) =>
        `# Chapter ${i + 1}\n\n` +
        Array.from({ length: PER_CHAPTER }, (_, j) => `Chapter ${i + 1}, paragraph ${j + 1}, is short and plain.`).join('\n\n'),
    ).join('\n\n');
    const made = await c.post('/v1/studio/projects', {
      name: 'Shared',
      text,
      text_format: 'markdown',
      default_paragraph_voice_id: 'voice_espeak.en-us',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.project.project_id as string;
    const estimate = (await c.get(`/v1/studio/projects/${id}/convert/estimate`)).body as { credits: number; paragraphs: number };
    expect(estimate.paragraphs).toBe(CHAPTERS * PER_CHAPTER);
    const before = await balance();

    const started = await c.post(`/v1/studio/projects/${id}/convert`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const jobId = started.body.job_id as string;
    const row = () => k.selectFrom('synthesis_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(await within(async () => !['queued', 'running'].includes((await row()).status), 600_000, 100)).toBe(true);
    expect((await row()).status).toBe('succeeded');

    // One part per chapter, each run by the process its row names; both workers ran some.
    const parts = await k
      .selectFrom('synthesis_jobs')
      .select(['id', 'status', 'owner', 'request'])
      .where('request', 'like', `%"parentId":"${jobId}"%`)
      .execute();
    expect(parts).toHaveLength(CHAPTERS);
    expect(parts.map((p) => p.status)).toEqual(Array(CHAPTERS).fill('succeeded'));
    const owners = new Set(parts.map((p) => p.owner));
    expect(owners.size).toBe(2);
    for (const owner of owners) expect(owner).toMatch(/^worker_/);
    expect(owners.has((await row()).owner)).toBe(true);

    // Every paragraph spoken once, charged once; the ledger the records the user sees.
    const paragraphs = await k
      .selectFrom('studio_paragraphs')
      .select(['converted_hash', 'content_hash', 'pending_charge'])
      .where('project_id', '=', id)
      .execute();
    expect(paragraphs.filter((p) => p.converted_hash === p.content_hash)).toHaveLength(CHAPTERS * PER_CHAPTER);
    expect(paragraphs.filter((p) => p.pending_charge !== null)).toEqual([]);
    const holds = await k.selectFrom('credit_holds').select(['status']).where('account_id', '=', account.id).execute();
    expect(holds.filter((h) => h.status === 'settled')).toHaveLength(CHAPTERS * PER_CHAPTER);
    expect(holds.filter((h) => h.status === 'held')).toEqual([]);
    expect(await balance()).toBe(before - estimate.credits);
    let recorded = 0;
    for (let page = 1; ; page++) {
      const { body } = await c.get(`/api/credits/records?page=${page}&page_size=100`);
      for (const r of body.items as { amount: number }[]) recorded += r.amount;
      if (body.items.length < 100) break;
    }
    expect(recorded).toBe(await balance());

    const project = (await c.get(`/v1/studio/projects/${id}`)).body;
    expect(project).toMatchObject({ state: 'default', can_be_downloaded: true });
    expect(project.chapters).toHaveLength(CHAPTERS);
    expect((await c.get(`/v1/studio/projects/${id}/snapshots`)).body.snapshots).toHaveLength(1);
  }, 1_200_000);
});
