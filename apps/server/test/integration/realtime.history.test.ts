/** A realtime socket leaves a History item per context that delivered audio: the bytes it sent, its text and price. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAigcValues } from '@polyvox/speech/formats';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds, within } from '../support/leave.js';
import { audioOf, openRealtime } from '../support/realtime.js';

const VOICE = 'voice_espeak.en-us';
const path = (query: string, multi = false) =>
  `/v1/text-to-speech/${VOICE}/${multi ? 'multi-stream-input' : 'stream-input'}${query}`;

interface Item {
  history_item_id: string;
  text: string | null;
  voice_id: string | null;
  route: string;
  request_id: string | null;
  credits: number;
  characters: number;
  content_type: string;
  output_format: string;
  api_key_id: string | null;
  settings: Record<string, unknown>;
}

describe.each(DIALECTS)('realtime sockets in the history (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 100_000, 'realtime-history'));
    // The server's writes complete 2 ms later, as across a network (realtime.billing.test.ts): a drop may land
    // between any two messages.
    (t.app as any).websocketServer.on('connection', (ws: any) => {
      const send = ws.send.bind(ws);
      ws.send = (data: unknown, options: unknown, cb?: (err?: Error) => void) => {
        const done = typeof options === 'function' ? (options as typeof cb) : cb;
        const opts = typeof options === 'function' ? {} : options;
        send(data, opts, (err?: Error) => setTimeout(() => done?.(err), 2));
      };
    });
  });
  afterAll(async () => {
    await t.close();
  });
  const items = async () => (await c.get('/v1/history?page_size=1000')).body.history as Item[];
  const stored = async (id: string) => {
    const res = await fetch(new URL(`/v1/history/${id}/audio`, t.url), { headers: { 'x-sid': c.sid! } });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };
  const charged = async () =>
    (await c.get(`/api/credits/records?api_key=${key.id}&page_size=100`)).body.items.reduce(
      (s: number, r: { amount: number }) => s - r.amount,
      0,
    ) as number;

  it('stream-input: one item, its audio byte-equal to what the socket sent, labelled, priced as charged', async () => {
    const before = (await items()).length;
    const paidBefore = await charged();
    const rt = await openRealtime(t.url, path('?output_format=mp3_44100_128'), { 'xi-api-key': key.key });
    rt.send({ text: ' ', voice_settings: { stability: 0.5, similarity_boost: 0.8 } });
    rt.send({ text: 'The first sentence is spoken here. ' });
    rt.send({ text: 'And a second one follows it.', flush: true });
    rt.send({ text: '' });
    await rt.next((m) => m.isFinal === true);
    await rt.closed;
    const delivered = audioOf(rt.messages);
    expect(delivered.length).toBeGreaterThan(1000);

    expect(await within(async () => (await items()).length === before + 1, 60_000)).toBe(true);
    const [item] = await items();
    expect(item!.route).toBe('GET /v1/text-to-speech/{voice_id}/stream-input');
    expect(item!).toMatchObject({
      voice_id: VOICE,
      api_key_id: key.id,
      content_type: 'audio/mpeg',
      output_format: 'mp3_44100_128',
    });
    expect(item!.text).toBe('The first sentence is spoken here. And a second one follows it.');
    expect(item!.settings).toMatchObject({ output_format: 'mp3_44100_128', voice_settings: { stability: 0.5 } });
    expect(JSON.stringify(item!.settings)).not.toContain(key.key);
    // What the socket charged for it, exactly.
    expect(item!.credits).toBe((await charged()) - paidBefore);
    expect(item!.credits).toBeGreaterThan(0);
    const audio = await stored(item!.history_item_id);
    expect(audio.equals(delivered)).toBe(true);
    // Labelled as every delivered file is (each piece carries its AIGC label, as it was sent).
    expect(readAigcValues(audio).length).toBeGreaterThan(0);
  }, 120_000);

  it('a socket dropped mid-speech: its item holds exactly the audio the client got, priced as it was charged', async () => {
    const accountId = (await c.get('/accounts/me')).body.id as string;
    const before = (await items()).length;
    const paidBefore = await charged();
    const rt = await openRealtime(t.url, path('?output_format=pcm_16000'), { 'xi-api-key': key.key });
    const socket = (rt.ws as any)._socket as import('node:net').Socket;
    let audio = 0;
    // After the second audio message: stop reading, then half-close (no close frame). Everything the server wrote
    // still arrives; it writes nothing more.
    rt.ws.on('message', (data) => {
      if (typeof JSON.parse(String(data)).audio !== 'string' || ++audio !== 2) return;
      socket.pause();
      setImmediate(() => {
        socket.end();
        socket.resume();
      });
    });
    rt.send({ text: ' ' });
    rt.send({ text: 'The quick brown fox jumps over the lazy dog. ', flush: true });
    rt.send({ text: 'Then it runs home again, tired but happy, and sleeps until the morning comes.', flush: true });
    rt.send({ text: '' });
    await rt.closed;
    await t.ctx.synthesis.drain();
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    const delivered = audioOf(rt.messages);
    expect(delivered.length).toBeGreaterThan(0);
    expect(await within(async () => (await items()).length === before + 1, 60_000)).toBe(true);
    const [item] = await items();
    expect((await stored(item!.history_item_id)).equals(delivered)).toBe(true);
    expect(item!.credits).toBe((await charged()) - paidBefore);
    expect('The quick brown fox jumps over the lazy dog. Then it runs home again').toContain(item!.text!.slice(0, 20));
  }, 120_000);

  it('multi-stream-input: an item per context that delivered audio (a WAV context whole, header included), none for one that did not', async () => {
    const before = (await items()).length;
    const rt = await openRealtime(t.url, path('?output_format=wav_16000', true), { 'xi-api-key': key.key });
    rt.send({ text: ' ', context_id: 'anna' });
    rt.send({ text: ' ', context_id: 'ben' });
    rt.send({ text: ' ', context_id: 'silent' });
    rt.send({ text: 'Anna speaks in her own context.', context_id: 'anna', flush: true });
    rt.send({ text: 'Ben answers in his.', context_id: 'ben', flush: true });
    rt.send({ text: 'never flushed', context_id: 'silent' });
    for (const id of ['anna', 'ben', 'silent']) rt.send({ context_id: id, close_context: true });
    for (const id of ['anna', 'ben', 'silent']) await rt.next((m) => m.isFinal === true && m.contextId === id);
    rt.send({ close_socket: true });
    await rt.closed;

    expect(await within(async () => (await items()).length === before + 2, 60_000)).toBe(true);
    const made = (await items()).slice(0, 2);
    expect(new Set(made.map((i) => i.route))).toEqual(new Set(['GET /v1/text-to-speech/{voice_id}/multi-stream-input']));
    const anna = made.find((i) => i.text === 'Anna speaks in her own context.')!;
    const ben = made.find((i) => i.text === 'Ben answers in his.')!;
    expect(anna).toBeDefined();
    expect(ben).toBeDefined();
    expect(anna.request_id).toBe(ben.request_id);
    for (const [item, id] of [
      [anna, 'anna'],
      [ben, 'ben'],
    ] as const) {
      const delivered = audioOf(rt.messages, id);
      const audio = await stored(item.history_item_id);
      expect(audio.subarray(0, 4).toString('latin1')).toBe('RIFF');
      expect(audio.equals(delivered)).toBe(true);
      expect(item.credits).toBeGreaterThan(0);
    }
    // Nothing of the text never spoken is kept.
    expect((await items()).some((i) => i.text?.includes('never flushed'))).toBe(false);
  }, 120_000);
});
