/**
 * Pruning the preview versions past the newest 50: only once a new version is stored and delivered
 * (a failed or abandoned preview prunes nothing and charges nothing), never a version that
 * activated a voice, and never one an activation holds at that moment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@polyvox/contracts';
import { newId } from '../../src/platform/ids.js';
import { Client, signIn } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { eventually, heldHolds, rawPost } from '../support/leave.js';

const PROMPT = { type: 'prompt', model: 'espeak-ng', language: 'en', preview_text: 'A short preview.', prompt: 'a calm voice' };

describe.each(DIALECTS)('pruning preview versions (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let accountId: string;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    c = new Client(t.url);
    await c.anonymous();
    accountId = (await signIn(c, t.outbox, `pruner-${dialect}@example.com`)).id;
    // Activations past the first own voice are a subscriber's.
    await givePlan(t, accountId, 'annual');
    // One real version, then 49 copies of it (rows and audio files): versions 1 to 50.
    const first = await c.post('/voice/previews', PROMPT);
    expect(first.status).toBe(201);
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    const row = await t.ctx.db.kysely
      .selectFrom('voice_previews')
      .selectAll()
      .where('id', '=', first.body.id)
      .executeTakeFirstOrThrow();
    const audio = (await t.ctx.storage.get(row.storage_key))!;
    for (let version = Number(row.version) + 1; version <= LIMITS.previewVersions; version++) await copyOf(row, version, audio);
    await t.ctx.db.kysely
      .updateTable('account_counters')
      .set({ value: LIMITS.previewVersions })
      .where('account_id', '=', accountId)
      .where('name', '=', 'preview')
      .execute();
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  type Row = Awaited<ReturnType<typeof versions>>[number];
  async function copyOf(row: Row, version: number, audio: Buffer): Promise<string> {
    const id = newId('preview');
    const key = `voice-previews/${id}.mp3`;
    await t.ctx.storage.put(key, audio);
    await t.ctx.db.kysely
      .insertInto('voice_previews')
      .values({ ...row, id, version, storage_key: key, voice_id: null })
      .execute();
    return id;
  }
  const versions = () =>
    t.ctx.db.kysely.selectFrom('voice_previews').selectAll().where('account_id', '=', accountId).orderBy('version').execute();
  const numbers = async () => (await versions()).map((r) => Number(r.version));
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const balance = () => t.ctx.credits.balance(accountId);
  const settled = () => eventually(async () => (await heldHolds(t, accountId)).length === 0);
  const filesPresent = async () => {
    const files = new Set(await t.ctx.storage.list('voice-previews'));
    return (await versions()).every((r) => files.has(r.storage_key));
  };

  it('a preview that fails after its audio is made prunes nothing and charges nothing', async () => {
    expect(await numbers()).toEqual(range(1, 50));
    // Version 51 is taken already (as by a writer the counter did not see): storing the new version fails.
    const rows = await versions();
    const audio = (await t.ctx.storage.get(rows[0]!.storage_key))!;
    const stray = await copyOf(rows[0]!, 51, audio);
    const before = await balance();
    const files = (await t.ctx.storage.list('voice-previews')).length;
    const res = await c.post('/voice/previews', PROMPT);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL');
    expect(await settled()).toBe(true);
    expect(await balance()).toBe(before);
    expect(await numbers()).toEqual(range(1, 51));
    expect((await t.ctx.storage.list('voice-previews')).length).toBe(files);
    expect(await filesPresent()).toBe(true);
    const gone = await t.ctx.db.kysely.deleteFrom('voice_previews').where('id', '=', stray).returning('storage_key').execute();
    await t.ctx.storage.delete(gone[0]!.storage_key);
  });

  it('a preview the client leaves prunes nothing and charges nothing', async () => {
    const before = await balance();
    const kept = await numbers();
    expect(kept).toHaveLength(50);
    const long = Array.from({ length: 12 }, (_, i) => `Sentence ${i + 1} of a preview nobody waits for.`).join(' ');
    const { req } = rawPost(
      t.url,
      '/voice/previews',
      { ...PROMPT, model: 'gnuspeech', preview_text: long.slice(0, 300) },
      { 'x-sid': c.sid! },
    );
    req.on('error', () => {});
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 1, 300, 10)).toBe(true);
    req.destroy();
    expect(await settled()).toBe(true);
    expect(await balance()).toBe(before);
    expect(await numbers()).toEqual(kept);
    expect(await filesPresent()).toBe(true);
  });

  it('a delivered preview is stored first, then the oldest version goes with its audio', async () => {
    const oldest = (await versions())[0]!;
    // The first version was really made, timed by eSpeak NG's own events: its timings go with it.
    const timings = `${oldest.storage_key}.timings.json`;
    expect(await t.ctx.storage.get(timings)).not.toBeNull();
    const res = await c.post('/voice/previews', PROMPT);
    expect(res.status).toBe(201);
    expect(await eventually(async () => !(await numbers()).includes(Number(oldest.version)))).toBe(true);
    expect(await eventually(async () => (await t.ctx.storage.get(timings)) === null)).toBe(true);
    const now = await numbers();
    expect(now).toHaveLength(50);
    expect(now.at(-1)).toBe(res.body.version);
    expect(await eventually(async () => (await t.ctx.storage.get(oldest.storage_key)) === null)).toBe(true);
    expect(await filesPresent()).toBe(true);
    // The pruned version can no longer become a voice: refused, nothing charged.
    expect(await settled()).toBe(true);
    const before = await balance();
    const late = await c.put('/voice', { type: 'prompt', name: 'Too late', preview_id: oldest.id });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('PREVIEW_REQUIRED');
    expect(await balance()).toBe(before);
  });

  it('never prunes a version that activated a voice', async () => {
    const oldest = (await versions())[0]!;
    const voice = await c.put('/voice', { type: 'prompt', name: 'From the oldest', preview_id: oldest.id });
    expect(voice.status).toBe(201);
    const next = (await versions())[1]!;
    // Two more versions: the activated one stays, the next oldest goes.
    for (let i = 0; i < 2; i++) expect((await c.post('/voice/previews', PROMPT)).status).toBe(201);
    expect(await eventually(async () => !(await numbers()).includes(Number(next.version)))).toBe(true);
    const now = await versions();
    expect(now[0]!.id).toBe(oldest.id);
    expect(now[0]!.voice_id).toBe(voice.body.id);
    // The newest 50, and the one that made a voice.
    expect(now).toHaveLength(51);
    const listed = (await c.get('/voice/previews?page_size=100')).body.items;
    expect(listed.find((p: { id: string }) => p.id === oldest.id).voice_id).toBe(voice.body.id);
  });

  it('an activation and a prune of the same version at once: one of them wins whole, never half of each', async () => {
    const fee = t.ctx.credits.config.activation_fees.text_to_voice;
    for (let round = 0; round < 3; round++) {
      // The oldest version nobody activated: the next prune takes it, unless the activation marks it first.
      const target = (await versions()).find((r) => r.voice_id === null)!;
      expect(await settled()).toBe(true);
      const before = await balance();
      const [activation, preview] = await Promise.all([
        c.put('/voice', { type: 'prompt', name: `Race ${round}`, preview_id: target.id }),
        c.post('/voice/previews', PROMPT),
      ]);
      expect(preview.status).toBe(201);
      expect([201, 409]).toContain(activation.status);
      console.log(`round ${round}: activation ${activation.status === 201 ? 'won' : 'lost to the prune'}`);
      expect(await settled()).toBe(true);
      // The prune that follows the new version has run once its hold is settled.
      expect(await eventually(async () => (await versions()).filter((r) => r.voice_id === null).length === 50)).toBe(true);
      const row = (await versions()).find((r) => r.id === target.id);
      const voices = await t.ctx.db.kysely.selectFrom('own_voices').selectAll().where('preview_id', '=', target.id).execute();
      if (activation.status === 201) {
        // The voice was made: its version is kept and marked, its fee taken once, its audio its own.
        expect(row?.voice_id).toBe(activation.body.id);
        expect(voices).toHaveLength(1);
        expect(await balance()).toBe(before - preview.body.credits - fee);
        const audio = await fetch(new URL(activation.body.preview_url, t.url), { headers: { 'x-sid': c.sid! } });
        expect(audio.status).toBe(200);
        expect((await audio.arrayBuffer()).byteLength).toBeGreaterThan(1000);
      } else {
        // The prune went first: no voice, no fee, the version gone.
        expect(activation.body.error.code).toBe('PREVIEW_REQUIRED');
        expect(row).toBeUndefined();
        expect(voices).toHaveLength(0);
        expect(await balance()).toBe(before - preview.body.credits);
      }
      expect(await filesPresent()).toBe(true);
      expect(await t.ctx.credits.ledgerSum(accountId)).toBe(await balance());
    }
  });
});
