/** The history: an item per delivered generation on every speech route, its audio as delivered, retention, isolation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_MESSAGES } from '@polyvox/contracts';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds, longText, rawPost } from '../support/leave.js';
import { makeOperator } from '../support/operators.js';
import { HistoryService } from '../../src/history/service.js';
import { HistoryRepository } from '../../src/history/repository.js';

const VOICE = 'voice_espeak.en-us';
type Item = {
  history_item_id: string;
  route: string;
  text: string | null;
  credits: number;
  dialogue: unknown;
  created_at: string;
  expires_at: string;
};

describe.each(DIALECTS)('history of generations (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let accountId: string;
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 200_000, 'history'));
    accountId = (await c.get('/accounts/me')).body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  /** A call whose body is read as bytes, with the session or the key. */
  async function call(path: string, body: unknown, auth: 'session' | 'key' = 'session'): Promise<Buffer> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth === 'session') headers['x-sid'] = c.sid!;
    else headers['xi-api-key'] = key.key;
    const res = await fetch(new URL(path, t.url), { method: 'POST', headers, body: JSON.stringify(body) });
    expect(res.status, path).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  }
  const items = async (query = '') => (await c.get(`/v1/history?page_size=1000${query}`)).body.history as Item[];
  const audioOf = async (id: string) => {
    const res = await fetch(new URL(`/v1/history/${id}/audio`, t.url), { headers: { 'x-sid': c.sid! } });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };
  /** Makes one generation and returns its item, once recorded (after the last byte left and the charge settled). */
  async function generation(make: () => Promise<Buffer>): Promise<{ item: Item; delivered: Buffer }> {
    const before = (await items()).length;
    const delivered = await make();
    let list: Item[] = [];
    expect(await eventually(async () => (list = await items()).length === before + 1)).toBe(true);
    return { item: list[0]!, delivered };
  }

  it('keeps each route’s generation with its audio exactly as delivered', async () => {
    const cases: { route: string; make: () => Promise<Buffer>; audio?: (b: Buffer) => Buffer }[] = [
      { route: 'POST /tts', make: () => call('/tts', { text: 'A plain file.', voice_id: VOICE }) },
      { route: 'POST /tts', make: () => call('/tts', { text: 'A plain stream.', voice_id: VOICE, stream: true }) },
      {
        route: 'POST /v1/audio/speech',
        make: () => call('/v1/audio/speech', { model: 'tts-1', input: 'OpenAI says hi.', voice: 'alloy' }),
      },
      {
        route: 'POST /v1/text-to-speech/{voice_id}/stream',
        make: () => call(`/v1/text-to-speech/${VOICE}/stream`, { text: 'An ElevenLabs stream.' }, 'key'),
      },
      {
        route: 'POST /v1/text-to-speech/{voice_id}/with-timestamps',
        make: () => call(`/v1/text-to-speech/${VOICE}/with-timestamps`, { text: 'With its timings.' }, 'key'),
        audio: (b) => Buffer.from((JSON.parse(b.toString()) as { audio_base64: string }).audio_base64, 'base64'),
      },
      {
        route: 'POST /v1/text-to-dialogue',
        make: () =>
          call(
            '/v1/text-to-dialogue',
            {
              inputs: [
                { text: 'Hello there.', voice_id: VOICE },
                { text: 'Hi back.', voice_id: 'voice_flite.slt' },
              ],
            },
            'key',
          ),
      },
    ];
    for (const { route, make, audio } of cases) {
      const { item, delivered } = await generation(make);
      expect(item.route, route).toBe(route);
      expect((await audioOf(item.history_item_id)).equals(audio ? audio(delivered) : delivered), route).toBe(true);
    }
    const [dialogue] = await items('&search=hi%20back');
    expect(dialogue!.dialogue).toEqual([
      { text: 'Hello there.', voice_id: VOICE, voice_name: expect.any(String) },
      { text: 'Hi back.', voice_id: 'voice_flite.slt', voice_name: expect.any(String) },
    ]);
  });

  it('keeps a finished job, priced at its hold', async () => {
    const before = (await items()).length;
    const job = (await c.post('/tts/jobs', { text: 'A job in the background.', voice_id: VOICE })).body as {
      id: string;
      credits: number;
    };
    let list: Item[] = [];
    expect(await eventually(async () => (list = await items()).length === before + 1, 600)).toBe(true);
    expect(list[0]).toMatchObject({ route: 'POST /tts/jobs', text: 'A job in the background.', credits: job.credits });
    expect(await eventually(async () => (await c.get(`/tts/jobs/${job.id}`)).body.status === 'succeeded')).toBe(true);
    // Once its hold is settled, the item shows the balance before and after the charge.
    let item: { character_count_change_from: number; character_count_change_to: number } | undefined;
    expect(
      await eventually(async () => {
        item = (await c.get(`/v1/history/${list[0]!.history_item_id}`)).body;
        return item!.character_count_change_from - item!.character_count_change_to === job.credits;
      }),
    ).toBe(true);
    expect(item!.character_count_change_to).toBeGreaterThan(0);
    const res = await fetch(new URL(`/tts/jobs/${job.id}/audio`, t.url), { headers: { 'x-sid': c.sid! } });
    expect((await audioOf(list[0]!.history_item_id)).equals(Buffer.from(await res.arrayBuffer()))).toBe(true);
  });

  it('shows no item whose hold was never settled (a job that could not be paid gives nothing away)', async () => {
    const before = (await items()).length;
    const hold = await t.ctx.credits.hold(accountId, 5, 'tts');
    await t.ctx.history.recordFile(
      {
        accountId,
        apiKeyId: null,
        requestId: null,
        holdId: hold.id,
        route: 'POST /tts/jobs',
        text: 'An unpaid job.',
        voiceId: VOICE,
        voiceName: 'x',
        voiceType: 'preset',
        modelId: 'espeak',
        settings: {},
        outputFormat: 'mp3',
        contentType: 'audio/mpeg',
        characters: 12,
        credits: 5,
      },
      Buffer.from('ID3 not paid'),
    );
    const [row] = await t.ctx.db.kysely.selectFrom('history_items').select('id').where('hold_id', '=', hold.id).execute();
    expect((await items()).length).toBe(before);
    expect((await c.get(`/v1/history/${row!.id}/audio`)).status).toBe(404);
    await t.ctx.credits.release(hold.id, 'test');
    expect((await items()).length).toBe(before);
  });

  it('keeps nothing of a stream its client left: it was charged nothing', async () => {
    const before = (await items()).length;
    const files = (await t.ctx.storage.list('history')).length;
    const { req, response } = rawPost(t.url, '/tts', { text: longText(60), voice_id: VOICE, stream: true }, { 'x-sid': c.sid! });
    req.on('error', () => {});
    const res = await response;
    res.on('error', () => {});
    await new Promise((resolve) => res.once('data', resolve));
    req.destroy();
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    expect(await eventually(async () => (await t.ctx.storage.list('history')).length === files)).toBe(true);
    expect((await items()).length).toBe(before);
  });

  it('answers errors from the catalogue in the request’s language, and 404 for another account’s item', async () => {
    const [item] = await items();
    const other = new Client(t.url, 'zh-CN');
    await other.anonymous();
    const res = await other.get(`/v1/history/${item!.history_item_id}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: ERROR_MESSAGES['zh-CN'].NOT_FOUND });
    expect((await other.get('/v1/history')).body.history).toEqual([]);
    const bad = await c.get('/v1/history?page_size=0&lang=zh-TW');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    const foreign = await other.post('/v1/history/download', { history_item_ids: [item!.history_item_id] });
    expect(foreign.status).toBe(404);
  });

  it('keeps items the retention the operator sets (30 days by default), then sweeps them with their audio', async () => {
    const list = await items();
    expect(list.length).toBeGreaterThan(0);
    const days = (item: Item) => (Date.parse(item.expires_at) - Date.parse(item.created_at)) / 86_400_000;
    expect(days(list[0]!)).toBe(30);
    const boss = await makeOperator(t, 'owner');
    expect((await boss.client.request('PATCH', '/admin/api/settings', { HISTORY_RETENTION_DAYS: 7 })).status).toBe(200);
    await t.ctx.settings.refresh();
    expect(days((await items())[0]!)).toBe(7);
    const at = (offset: number) =>
      new HistoryService({
        repo: new HistoryRepository(t.ctx.db.kysely, t.ctx.db.dialect),
        storage: t.ctx.storage,
        retentionDays: () => t.ctx.settings.current().HISTORY_RETENTION_DAYS,
        now: () => new Date(Date.now() + offset * 86_400_000),
      });
    const all = { page_size: 1000, sort_direction: 'desc' } as const;
    expect(await at(6).sweep()).toBe(0);
    expect((await at(6).list(accountId, all)).history.length).toBe(list.length);
    // Past its retention an item is no longer shown, even before the sweeper's round.
    expect((await at(8).list(accountId, all)).history).toEqual([]);
    expect(await at(8).sweep()).toBeGreaterThanOrEqual(list.length);
    expect(await items()).toEqual([]);
    for (const item of list) expect(await t.ctx.storage.exists(`history/${item.history_item_id}`)).toBe(false);
    await boss.client.request('PATCH', '/admin/api/settings', { HISTORY_RETENTION_DAYS: 30 });
  });
});
