import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '../../src/platform/ids.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { keyedApp } from '../support/sdk.js';
import { within } from '../support/leave.js';

const NARRATOR = 'voice_espeak.en-us';
const ANNA = 'voice_espeak.de';
/**
 * Anna's line passes as written (a conversion reviews its paragraphs before it starts) but is refused by moderation as
 * it is spoken: the project's pronunciation dictionary turns "Blimey" into a word the built-in list refuses.
 */
const TEXT = '# One\n\nIt was late.\n\nAnna: Oh Blimey, come in.\n\n# Two\n\nThe door closed.';

/**
 * An OpenAI-compatible speech endpoint on its wire protocol (`POST /v1/audio/speech`, raw 24 kHz PCM): while `failing`,
 * it answers 500 with OpenAI's error body, after the server has taken the paragraph's hold.
 */
async function remoteSpeech(): Promise<{ url: string; failing: boolean; calls: number; close(): Promise<void> }> {
  const state = { failing: true, calls: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      state.calls += 1;
      if (state.failing) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error', code: null } }));
        return;
      }
      const input = String((JSON.parse(body) as { input?: string }).input ?? '');
      // A 180 Hz tone, 60 ms a character, as signed 16-bit samples.
      const samples = Math.round(24_000 * 0.06 * Math.max(8, input.length));
      const pcm = Buffer.alloc(samples * 2);
      for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 180 * i) / 24_000)), i * 2);
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      res.end(pcm);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

interface Chapter {
  chapter_id: string;
  name: string;
  state: string;
  can_be_downloaded: boolean;
  conversion_progress?: number;
  failed_paragraphs?: { block_id: string; code: string; message: string }[];
}

describe.each(DIALECTS)('Studio conversion failures and state (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let zh: Client;
  let accountId: string;
  let locator: string;
  let upstream: Awaited<ReturnType<typeof remoteSpeech>>;
  beforeAll(async () => {
    upstream = await remoteSpeech();
    const app = await keyedApp(dialect, 2000, 'failures', { OPENAI_TTS_URL: upstream.url, OPENAI_TTS_KEY: 'sk-test' });
    t = app.t;
    c = app.c;
    zh = new Client(t.url, 'zh-CN');
    zh.sid = c.sid;
    accountId = (
      await t.ctx.db.kysely.selectFrom('api_keys').select('account_id').where('id', '=', app.key.id).executeTakeFirstOrThrow()
    ).account_id;
    const dict = await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'failures',
      rules: [{ type: 'alias', string_to_replace: 'Blimey', alias: 'shit' }],
    });
    expect(dict.status, JSON.stringify(dict.body)).toBe(200);
    locator = JSON.stringify({ pronunciation_dictionary_id: dict.body.id, version_id: dict.body.version_id });
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  const balance = async () =>
    Number(
      (await t.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirstOrThrow())
        .credits,
    );
  const ledgerSum = async () =>
    (await t.ctx.db.kysely.selectFrom('credit_ledger').select(['amount']).where('account_id', '=', accountId).execute()).reduce(
      (s, e) => s + Number(e.amount),
      0,
    );
  const recordsSum = async () => {
    let sum = 0;
    for (let page = 1; ; page++) {
      const { body } = await c.get(`/api/credits/records?page=${page}&page_size=100`);
      for (const r of body.items as { amount: number }[]) sum += r.amount;
      if (body.items.length < 100) return sum;
    }
  };
  const holds = () =>
    t.ctx.db.kysely.selectFrom('credit_holds').select(['id', 'status', 'amount']).where('account_id', '=', accountId).execute();
  const create = async (text = TEXT) => {
    const made = await c.post('/v1/studio/projects', {
      name: 'Play',
      text,
      text_format: 'markdown',
      default_paragraph_voice_id: NARRATOR,
      pronunciation_dictionary_locators: [locator],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.project.state).toBe('default');
    const id = made.body.project.project_id as string;
    expect((await c.put(`/v1/studio/projects/${id}/speakers`, { speaker: 'Anna', voice_id: ANNA })).status).toBe(200);
    return id;
  };
  /** Starts a conversion and waits until the project says none is under way; answers the job's row. */
  const convert = async (id: string, chapterId?: string) => {
    const res = await c.post(`/v1/studio/projects/${id}${chapterId ? `/chapters/${chapterId}` : ''}/convert`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await within(async () => (await c.get(`/v1/studio/projects/${id}`)).body.state === 'default', 120_000)).toBe(true);
    return t.ctx.db.kysely.selectFrom('synthesis_jobs').selectAll().where('id', '=', res.body.job_id).executeTakeFirstOrThrow();
  };

  it('shows which paragraphs failed, in the request language, charges nothing for them, and clears once retried', async () => {
    const id = await create();
    const estimate = (await c.get(`/v1/studio/projects/${id}/convert/estimate`)).body;
    expect(estimate.paragraphs).toBe(3);
    const before = await balance();
    const heldBefore = (await holds()).length;

    const job = await convert(id);
    // Partly failed: the others were spoken; the job fails with the failed paragraph's error.
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('CONTENT_REFUSED');
    // Its progress: the paragraphs it had to speak, and those that have their audio now.
    expect(Number(job.progress_total)).toBe(3);
    expect(Number(job.progress_done)).toBe(2);

    const project = (await zh.get(`/v1/studio/projects/${id}`)).body;
    expect(project.state).toBe('default');
    expect(project.can_be_downloaded).toBe(false);
    expect(project.conversion_error).toMatchObject({ job_id: job.id, code: 'CONTENT_REFUSED', paragraphs_failed: 1 });
    expect(project.conversion_error.message).toMatch(/[\u4e00-\u9fff]/);
    const [one, two] = project.chapters as Chapter[];
    expect(two!.can_be_downloaded).toBe(true);
    expect(two!.failed_paragraphs).toBeUndefined();
    expect(one!.can_be_downloaded).toBe(false);
    expect(one!.failed_paragraphs).toHaveLength(1);
    const failedId = one!.failed_paragraphs![0]!.block_id;
    expect(one!.failed_paragraphs![0]!.code).toBe('CONTENT_REFUSED');
    expect(one!.failed_paragraphs![0]!.message).toBe(project.conversion_error.message);

    // The chapter's blocks: the failed one says why (English here), the others do not.
    const chapter = (await c.get(`/v1/studio/projects/${id}/chapters/${one!.chapter_id}`)).body;
    const blocks = chapter.content.blocks as {
      block_id: string;
      converted: boolean;
      conversion_error?: { code: string; message: string };
    }[];
    expect(blocks.map((b) => [b.converted, b.conversion_error?.code ?? null])).toEqual([
      [true, null],
      [false, 'CONTENT_REFUSED'],
    ]);
    expect(blocks[1]!.block_id).toBe(failedId);
    expect(blocks[1]!.conversion_error!.message).toMatch(/nothing was charged/);
    expect(chapter.failed_paragraphs).toHaveLength(1);

    // Charged for the two spoken paragraphs only: two holds settled, none for the refused one, none left open.
    const taken = (await holds()).slice(heldBefore);
    expect(taken.map((h) => h.status).sort()).toEqual(['settled', 'settled']);
    const charged = taken.reduce((s, h) => s + Number(h.amount), 0);
    expect(charged).toBeLessThan(estimate.credits);
    expect(await balance()).toBe(before - charged);
    expect(await ledgerSum()).toBe(await balance());
    expect(await recordsSum()).toBe(await balance());

    // Retrying the paragraph as it is fails again, says so, and charges nothing.
    const retry = await zh.post(`/v1/studio/projects/${id}/paragraphs/${failedId}/convert`);
    expect(retry.status).toBe(422);
    expect(retry.body.error.code).toBe('CONTENT_REFUSED');
    expect(await balance()).toBe(before - charged);
    expect((await c.get(`/v1/studio/projects/${id}`)).body.conversion_error.paragraphs_failed).toBe(1);

    // Edited: the failure no longer stands (it was about other content). Retried (the chapter): converted, no error.
    const edit = await c.request('PATCH', `/v1/studio/projects/${id}/paragraphs/${failedId}`, { text: 'Oh, come in.' });
    expect(edit.status).toBe(200);
    expect(edit.body.conversion_error).toBeUndefined();
    const again = await convert(id, one!.chapter_id);
    expect(again.status, again.error_code ?? '').toBe('succeeded');
    const fixed = (await c.get(`/v1/studio/projects/${id}`)).body;
    expect(fixed.can_be_downloaded).toBe(true);
    expect(fixed.conversion_error).toBeUndefined();
    expect((fixed.chapters as Chapter[]).every((ch) => ch.failed_paragraphs === undefined)).toBe(true);
    const row = await t.ctx.db.kysely
      .selectFrom('studio_paragraphs')
      .select('conversion_error')
      .where('id', '=', failedId)
      .executeTakeFirstOrThrow();
    expect(row.conversion_error).toBeNull();
    expect(await ledgerSum()).toBe(await balance());
    expect(await recordsSum()).toBe(await balance());
  }, 300_000);

  it('releases the hold of a paragraph its engine fails after it was taken, and charges it once when retried', async () => {
    // Bob speaks through the remote provider, which fails: his paragraph's hold is taken, then released.
    const id = await create('# One\n\nIt was late.\n\nBob: Come in, it is cold.\n\n# Two\n\nThe door closed.');
    expect((await c.put(`/v1/studio/projects/${id}/speakers`, { speaker: 'Bob', voice_id: 'voice_openai.alloy' })).status).toBe(
      200,
    );
    upstream.failing = true;
    const callsBefore = upstream.calls;
    const before = await balance();
    const heldBefore = new Set((await holds()).map((h) => h.id));
    const since = async (known: Set<string>) => (await holds()).filter((h) => !known.has(h.id));

    const job = await convert(id);
    expect(job.status).toBe('failed');
    expect(upstream.calls).toBeGreaterThan(callsBefore);
    const project = (await zh.get(`/v1/studio/projects/${id}`)).body;
    expect(project.conversion_error).toMatchObject({ job_id: job.id, paragraphs_failed: 1 });
    expect(project.conversion_error.message).toMatch(/[\u4e00-\u9fff]/);
    // The provider's own words stay on the server.
    expect(JSON.stringify(project)).not.toContain('upstream overloaded');
    const [one, two] = project.chapters as Chapter[];
    expect(two!.can_be_downloaded).toBe(true);
    expect(one!.can_be_downloaded).toBe(false);
    expect(one!.failed_paragraphs).toHaveLength(1);
    const failedId = one!.failed_paragraphs![0]!.block_id;
    expect(one!.failed_paragraphs![0]!.code).toBe(project.conversion_error.code);

    // Three holds taken, one a paragraph: the failed one released, the two spoken settled; the balance moved by those two.
    const taken = await since(heldBefore);
    expect(taken.map((h) => h.status).sort()).toEqual(['released', 'settled', 'settled']);
    const charged = taken.filter((h) => h.status === 'settled').reduce((s, h) => s + Number(h.amount), 0);
    expect(await balance()).toBe(before - charged);
    expect(await ledgerSum()).toBe(await balance());
    expect(await recordsSum()).toBe(await balance());

    // The provider is back: the paragraph alone is spoken again, charged once, and the book can be downloaded.
    upstream.failing = false;
    const retry = await c.post(`/v1/studio/projects/${id}/paragraphs/${failedId}/convert`);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const retried = await since(new Set([...heldBefore, ...taken.map((h) => h.id)]));
    expect(retried.map((h) => h.status)).toEqual(['settled']);
    expect(await balance()).toBe(before - charged - Number(retried[0]!.amount));
    const fixed = (await c.get(`/v1/studio/projects/${id}`)).body;
    expect(fixed.can_be_downloaded).toBe(true);
    expect(fixed.conversion_error).toBeUndefined();
    expect(await ledgerSum()).toBe(await balance());
    expect(await recordsSum()).toBe(await balance());
  }, 300_000);

  it('says in the list and the project when a conversion is queued or running, with its progress', async () => {
    const id = await create('# One\n\nFirst.\n\nSecond.\n\n# Two\n\nThird.');
    const chapters = (await c.get(`/v1/studio/projects/${id}`)).body.chapters as Chapter[];
    const listed = async () =>
      (
        (await c.get('/v1/studio/projects')).body.projects as {
          project_id: string;
          state: string;
          conversion_progress?: number;
        }[]
      ).find((p) => p.project_id === id)!;
    expect(await listed()).toMatchObject({ state: 'default' });
    expect((await listed()).conversion_progress).toBeUndefined();

    // A conversion of chapter one as a queue leaves it for a worker (its heartbeat keeps this process from taking it).
    const now = new Date().toISOString();
    const row = {
      id: newId('job'),
      kind: 'studio_convert',
      account_id: accountId,
      status: 'queued',
      progress_done: 0,
      progress_total: 0,
      credits: 1,
      characters: 1,
      content_type: 'audio/wav',
      hold_id: '',
      storage_key: null,
      error_code: null,
      error_params: null,
      created_at: now,
      finished_at: null,
      expires_at: null,
      request: JSON.stringify({ projectId: id, chapterId: chapters[0]!.chapter_id, apiKeyId: null, recordType: 'tts' }),
      attempts: 0,
      owner: null,
      heartbeat_at: '2999-01-01T00:00:00.000Z',
      request_id: null,
    };
    await t.ctx.db.kysely.insertInto('synthesis_jobs').values(row).execute();
    try {
      expect(await listed()).toMatchObject({ state: 'in_queue', conversion_progress: 0 });
      const queued = (await c.get(`/v1/studio/projects/${id}`)).body;
      expect(queued.state).toBe('in_queue');
      expect((queued.chapters as Chapter[]).map((ch) => ch.state)).toEqual(['default', 'default']);

      // A worker runs it: converting, a quarter done; chapter one (the one converting) says so, chapter two does not.
      await t.ctx.db.kysely
        .updateTable('synthesis_jobs')
        .set({ status: 'running', owner: 'worker-elsewhere', progress_done: 1, progress_total: 4 })
        .where('id', '=', row.id)
        .execute();
      expect(await listed()).toMatchObject({ state: 'converting', conversion_progress: 0.25 });
      const running = (await c.get(`/v1/studio/projects/${id}`)).body;
      expect(running).toMatchObject({ state: 'converting', conversion_progress: 0.25 });
      const [one, two] = running.chapters as Chapter[];
      expect(one).toMatchObject({ state: 'converting', conversion_progress: 0 });
      expect(two!.state).toBe('default');
      expect(two!.conversion_progress).toBeUndefined();
      expect((await c.get(`/v1/studio/projects/${id}/chapters/${one!.chapter_id}`)).body.state).toBe('converting');
    } finally {
      await t.ctx.db.kysely.deleteFrom('synthesis_jobs').where('id', '=', row.id).execute();
    }
    expect(await listed()).toMatchObject({ state: 'default' });
  }, 120_000);
});
