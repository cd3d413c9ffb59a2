import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/platform/db/database.js';
import { Client, signIn } from '../support/client.js';
import { givePlanIn } from '../support/economy.js';
import { createPgDatabase, DIALECTS } from '../support/app.js';
import { within } from '../support/leave.js';
import { kill, killAll, startServer } from '../support/processes.js';

const PARAGRAPHS = 40;

/** A server killed with SIGKILL in the middle of a Studio conversion: it resumes where it stopped, charging nothing twice. */
describe.each(DIALECTS)('Studio conversion across a SIGKILL (%s)', (dialect) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    killAll();
    for (const c of cleanups.splice(0)) await c();
  });

  it('resumes after the restart, speaks each paragraph once and charges it once', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-studio-durable-'));
    const database = dialect === 'postgres' ? await createPgDatabase() : null;
    const env = {
      DATA_DIR: dataDir,
      WEB_DIST: path.join(dataDir, 'none'),
      SPEECH_WORKERS: '1',
      JOB_STALE_SECONDS: '1',
      HOLD_SWEEP_SECONDS: '3600',
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    let db: Db | null = null;
    cleanups.push(async () => {
      await db?.close();
      await database?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    });
    const first = await startServer(env);
    db = openDatabase({ databaseUrl: database?.url, dataDir });
    const k = db.kysely;
    const c = new Client(first.url);
    await c.anonymous();
    const account = (await signIn(c, path.join(dataDir, 'outbox'), `studio-${dialect}@example.com`)) as { id: string };
    await givePlanIn(k, account.id);
    const balance = async () =>
      Number((await k.selectFrom('accounts').select('credits').where('id', '=', account.id).executeTakeFirstOrThrow()).credits);
    const text = Array.from({ length: PARAGRAPHS }, (_, i) => `Paragraph number ${i + 1} is short and plain.`).join('\n\n');
    const made = await c.post('/v1/studio/projects', { name: 'Crash', text, default_paragraph_voice_id: 'voice_espeak.en-us' });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.project.project_id as string;
    const estimate = (await c.get(`/v1/studio/projects/${id}/convert/estimate`)).body as { credits: number; paragraphs: number };
    expect(estimate.paragraphs).toBe(PARAGRAPHS);
    const before = await balance();
    const started = await c.post(`/v1/studio/projects/${id}/convert`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const jobId = started.body.job_id as string;
    const converted = async () =>
      (
        await k.selectFrom('studio_paragraphs').select(['converted_hash', 'content_hash']).where('project_id', '=', id).execute()
      ).filter((p) => p.converted_hash === p.content_hash).length;
    // Progress per chapter while it runs.
    expect(await within(async () => (await converted()) >= 3)).toBe(true);
    const during = (await c.get(`/v1/studio/projects/${id}`)).body;
    await kill(first);
    const done = await converted();
    expect(done).toBeLessThan(PARAGRAPHS);
    expect(during.state).toBe('converting');
    expect(during.chapters[0].state).toBe('converting');
    expect(during.chapters[0].conversion_progress).toBeGreaterThan(0);
    const keysBefore = await k
      .selectFrom('studio_paragraphs')
      .select(['id', 'audio_key'])
      .where('audio_key', 'is not', null)
      .execute();

    const second = await startServer(env);
    const again = new Client(second.url);
    again.sid = c.sid;
    const row = () => k.selectFrom('synthesis_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(await within(async () => (await row()).status === 'succeeded')).toBe(true);
    expect(Number((await row()).attempts)).toBe(2);
    expect(await converted()).toBe(PARAGRAPHS);
    // Paragraphs converted before the kill were not spoken again: their audio is the same file.
    const keysAfter = new Map(
      (await k.selectFrom('studio_paragraphs').select(['id', 'audio_key']).where('project_id', '=', id).execute()).map((p) => [
        p.id,
        p.audio_key,
      ]),
    );
    for (const p of keysBefore) if (keysAfter.get(p.id) === p.audio_key) continue;
    expect(keysBefore.filter((p) => keysAfter.get(p.id) !== p.audio_key)).toEqual([]);
    // A hold per paragraph settled, once; a hold cut off mid-synthesis released; nothing left open.
    const holds = await k.selectFrom('credit_holds').select(['id', 'status']).where('account_id', '=', account.id).execute();
    expect(holds.filter((h) => h.status === 'settled')).toHaveLength(PARAGRAPHS);
    expect(holds.filter((h) => h.status === 'held')).toEqual([]);
    expect(await k.selectFrom('studio_paragraphs').select('id').where('pending_charge', 'is not', null).execute()).toEqual([]);
    expect(await balance()).toBe(before - estimate.credits);
    const ledger = await k.selectFrom('credit_ledger').select('amount').where('account_id', '=', account.id).execute();
    expect(ledger.reduce((s, e) => s + Number(e.amount), 0)).toBe(await balance());
    // Every entry a record the user sees: their sum is the balance.
    let recorded = 0;
    for (let page = 1; ; page++) {
      const { body } = await again.get(`/api/credits/records?page=${page}&page_size=100`);
      for (const r of body.items as { amount: number }[]) recorded += r.amount;
      if (body.items.length < 100) break;
    }
    expect(recorded).toBe(await balance());
    const project = (await again.get(`/v1/studio/projects/${id}`)).body;
    expect(project).toMatchObject({ state: 'default', can_be_downloaded: true });
    expect((await again.get(`/v1/studio/projects/${id}/snapshots`)).body.snapshots).toHaveLength(1);
  }, 600_000);
});
