/** Bad input on a realtime socket: a clear error message in the request's language, a clean close, nothing charged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds } from '../support/leave.js';
import { audioOf, openRealtime } from '../support/realtime.js';

const VOICE = 'voice_espeak.en-us';
const PATH = `/v1/text-to-speech/${VOICE}/stream-input`;

describe.each(DIALECTS)('realtime sockets refusing bad input (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let accountId: string;
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 100_000, 'realtime-errors'));
    accountId = (await c.get('/accounts/me')).body.id;
  });
  afterAll(async () => {
    await t.close();
  });
  const balance = async (client = c) => (await client.get('/accounts/me')).body.vip.credits as number;

  /** Opens a socket, sends `messages`, and returns its error message and close. */
  async function refused(messages: unknown[], path = PATH, headers: Record<string, string> = {}) {
    const rt = await openRealtime(t.url, path, { 'xi-api-key': key.key, ...headers });
    for (const m of messages) rt.send(m);
    const error = await rt.next((m) => typeof m.error === 'string');
    return { error, close: await rt.closed, rt };
  }

  it('closes on malformed JSON with VALIDATION_FAILED and 1008', async () => {
    const { error, close } = await refused([{ text: ' ' }, '{"text": "Hello']);
    expect(error).toMatchObject({ error: 'VALIDATION_FAILED', code: 400 });
    expect(error.message).toBe('Invalid value for message: must be valid JSON');
    expect(close.code).toBe(1008);
    expect(close.reason).toContain('VALIDATION_FAILED');
  });

  it('closes on a message over 64 KiB with 1009, and on one over the socket limit too', async () => {
    const { error, close } = await refused([{ text: ' ' }, { text: 'a '.repeat(40_000) }]);
    expect(error.error).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('65536');
    expect(close.code).toBe(1009);
    const huge = await openRealtime(t.url, PATH, { 'xi-api-key': key.key });
    huge.send({ text: 'x'.repeat(2 * 1024 * 1024) });
    expect((await huge.closed).code).toBe(1009);
  });

  it('refuses text before the opening message, in the request language', async () => {
    const { error, close } = await refused([{ text: 'Hello there. ' }], PATH, { 'accept-language': 'zh-CN' });
    expect(error.error).toBe('VALIDATION_FAILED');
    expect(error.message).toBe('text 的值无效：须先发送开场消息 " "');
    expect(close.code).toBe(1008);
  });

  it('refuses a wrongly typed field, naming it', async () => {
    const { error } = await refused([{ text: ' ', generation_config: { chunk_length_schedule: [10_000] } }]);
    expect(error.error).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('generation_config.chunk_length_schedule');
  });

  it('answers a voice that does not exist with NOT_FOUND and a close, holding nothing', async () => {
    const rt = await openRealtime(t.url, '/v1/text-to-speech/voice_nobody.here/stream-input', { 'xi-api-key': key.key });
    rt.send({ text: ' ' });
    rt.send({ text: 'Hello.', flush: true });
    const error = await rt.next((m) => typeof m.error === 'string');
    expect(error).toMatchObject({ error: 'NOT_FOUND', code: 404 });
    expect((await rt.closed).code).toBe(1008);
    expect(await heldHolds(t, accountId)).toEqual([]);
  });

  it('refuses an unknown output_format and a plain GET before any upgrade', async () => {
    await expect(openRealtime(t.url, `${PATH}?output_format=mp3_1_1`, { 'xi-api-key': key.key })).rejects.toMatchObject({
      status: 400,
    });
    const plain = await c.get(PATH, { 'xi-api-key': key.key });
    expect(plain.status).toBe(400);
    expect(plain.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('closes a socket that idles past inactivity_timeout, charging nothing for what waited unspoken', async () => {
    const before = await balance();
    const rt = await openRealtime(t.url, `${PATH}?inactivity_timeout=1`, { 'xi-api-key': key.key });
    rt.send({ text: ' ' });
    rt.send({ text: 'Waiting text that is never flushed ' });
    const error = await rt.next((m) => typeof m.error === 'string');
    expect(error.message).toBe('Invalid value for text: no text for 1 seconds');
    expect((await rt.closed).code).toBe(1008);
    expect(await balance()).toBe(before);
  });

  it('on multi-stream-input, times out an idle context alone; the socket closes once no context is left', async () => {
    const before = await balance();
    const rt = await openRealtime(
      t.url,
      `/v1/text-to-speech/${VOICE}/multi-stream-input?inactivity_timeout=1&output_format=pcm_16000`,
      {
        'xi-api-key': key.key,
      },
    );
    rt.send({ text: ' ', context_id: 'kept' });
    rt.send({ text: ' ', context_id: 'idle' });
    rt.send({ text: 'Text that waits unflushed in the idle context ', context_id: 'idle' });
    // ElevenLabs' keep-alive for one context: an empty text naming it, well within the timeout.
    const keepAlive = setInterval(() => rt.send({ text: '', context_id: 'kept' }), 200);
    try {
      const timedOut = await rt.next((m) => typeof m.error === 'string');
      expect(timedOut).toMatchObject({ error: 'VALIDATION_FAILED', contextId: 'idle', context_id: 'idle' });
      expect(timedOut.message).toBe('Invalid value for text: no text for 1 seconds');
      // The kept context (and the socket) still speak, past the timeout.
      expect(rt.ws.readyState).toBe(rt.ws.OPEN);
      rt.send({ text: 'Still here after the other context timed out.', context_id: 'kept', flush: true });
      await rt.next((m) => m.type === 'flush_done' && m.contextId === 'kept');
      expect(audioOf(rt.messages, 'kept').length).toBeGreaterThan(16_000);
      expect(audioOf(rt.messages, 'idle').length).toBe(0);
      // The timed-out context takes nothing more: late text for it is answered with an error (never silence), not spoken.
      rt.send({ text: 'Late text for the idle context.', context_id: 'idle', flush: true });
      const late = await rt.next((m) => typeof m.error === 'string' && m.contextId === 'idle', rt.messages.indexOf(timedOut) + 1);
      expect(late.error).toBe('VALIDATION_FAILED');
    } finally {
      clearInterval(keepAlive);
    }
    // Without its keep-alive the last context times out too, then the socket closes.
    const second = await rt.next((m) => typeof m.error === 'string' && m.contextId === 'kept');
    expect(second.error).toBe('VALIDATION_FAILED');
    expect((await rt.closed).code).toBe(1008);
    expect(rt.messages.filter((m) => m.error && m.contextId === 'idle')).toHaveLength(2);
    expect(audioOf(rt.messages, 'idle').length).toBe(0);
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    const spoken = (await c.post('/tts/estimate', { text: 'Still here after the other context timed out.', voice_id: VOICE }))
      .body.credits as number;
    expect(before - (await balance())).toBe(spoken);
  });

  for (const sync of [false, true])
    it(`stops on an exhausted balance mid-stream${sync ? ' (sync_alignment)' : ''}: the error, a clean close, only what was spoken is charged`, async () => {
      const first = 'This first sentence is paid for and spoken. ';
      const second = 'The second one costs more than what is left, so it is never spoken at all. ';
      const price = async (text: string) => (await c.post('/tts/estimate', { text, voice_id: VOICE })).body.credits as number;
      const p1 = await price(first);
      const p2 = await price(second);
      // A second account with credits for the first piece and half the second.
      const poor = new Client(t.url);
      const { account } = await poor.anonymous();
      // Whatever the new account starts with is spent first, so exactly that much is left.
      const start = await t.ctx.credits.balance(account.id);
      if (start > 0) {
        const spend = await t.ctx.credits.hold(account.id, start, 'test');
        await t.ctx.credits.settle(spend.id, start, { record_type: 'test' });
      }
      await t.ctx.db.kysely
        .transaction()
        .execute((trx) => t.ctx.credits.grantOnce(trx, account.id, `test:${account.id}`, p1 + Math.floor(p2 / 2), 'test'));
      const before = await balance(poor);
      expect(before).toBe(p1 + Math.floor(p2 / 2));
      const { body: poorKey } = await poor.put('/api/authorization', { name: 'poor' });
      const rt = await openRealtime(t.url, `${PATH}${sync ? '?sync_alignment=true' : ''}`, { 'xi-api-key': poorKey.key });
      rt.send({ text: ' ' });
      rt.send({ text: first, flush: true });
      await rt.next((m) => typeof m.audio === 'string');
      rt.send({ text: second, flush: true });
      const error = await rt.next((m) => typeof m.error === 'string');
      expect(error).toMatchObject({
        error: 'INSUFFICIENT_BALANCE',
        code: 402,
      });
      expect(error.message).toBe('Insufficient Balance');
      expect((await rt.closed).code).toBe(1008);
      const audio = rt.messages.filter((m) => m.audio);
      expect(audio.length).toBeGreaterThan(0);
      if (sync) expect(audio.map((m) => m.alignment.chars.join('')).join('')).toBe(first);
      expect(await eventually(async () => (await heldHolds(t, account.id)).length === 0)).toBe(true);
      expect(before - (await balance(poor))).toBe(p1);
      expect(await t.ctx.credits.balance(account.id)).toBe(await t.ctx.credits.ledgerSum(account.id));
    });
  it("stops at the key's credit limit mid-stream with KEY_LIMIT_REACHED, charging only what was spoken", async () => {
    const first = 'Within the limit, this sentence is spoken. ';
    const second = 'Past the limit of the key, this one is refused before it is held or spoken. ';
    const price = async (text: string) => (await c.post('/tts/estimate', { text, voice_id: VOICE })).body.credits as number;
    const p1 = await price(first);
    const p2 = await price(second);
    const { body: limited } = await c.put('/api/authorization', { name: 'limited', limit: p1 + Math.floor(p2 / 2) });
    const before = await balance();
    const rt = await openRealtime(t.url, PATH, { 'xi-api-key': limited.key });
    rt.send({ text: ' ' });
    rt.send({ text: first, flush: true });
    await rt.next((m) => typeof m.audio === 'string');
    rt.send({ text: second, flush: true });
    const error = await rt.next((m) => typeof m.error === 'string');
    expect(error.error).toBe('KEY_LIMIT_REACHED');
    expect((await rt.closed).code).toBe(1008);
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    expect(before - (await balance())).toBe(p1);
  });
});
