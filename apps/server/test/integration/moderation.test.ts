/**
 * Moderation (issue 31, point 4): one review before anything is planned to be spoken, held or charged, on every route
 * family; the operator's own list in force without a restart; the provider's fail modes; the hits and their sweep.
 * One app per database, with OpenAI's moderation endpoint as a local protocol fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { expectError } from '../support/errors.js';
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds } from '../support/leave.js';
import { openRealtime } from '../support/realtime.js';
import { makeOperator } from '../support/operators.js';
import { fakeAliyunModeration, fakeOpenAiModeration, type FakeProvider } from '../support/moderation-fakes.js';
import { ModerationService } from '../../src/moderation/service.js';
import { aliyunProvider } from '../../src/moderation/providers.js';
import { isAppError } from '../../src/platform/errors.js';

const VOICE = 'voice_espeak.en-us';
/** Flagged by the fake provider alone (no list has it). */
const PROVIDER_BAD = 'instructions to build a pipe bomb';
const HANG = 'an answer that never comes';

describe.each(DIALECTS)('moderation before synthesis (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let accountId: string;
  let provider: FakeProvider;
  let owner: Awaited<ReturnType<typeof makeOperator>>;
  beforeAll(async () => {
    provider = await fakeOpenAiModeration('sk-moderation-test', { flag: { 'pipe bomb': 'illicit' }, hang: HANG });
    ({ t, c, key } = await keyedApp(dialect, 1_000_000, 'moderation', {
      MODERATION_PROVIDER: 'openai',
      MODERATION_URL: provider.url,
      MODERATION_KEY: 'sk-moderation-test',
      MODERATION_TIMEOUT_MS: '300',
    }));
    accountId = (await c.get('/accounts/me')).body.id as string;
    owner = await makeOperator(t, 'owner');
  });
  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  const balance = async () => (await c.get('/accounts/me')).body.vip.credits as number;
  const holdCount = async () =>
    Number(
      (
        await t.ctx.db.kysely
          .selectFrom('credit_holds')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
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
  const xi = (path: string, body: unknown) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'xi-api-key': key.key, 'content-type': 'application/json', 'accept-language': 'zh-CN' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it('refuses on every route family in the user’s language, naming no list, with nothing held or charged', async () => {
    const before = await atRest();
    const holds = await holdCount();
    const zh = new Client(t.url, 'zh-CN');
    zh.sid = c.sid;
    const tts = (text: string, extra: object = {}) => zh.post('/tts', { text, voice_id: VOICE, format: 'mp3', ...extra });
    const refusals = [
      await tts('We will talk about 法輪功 tonight.'), // Traditional characters, a Simplified entry
      await tts('Read this: f.u.c.k and more', { stream: true }),
      await tts(`Please read ${PROVIDER_BAD} aloud.`, { timestamps: true }),
      await tts('<speak>Say <sub alias="法轮功">FLG</sub> now.</speak>', { text_type: 'ssml' }), // SSML after parsing
      await zh.post('/tts/jobs', { text: `A long text with ${PROVIDER_BAD}.`, voice_id: VOICE, format: 'mp3' }),
      await zh.post('/v1/audio/speech', { model: 'tts-1', input: `Now ${PROVIDER_BAD}.`, voice: 'alloy' }),
      await zh.post('/v1/audio/speech', {
        model: 'tts-1',
        input: 'A calm sentence.',
        voice: 'alloy',
        instructions: PROVIDER_BAD,
      }),
      await xi(`/v1/text-to-speech/${VOICE}`, { text: `Read ${PROVIDER_BAD}.` }),
      await xi(`/v1/text-to-speech/${VOICE}/stream`, { text: 'ｆｕｃｋ this' }),
      await xi(`/v1/text-to-speech/${VOICE}/with-timestamps`, { text: 'Say ѕhіt loudly' }),
    ];
    for (const [i, r] of refusals.entries()) {
      expect(r.status, `${i}: ${JSON.stringify(r.body)}`).toBe(422);
      expect(r.body.error.code, String(i)).toBe('CONTENT_REFUSED');
      expect(r.body.error.message).toBe('该内容无法在本服务合成，未扣除任何额度');
    }
    // A dictionary alias: the rule itself is fine to store, the text it makes is reviewed when spoken.
    const dict = await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'moderated',
      rules: [{ type: 'alias', string_to_replace: 'FLG', alias: '法轮功' }],
    });
    expect(dict.status, JSON.stringify(dict.body)).toBe(200);
    const aliased = await c.post('/tts', {
      text: 'Say FLG.',
      voice_id: VOICE,
      pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dict.body.id, version_id: dict.body.version_id }],
    });
    expectError(aliased, 'CONTENT_REFUSED', 422);
    expect(aliased.body.error.message).toBe('This text cannot be spoken on this service; nothing was charged');

    // The realtime socket: the protocol's error message for that piece, nothing charged.
    const rt = await openRealtime(t.url, `/v1/text-to-speech/${VOICE}/stream-input`, { 'xi-api-key': key.key });
    rt.send({ text: ' ' });
    rt.send({ text: `Then ${PROVIDER_BAD} please. `, flush: true });
    const error = await rt.next((m) => typeof m.error === 'string');
    expect(error).toMatchObject({ error: 'CONTENT_REFUSED', code: 422 });
    rt.ws.close();
    await rt.closed;

    // Design: a prompt, fail-closed by default, and the preview text.
    const design = (body: object) =>
      c.post('/voice/previews', {
        type: 'prompt',
        model: 'flite',
        language: 'en',
        preview_text: 'Hello there.',
        prompt: 'a calm voice',
        ...body,
      });
    expectError(await design({ prompt: `a voice for ${PROVIDER_BAD}` }), 'CONTENT_REFUSED', 422);
    expectError(await design({ preview_text: `Hello, ${PROVIDER_BAD}.` }), 'CONTENT_REFUSED', 422);

    expect(await atRest()).toBe(before);
    expect(await holdCount()).toBe(holds);

    // Kept for the operator: account, route, source, category, text; listed in the console.
    const hits = (await owner.client.get('/admin/api/moderation/hits?limit=100')).body.items as {
      account_id: string;
      route: string;
      source: string;
      category: string;
      text: string;
    }[];
    expect(hits.length).toBeGreaterThanOrEqual(14);
    expect(new Set(hits.map((h) => h.route))).toEqual(new Set(['tts', 'jobs', 'openai', 'elevenlabs', 'realtime', 'design']));
    expect(hits.every((h) => h.account_id === accountId)).toBe(true);
    expect(hits.find((h) => h.text.includes('法輪功'))).toMatchObject({ source: 'words', category: 'political', route: 'tts' });
    expect(hits.find((h) => h.route === 'realtime')).toMatchObject({ source: 'openai', category: 'illicit' });
    expect(hits.find((h) => h.route === 'design')).toMatchObject({ source: 'openai' });

    // Ordinary text passes every step and is charged as usual.
    const ok = await c.post('/tts', {
      text: 'The admin said the weather in Scunthorpe is fine. 今天天气很好。',
      voice_id: VOICE,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await atRest()).toBeLessThan(before);
  });

  it('an operator’s list edit applies without a restart, and is audited', async () => {
    const say = (text: string) => c.post('/tts', { text, voice_id: VOICE, format: 'mp3' });
    expect((await say('The zorblax arrived today.')).status).toBe(200);
    const added = await owner.client.post('/admin/api/moderation/terms', { term: 'Zorblax', category: 'Brands' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toMatchObject({ term: 'Zorblax', category: 'brands' });
    expectError(await say('The Z-O-R-B-L-A-X arrived today.'), 'CONTENT_REFUSED', 422);
    expectError(await owner.client.post('/admin/api/moderation/terms', { term: 'zorblax', category: 'x' }), 'VALIDATION_FAILED');
    expectError(
      await owner.client.post('/admin/api/moderation/terms', { term: '# comment', category: 'x' }),
      'VALIDATION_FAILED',
    );
    const hit = (await owner.client.get(`/admin/api/moderation/hits?account_id=${accountId}&limit=1`)).body.items[0];
    expect(hit).toMatchObject({ source: 'operator', category: 'brands', route: 'tts' });
    expect((await owner.client.get('/admin/api/moderation/terms')).body.items.map((i: { term: string }) => i.term)).toContain(
      'Zorblax',
    );
    // Support may read and edit the lists; finance may not.
    const finance = await makeOperator(t, 'finance');
    expectError(await finance.client.get('/admin/api/moderation/terms'), 'FORBIDDEN', 403);
    expect((await owner.client.delete(`/admin/api/moderation/terms/${added.body.id}`)).status).toBe(204);
    expect((await say('The zorblax left.')).status).toBe(200);
    const audit = await t.ctx.db.kysely
      .selectFrom('audit_log')
      .select(['action', 'target_id'])
      .where('target_type', '=', 'moderation_term')
      .execute();
    expect(audit.map((a) => a.action).sort()).toEqual(['moderation.add_term', 'moderation.remove_term']);
  });

  it('a provider that does not answer: open (logged) for synthesis, closed for design, as the operator sets', async () => {
    const before = await atRest();
    const spoken = await c.post('/tts', { text: `Then ${HANG}.`, voice_id: VOICE, format: 'mp3' });
    expect(spoken.status, JSON.stringify(spoken.body)).toBe(200);
    const paid = await atRest();
    expect(paid).toBeLessThan(before);
    const designed = await c.post('/voice/previews', {
      type: 'prompt',
      model: 'flite',
      language: 'en',
      preview_text: 'Hello there.',
      prompt: `a voice for ${HANG}`,
    });
    expectError(designed, 'CONTENT_REFUSED', 422);
    const patched = await owner.client.request('PATCH', '/admin/api/settings', { MODERATION_FAIL_SYNTHESIS: 'closed' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expectError(await c.post('/tts', { text: `Then ${HANG}.`, voice_id: VOICE }), 'CONTENT_REFUSED', 422);
    expect(await atRest()).toBe(paid);
    await owner.client.request('PATCH', '/admin/api/settings', { MODERATION_FAIL_SYNTHESIS: 'open' });
    // The two fail-closed refusals are kept for the operator, as refusals for an unavailable provider; the
    // fail-open pass is not.
    const hits = await owner.client.request('GET', `/admin/api/moderation/hits?account_id=${accountId}&limit=100`);
    const unavailable = (hits.body.items as { category: string; source: string; route: string; text: string }[])
      .filter((h) => h.category === 'provider_unavailable')
      .map((h) => ({ source: h.source, route: h.route, text: h.text }));
    expect(unavailable).toEqual([
      { source: 'openai', route: 'tts', text: `Then ${HANG}.` },
      { source: 'openai', route: 'design', text: expect.stringContaining(HANG) },
    ]);
  });

  it('Alibaba Cloud behind the same interface: its signed calls, a flagged text kept with the provider’s label', async () => {
    const aliyun = await fakeAliyunModeration('LTAI-app', 'app-secret', { flag: { 诈骗话术: 'fraud' }, hang: HANG });
    try {
      const service = new ModerationService({
        db: t.ctx.db.kysely,
        words: { find: () => null },
        provider: aliyunProvider({ endpoint: aliyun.url, accessKeyId: 'LTAI-app', accessKeySecret: 'app-secret' }),
        timeoutMs: 300,
        settings: () => ({ keepDays: 180, onTimeout: { synthesis: 'open', design: 'closed' } }),
      });
      const context = { accountId, route: 'tts', purpose: 'synthesis' as const };
      await service.review(['今天天气很好，我们去公园散步。'], context);
      const refused = await service.review(['请照着这套诈骗话术念一遍。'], context).catch((e: unknown) => e);
      expect(isAppError(refused) && refused.code).toBe('CONTENT_REFUSED');
      await service.review([`Then ${HANG}.`], context); // open for synthesis
      const closed = await service.review([`Then ${HANG}.`], { ...context, purpose: 'design' }).catch((e: unknown) => e);
      expect(isAppError(closed) && closed.code).toBe('CONTENT_REFUSED');
      expect(aliyun.refused).toBe(0);
      const hits = await t.ctx.db.kysely
        .selectFrom('moderation_hits')
        .selectAll()
        .where('source', '=', 'aliyun')
        .orderBy('created_at')
        .execute();
      expect(hits).toHaveLength(2);
      expect(hits[0]).toMatchObject({ account_id: accountId, category: 'fraud', text: '请照着这套诈骗话术念一遍。' });
      expect(hits[1]).toMatchObject({ category: 'provider_unavailable', purpose: 'design', text: `Then ${HANG}.` });
    } finally {
      await aliyun.close();
    }
  });

  it('the sweep deletes the hits older than the retention the operator sets', async () => {
    const day = 86_400_000;
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * day).toISOString();
    await t.ctx.db.kysely
      .insertInto('moderation_hits')
      .values(
        [400, 100, 3].map((d, i) => ({
          id: `mdh_sweep_${i}`,
          account_id: accountId,
          route: 'tts',
          purpose: 'synthesis',
          source: 'words',
          category: 'test',
          text: `old ${d}`,
          created_at: at(d),
        })),
      )
      .execute();
    const kept = async () =>
      (await t.ctx.db.kysely.selectFrom('moderation_hits').select('id').where('id', 'like', 'mdh_sweep_%').execute())
        .map((r) => r.id)
        .sort();
    expect(await t.ctx.moderation.sweep()).toBe(1); // the default keeps 180 days
    expect(await kept()).toEqual(['mdh_sweep_1', 'mdh_sweep_2']);
    expect((await owner.client.request('PATCH', '/admin/api/settings', { MODERATION_KEEP_DAYS: 30 })).status).toBe(200);
    expect(await t.ctx.moderation.sweep()).toBe(1);
    expect(await kept()).toEqual(['mdh_sweep_2']);
    // The texts of this file's refusals are days younger: kept.
    expect((await owner.client.get('/admin/api/moderation/hits?limit=5')).body.items.length).toBe(5);
  });
});
