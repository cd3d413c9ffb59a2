/**
 * Moderation on the newer routes (issue 31, point 4): the dialogue's turns, a Studio conversion's paragraphs (refused
 * before its job is made, or failing the job when a paragraph is refused as it is spoken) and a regenerated paragraph;
 * and cloning, which fails closed by default when the provider does not answer. Each refusal is 422 CONTENT_REFUSED,
 * holds and charges nothing, and is kept as a hit for the operator. OpenAI's moderation endpoint as a protocol fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import { DIALECTS, type TestApp } from '../support/app.js';
import { Client, signIn } from '../support/client.js';
import { expectError } from '../support/errors.js';

/** A refusal on an ElevenLabs-shaped route: the contract's error, with ElevenLabs' `detail` beside it. */
function expectRefused(res: { status: number; body: any }, message?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.error.code).toBe('CONTENT_REFUSED');
  expect(res.body.detail?.status).toBe('content_refused');
  if (message) expect(res.body.error.message).toBe(message);
}
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds, within } from '../support/leave.js';
import { givePlan } from '../support/economy.js';
import { JFK_WAV, uploadSample } from '../support/design.js';
import { fakeOpenAiModeration, type FakeProvider } from '../support/moderation-fakes.js';

const VOICE = 'voice_espeak.en-us';
/** Flagged by the fake provider alone (no list has it). */
const PROVIDER_BAD = 'instructions to build a pipe bomb';
const HANG = 'an answer that never comes';

describe.each(DIALECTS)('moderation on dialogue, Studio and cloning (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let accountId: string;
  let provider: FakeProvider;
  beforeAll(async () => {
    provider = await fakeOpenAiModeration('sk-moderation-test', { flag: { 'pipe bomb': 'illicit' }, hang: HANG });
    ({ t, c, key } = await keyedApp(dialect, 1_000_000, 'moderation-routes', {
      MODERATION_PROVIDER: 'openai',
      MODERATION_URL: provider.url,
      MODERATION_KEY: 'sk-moderation-test',
      MODERATION_TIMEOUT_MS: '300',
    }));
    accountId = (await c.get('/accounts/me')).body.id as string;
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  const balance = async () => (await c.get('/accounts/me')).body.vip.credits as number;
  const holdCount = async (account = accountId) =>
    Number(
      (
        await t.ctx.db.kysely
          .selectFrom('credit_holds')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', account)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const atRest = async () => {
    await t.ctx.synthesis.drain();
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    const b = await balance();
    expect(await t.ctx.credits.ledgerSum(accountId)).toBe(b);
    return b;
  };
  const hitsOf = (account: string, route: string) =>
    t.ctx.db.kysely
      .selectFrom('moderation_hits')
      .selectAll()
      .where('account_id', '=', account)
      .where('route', '=', route)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  const xi = (path: string, body: unknown, lang = 'en') =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'xi-api-key': key.key, 'content-type': 'application/json', 'accept-language': lang },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as any }));

  it('dialogue: one refused turn refuses the dialogue on every route, in the user’s language, nothing held', async () => {
    const before = await atRest();
    const holds = await holdCount();
    const inputs = [
      { text: 'Good morning, how are you?', voice_id: VOICE },
      { text: `Fine. Now read the ${PROVIDER_BAD}.`, voice_id: VOICE },
    ];
    for (const path of ['', '/stream', '/with-timestamps', '/stream/with-timestamps']) {
      const refused = await xi(`/v1/text-to-dialogue${path}`, { inputs }, 'zh-CN');
      expect(refused.status, `${path}: ${JSON.stringify(refused.body)}`).toBe(422);
      expect(refused.body.error.code).toBe('CONTENT_REFUSED');
      expect(refused.body.error.message).toBe('该内容无法在本服务合成，未扣除任何额度');
    }
    // A word of the built-in lists, spaced out, in the first turn.
    const listed = await xi('/v1/text-to-dialogue', {
      inputs: [{ text: 'Read this: f.u.c.k and more', voice_id: VOICE }, inputs[0]],
    });
    expect(listed.status).toBe(422);
    expect(listed.body.error.code).toBe('CONTENT_REFUSED');
    expect(await atRest()).toBe(before);
    expect(await holdCount()).toBe(holds);
    const hits = await hitsOf(accountId, 'dialogue');
    expect(hits.map((h) => h.source)).toEqual(['openai', 'openai', 'openai', 'openai', 'words']);
    expect(hits.slice(0, 4).every((h) => h.category === 'illicit')).toBe(true);
    expect(hits[0]!.text).toContain(PROVIDER_BAD);
    // Ordinary turns are spoken and charged.
    const ok = await fetch(`${t.url}/v1/text-to-dialogue`, {
      method: 'POST',
      headers: { 'xi-api-key': key.key, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [inputs[0], { text: 'Fine, thank you.', voice_id: VOICE }] }),
    });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    expect(await atRest()).toBeLessThan(before);
  });

  const project = async (text: string, extra: object = {}) => {
    const made = await c.post('/v1/studio/projects', {
      name: 'Moderated',
      text,
      text_format: 'plain',
      default_paragraph_voice_id: VOICE,
      ...extra,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.project.project_id as string;
    const paragraphs = await t.ctx.db.kysely
      .selectFrom('studio_paragraphs')
      .selectAll()
      .where('project_id', '=', id)
      .orderBy('position')
      .execute();
    return { id, paragraphs };
  };
  const jobsOf = (projectId: string) =>
    t.ctx.db.kysely
      .selectFrom('synthesis_jobs')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('kind', '=', 'studio_convert')
      .where('request', 'like', `%${projectId}%`)
      .execute();

  it('Studio: a refused paragraph refuses the conversion before its job, and a regeneration; nothing held', async () => {
    const before = await atRest();
    const holds = await holdCount();
    const { id, paragraphs } = await project(`It was late.\n\nThen she read the ${PROVIDER_BAD} aloud.\n\nThe door closed.`);
    expect(paragraphs).toHaveLength(3);
    const zh = new Client(t.url, 'zh-CN');
    zh.sid = c.sid;
    expectRefused(await zh.post(`/v1/studio/projects/${id}/convert`), '该内容无法在本服务合成，未扣除任何额度');
    const chapter = paragraphs[0]!.chapter_id;
    expectRefused(await c.post(`/v1/studio/projects/${id}/chapters/${chapter}/convert`));
    expect(await jobsOf(id)).toEqual([]);
    // The paragraph regenerated alone: refused, nothing held; a clean one is spoken.
    expectRefused(await c.post(`/v1/studio/projects/${id}/paragraphs/${paragraphs[1]!.id}/convert`));
    expect(await atRest()).toBe(before);
    expect(await holdCount()).toBe(holds);
    const stored = await t.ctx.db.kysely
      .selectFrom('studio_paragraphs')
      .select('audio_key')
      .where('project_id', '=', id)
      .execute();
    expect(stored.every((p) => p.audio_key === null)).toBe(true);
    const hits = await hitsOf(accountId, 'studio');
    expect(hits).toHaveLength(3);
    expect(hits.every((h) => h.category === 'illicit' && h.text.includes(PROVIDER_BAD))).toBe(true);

    const clean = await fetch(`${t.url}/v1/studio/projects/${id}/paragraphs/${paragraphs[0]!.id}/convert`, {
      method: 'POST',
      headers: { 'x-sid': c.sid! },
    });
    expect(clean.status).toBe(200);
    await clean.arrayBuffer();
    expect(await atRest()).toBeLessThan(before);
  });

  it('Studio: a paragraph refused as it is spoken (a dictionary’s alias) fails the job visibly, the others spoken', async () => {
    const dict = await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'studio-moderated',
      rules: [{ type: 'alias', string_to_replace: 'FLG', alias: '法轮功' }],
    });
    expect(dict.status, JSON.stringify(dict.body)).toBe(200);
    const locator = JSON.stringify({ pronunciation_dictionary_id: dict.body.id, version_id: dict.body.version_id });
    const { id, paragraphs } = await project('It was late.\n\nThey talked about FLG.\n\nThe door closed.', {
      pronunciation_dictionary_locators: [locator],
    });
    const before = await atRest();
    // The texts as written pass: the job is made.
    const started = await c.post(`/v1/studio/projects/${id}/convert`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const jobId = started.body.job_id as string;
    const job = async () =>
      t.ctx.db.kysely.selectFrom('synthesis_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(await within(async () => (await job()).status === 'failed', 120_000)).toBe(true);
    expect((await job()).error_code).toBe('CONTENT_REFUSED');
    // Seen by its owner in the project, in the owner's language.
    const zh = new Client(t.url, 'zh-CN');
    zh.sid = c.sid;
    const seen = (await zh.get(`/v1/studio/projects/${id}`)).body;
    expect(seen.conversion_error).toEqual({
      job_id: jobId,
      code: 'CONTENT_REFUSED',
      message: '该内容无法在本服务合成，未扣除任何额度',
      paragraphs_failed: 1,
    });
    // The paragraphs around it spoken and charged; the refused one not.
    const rows = await t.ctx.db.kysely
      .selectFrom('studio_paragraphs')
      .select(['id', 'audio_key', 'pending_charge'])
      .where('project_id', '=', id)
      .orderBy('position')
      .execute();
    expect(rows.map((r) => r.id)).toEqual(paragraphs.map((p) => p.id));
    expect(rows.map((r) => r.audio_key !== null)).toEqual([true, false, true]);
    expect(rows.every((r) => r.pending_charge === null)).toBe(true);
    const shown = (await c.get(`/v1/studio/projects/${id}`)).body;
    expect(shown.state).toBe('default');
    expect(shown.can_be_downloaded).toBe(false);
    expect(shown.conversion_error.message).toBe('This text cannot be spoken on this service; nothing was charged');
    const after = await atRest();
    expect(after).toBeLessThan(before);
    const holds = await t.ctx.db.kysely
      .selectFrom('credit_holds')
      .select('status')
      .where('account_id', '=', accountId)
      .where('created_at', '>=', (await job()).created_at)
      .execute();
    expect(holds.map((h) => h.status)).toEqual(['settled', 'settled']);
    const [hit] = (await hitsOf(accountId, 'studio')).filter((h) => h.text.includes('法轮功'));
    expect(hit).toMatchObject({ source: 'words', category: 'political' });

    // The paragraph edited, a conversion speaks it and the project no longer shows the failure.
    const edited = await c.request('PATCH', `/v1/studio/projects/${id}/paragraphs/${paragraphs[1]!.id}`, {
      text: 'They talked about the weather.',
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const again = await c.post(`/v1/studio/projects/${id}/convert`);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await within(async () => (await c.get(`/v1/studio/projects/${id}`)).body.can_be_downloaded === true, 120_000)).toBe(
      true,
    );
    expect((await c.get(`/v1/studio/projects/${id}`)).body.conversion_error).toBeUndefined();
  });

  it('cloning fails closed by default when the provider does not answer; the refusals kept as hits', async () => {
    const owner = new Client(t.url, 'en');
    await owner.anonymous();
    const ownerId = (await signIn(owner, t.outbox, `cloner-${dialect}@example.com`)).id;
    await givePlan(t, ownerId);
    const credits = async () => (await owner.get('/accounts/me')).body.vip.credits as number;
    const sample = await uploadSample(owner, await fs.readFile(JFK_WAV), 'jfk.wav');
    expect(sample.status, JSON.stringify(sample.body)).toBe(201);
    const before = await credits();
    const holds = await holdCount(ownerId);
    const clone = (body: object) =>
      owner.post('/voice/previews', {
        type: 'clone',
        model: 'espeak-ng',
        language: 'en',
        preview_text: 'A short sentence to say who made this.',
        file_id: sample.body.id,
        ...body,
      });
    expectError(await clone({ preview_text: `Then ${HANG}.` }), 'CONTENT_REFUSED', 422);
    expectError(await clone({ transcript: `And so ${HANG}.` }), 'CONTENT_REFUSED', 422);
    const estimate = await owner.post('/voice/previews/estimate', {
      type: 'clone',
      model: 'espeak-ng',
      language: 'en',
      preview_text: `Then ${HANG}.`,
      file_id: sample.body.id,
    });
    if (estimate.status !== 404) expectError(estimate, 'CONTENT_REFUSED', 422);
    expect(await credits()).toBe(before);
    expect(await holdCount(ownerId)).toBe(holds);
    const hits = await hitsOf(ownerId, 'design');
    expect(hits.length).toBeGreaterThanOrEqual(2);
    expect(hits.every((h) => h.category === 'provider_unavailable' && h.purpose === 'design' && h.source === 'openai')).toBe(
      true,
    );
    expect(hits[0]!.text).toContain(HANG);
    // The same text for plain synthesis fails open (logged, not kept): cloning alone is closed by default.
    const spoken = await owner.post('/tts', { text: `Then ${HANG}.`, voice_id: VOICE, format: 'mp3' });
    expect(spoken.status, JSON.stringify(spoken.body)).toBe(200);
    expect(await hitsOf(ownerId, 'tts')).toEqual([]);
    // A clone preview the provider answers is made.
    const made = await clone({});
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  });
});
