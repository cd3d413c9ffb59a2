import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { keyedApp } from '../support/sdk.js';
import { within } from '../support/leave.js';
import { loadSnapshot } from '../../src/studio/snapshot.js';
import { closePending } from '../../src/studio/paragraph-audio.js';

const NARRATOR = 'voice_espeak.en-us';
const ANNA = 'voice_espeak.de';
const TEXT = '# One\n\nIt was late.\n\nAnna: Come in.\n\n# Two\n\nThe door closed.';

describe.each(DIALECTS)('Studio conversion (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let accountId: string;
  beforeAll(async () => {
    const app = await keyedApp(dialect, 2000, 'convert');
    t = app.t;
    c = app.c;
    accountId = (
      await t.ctx.db.kysely.selectFrom('api_keys').select('account_id').where('id', '=', app.key.id).executeTakeFirstOrThrow()
    ).account_id;
  });
  afterAll(async () => {
    await t.close();
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
  /** The sum of the records the user sees (`/api/credits/records`, every page). */
  const recordsSum = async () => {
    let sum = 0;
    for (let page = 1; ; page++) {
      const { body } = await c.get(`/api/credits/records?page=${page}&page_size=100`);
      for (const r of body.items as { amount: number }[]) sum += r.amount;
      if (body.items.length < 100) return sum;
    }
  };
  const paragraphs = (projectId: string) =>
    t.ctx.db.kysely
      .selectFrom('studio_paragraphs')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('chapter_id')
      .orderBy('position')
      .execute();
  const create = async () => {
    const made = await c.post('/v1/studio/projects', {
      name: 'Play',
      text: TEXT,
      text_format: 'markdown',
      default_paragraph_voice_id: NARRATOR,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.project.project_id as string;
    expect((await c.put(`/v1/studio/projects/${id}/speakers`, { speaker: 'Anna', voice_id: ANNA })).status).toBe(200);
    return id;
  };
  const convert = async (id: string, chapterId?: string) => {
    const res = await c.post(`/v1/studio/projects/${id}${chapterId ? `/chapters/${chapterId}` : ''}/convert`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(await within(async () => (await c.get(`/v1/studio/projects/${id}`)).body.state === 'default', 120_000)).toBe(true);
    const job = await t.ctx.db.kysely
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('id', '=', res.body.job_id)
      .executeTakeFirstOrThrow();
    expect(job.status, job.error_code ?? '').toBe('succeeded');
    return job;
  };

  it('prices, converts only what changed, keeps snapshots and their audio, and charges each paragraph once', async () => {
    const id = await create();
    const before = await balance();
    const estimate = (await c.get(`/v1/studio/projects/${id}/convert/estimate`)).body;
    expect(estimate).toMatchObject({ paragraphs: 3 });
    expect(estimate.credits).toBeGreaterThan(0);

    const job = await convert(id);
    expect(Number(job.progress_done)).toBe(3);
    expect(Number(job.progress_total)).toBe(3);
    const project = (await c.get(`/v1/studio/projects/${id}`)).body;
    expect(project.can_be_downloaded).toBe(true);
    expect(project.chapters.map((ch: { can_be_downloaded: boolean; state: string }) => [ch.can_be_downloaded, ch.state])).toEqual(
      [
        [true, 'default'],
        [true, 'default'],
      ],
    );
    const first = await paragraphs(id);
    expect(first.every((p) => p.audio_key && p.converted_hash === p.content_hash && Number(p.sample_rate) > 0)).toBe(true);
    expect(JSON.parse(first[0]!.words!).length).toBeGreaterThan(0);
    // Charged exactly the estimate, each paragraph on its own hold, settled.
    expect(await balance()).toBe(before - estimate.credits);
    const holds = await t.ctx.db.kysely.selectFrom('credit_holds').select('status').where('account_id', '=', accountId).execute();
    expect(holds.filter((h) => h.status === 'settled')).toHaveLength(3);
    expect(await ledgerSum()).toBe(await balance());
    expect(await recordsSum()).toBe(await balance());

    // Nothing changed: nothing to price, and a conversion speaks nothing.
    expect((await c.get(`/v1/studio/projects/${id}/convert/estimate`)).body).toEqual({
      credits: 0,
      characters: 0,
      paragraphs: 0,
    });
    const idle = await convert(id);
    expect(Number(idle.progress_total)).toBe(0);
    expect((await paragraphs(id)).map((p) => p.audio_key)).toEqual(first.map((p) => p.audio_key));

    // One paragraph edited: only it is spoken again (a new audio key); the old audio stays for the first snapshot.
    const chapterOne = project.chapters[0].chapter_id as string;
    const edited = first.find((p) => p.text === 'It was late.')!;
    expect(
      (await c.request('PATCH', `/v1/studio/projects/${id}/paragraphs/${edited.id}`, { text: 'It was very late.' })).status,
    ).toBe(200);
    expect((await c.get(`/v1/studio/projects/${id}/convert/estimate?chapter_id=${chapterOne}`)).body.paragraphs).toBe(1);
    await convert(id, chapterOne);
    const second = await paragraphs(id);
    const changed = second.filter((p, i) => p.audio_key !== first[i]!.audio_key);
    expect(changed.map((p) => p.id)).toEqual([edited.id]);
    expect(await t.ctx.storage.exists(edited.audio_key!)).toBe(true);

    // Snapshots: two project snapshots (one per conversion that made something), chapter one's twice, chapter two's once.
    const snaps = (await c.get(`/v1/studio/projects/${id}/snapshots`)).body.snapshots;
    expect(snaps).toHaveLength(2);
    expect(snaps[0]).toMatchObject({ project_id: id });
    const oldest = await loadSnapshot(t.ctx.db.kysely, accountId, id, snaps[1].project_snapshot_id);
    expect(oldest.chapters.flatMap((ch) => ch.paragraphs.map((p) => p.text))).toEqual([
      'It was late.',
      'Come in.',
      'The door closed.',
    ]);
    expect(oldest.chapters[0]!.paragraphs[0]!.audio_key).toBe(edited.audio_key);
    expect(oldest.chapters[0]!.paragraphs[1]!.voice_id).toBe(ANNA);
    const one = (await c.get(`/v1/studio/projects/${id}/chapters/${chapterOne}/snapshots`)).body.snapshots;
    expect(one).toHaveLength(2);
    const chapterTwo = project.chapters[1].chapter_id as string;
    expect((await c.get(`/v1/studio/projects/${id}/chapters/${chapterTwo}/snapshots`)).body.snapshots).toHaveLength(1);
    const got = await c.get(`/v1/studio/projects/${id}/chapters/${chapterOne}/snapshots/${one[0].chapter_snapshot_id}`);
    expect(got.body).toMatchObject({ chapter_id: chapterOne, project_id: id, character_alignments: [] });
    expect(
      (await c.get(`/v1/studio/projects/${id}/snapshots/${snaps[0].project_snapshot_id}`)).body.audio_duration_secs,
    ).toBeGreaterThan(0);

    // Regenerate one paragraph now: its audio answered and stored (a new key), charged once; played again for free.
    const spent = await balance();
    const regen = await fetch(`${t.url}/v1/studio/projects/${id}/paragraphs/${edited.id}/convert`, {
      method: 'POST',
      headers: { 'x-sid': c.sid! },
    });
    expect(regen.status).toBe(200);
    const audio = Buffer.from(await regen.arrayBuffer());
    expect(audio.subarray(0, 4).toString()).toBe('RIFF');
    expect(await balance()).toBeLessThan(spent);
    const afterRegen = await balance();
    const played = await fetch(`${t.url}/v1/studio/projects/${id}/paragraphs/${edited.id}/audio`, {
      headers: { 'x-sid': c.sid! },
    });
    expect(Buffer.from(await played.arrayBuffer()).equals(audio)).toBe(true);
    expect(await balance()).toBe(afterRegen);
    expect(await ledgerSum()).toBe(await balance());

    // Audio stored but its hold not settled (a process died between the two): settled once, never again; a charge
    // whose audio was never stored is released.
    const deps = {
      db: t.ctx.db.kysely,
      synthesis: t.ctx.synthesis,
      credits: t.ctx.credits,
      provenance: t.ctx.provenance,
      storage: t.ctx.storage,
    };
    const [done, undone] = await paragraphs(id);
    const open = async (p: typeof done, hash: string | null) => {
      const hold = await t.ctx.credits.hold(accountId, 7, 'studio');
      const pending = {
        hold_id: hold.id,
        credits: 7,
        characters: 3,
        voice_id: NARRATOR,
        api_key_id: null,
        record_type: 'studio',
        hash,
      };
      await t.ctx.db.kysely
        .updateTable('studio_paragraphs')
        .set({ pending_charge: JSON.stringify(pending) })
        .where('id', '=', p!.id)
        .execute();
      return hold.id;
    };
    const paid = await open(done, done!.converted_hash);
    const unpaid = await open(undone, 'another hash');
    const held = await balance();
    expect(await closePending(deps, id, true)).toBe(2);
    expect(await closePending(deps, id, true)).toBe(0);
    expect(await t.ctx.credits.holdStatus(paid)).toBe('settled');
    expect(await t.ctx.credits.holdStatus(unpaid)).toBe('released');
    expect(await balance()).toBe(held + 7);
    expect(await ledgerSum()).toBe(await balance());
    expect(await recordsSum()).toBe(await balance());

    // Another account: 404 everywhere.
    const stranger = new Client(t.url, 'zh-CN');
    await stranger.anonymous();
    for (const res of [
      await stranger.post(`/v1/studio/projects/${id}/convert`),
      await stranger.get(`/v1/studio/projects/${id}/convert/estimate`),
      await stranger.get(`/v1/studio/projects/${id}/snapshots`),
      await stranger.get(`/v1/studio/projects/${id}/snapshots/${snaps[0].project_snapshot_id}`),
      await stranger.get(`/v1/studio/projects/${id}/paragraphs/${edited.id}/audio`),
      await stranger.post(`/v1/studio/projects/${id}/paragraphs/${edited.id}/convert`),
      await stranger.post(`/v1/studio/projects/${id}/chapters`, { name: 'X' }),
      await stranger.delete(`/v1/studio/projects/${id}/paragraphs/${edited.id}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      expect(res.body.error.message).toMatch(/[\u4e00-\u9fff]/);
    }
    await expect(loadSnapshot(t.ctx.db.kysely, 'acc_nobody', id, snaps[0].project_snapshot_id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  }, 300_000);

  it('adds, moves and removes chapters and paragraphs, keeping hashes right', async () => {
    const id = await create();
    const added = await c.post(`/v1/studio/projects/${id}/chapters`, { name: 'Three' });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const three = added.body.chapter.chapter_id as string;
    expect(added.body.chapter).toMatchObject({ name: 'Three', position: 2, can_be_downloaded: false });
    const p1 = await c.post(`/v1/studio/projects/${id}/chapters/${three}/paragraphs`, { text: 'Last words.' });
    expect(p1.status, JSON.stringify(p1.body)).toBe(200);
    const p0 = await c.post(`/v1/studio/projects/${id}/chapters/${three}/paragraphs`, {
      text: 'First words.',
      speaker: 'Anna',
      position: 0,
    });
    expect(p0.body).toMatchObject({ speaker: 'Anna', converted: false });
    expect(p0.body.nodes[0].voice_id).toBe(ANNA);
    const texts = async (chapterId: string) =>
      (await c.get(`/v1/studio/projects/${id}/chapters/${chapterId}`)).body.content.blocks.map(
        (b: { nodes: { text: string }[] }) => b.nodes[0]!.text,
      );
    expect(await texts(three)).toEqual(['First words.', 'Last words.']);
    // Same text and voice as an edit would give: the hash is the one an edit computes.
    const again = await c.request('PATCH', `/v1/studio/projects/${id}/paragraphs/${p0.body.block_id}`, { text: 'First words.' });
    expect(again.body.content_hash).toBe(p0.body.content_hash);
    // Moved: its hash stays.
    const moved = await c.post(`/v1/studio/projects/${id}/paragraphs/${p0.body.block_id}/move`, { position: 5 });
    expect(moved.body.content_hash).toBe(p0.body.content_hash);
    expect(await texts(three)).toEqual(['Last words.', 'First words.']);
    expect((await c.post(`/v1/studio/projects/${id}/chapters/${three}/move`, { position: 0 })).status).toBe(200);
    const order = (await c.get(`/v1/studio/projects/${id}`)).body.chapters.map((ch: { name: string; position: number }) => [
      ch.name,
      ch.position,
    ]);
    expect(order).toEqual([
      ['Three', 0],
      ['One', 1],
      ['Two', 2],
    ]);
    expect((await c.delete(`/v1/studio/projects/${id}/paragraphs/${p1.body.block_id}`)).status).toBe(200);
    expect(await texts(three)).toEqual(['First words.']);
    expect((await c.delete(`/v1/studio/projects/${id}/chapters/${three}`)).status).toBe(200);
    expect((await c.get(`/v1/studio/projects/${id}/chapters/${three}`)).status).toBe(404);
    expect((await c.get(`/v1/studio/projects/${id}`)).body.chapters.map((ch: { position: number }) => ch.position)).toEqual([
      0, 1,
    ]);
    const bad = await c.post(`/v1/studio/projects/${id}/chapters/${three}/paragraphs`, { text: '' });
    expect(bad.status).toBe(400);
  }, 120_000);

  it('refuses a conversion the balance does not cover with 402, holding nothing', async () => {
    const poor = new Client(t.url);
    const owner = (await poor.anonymous()).account.id as string;
    const made = await poor.post('/v1/studio/projects', {
      name: 'Long',
      text: 'Words and words. '.repeat(250),
      default_paragraph_voice_id: NARRATOR,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.project.project_id as string;
    const estimate = (await poor.get(`/v1/studio/projects/${id}/convert/estimate`)).body;
    await t.ctx.db.kysely
      .updateTable('accounts')
      .set({ credits: estimate.credits - 1 })
      .where('id', '=', owner)
      .execute();
    const res = await poor.post(`/v1/studio/projects/${id}/convert`);
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(await t.ctx.db.kysely.selectFrom('credit_holds').select('id').where('account_id', '=', owner).execute()).toEqual([]);
  }, 60_000);
});
