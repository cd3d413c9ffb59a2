/** ElevenLabs' history routes through the official SDK, unchanged but for its base URL and key. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import JSZip from 'jszip';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { eventually } from '../support/leave.js';

const VOICE = 'voice_espeak.en-us';

async function bytesOf(stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Uint8Array>) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

describe.each(DIALECTS)('ElevenLabs history through the official SDK (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let eleven: ElevenLabsClient;
  const made: { text: string; audio: Buffer }[] = [];
  beforeAll(async () => {
    let key: { key: string };
    ({ t, c, key } = await keyedApp(dialect, 50_000, 'history'));
    eleven = new ElevenLabsClient({ apiKey: key.key, baseUrl: t.url, maxRetries: 0 });
    for (const text of ['The lighthouse keeper waved.', 'A violin played in the square.', 'Rain fell on the harbour.']) {
      const audio = await bytesOf(await eleven.textToSpeech.convert(VOICE, { text, outputFormat: 'mp3_44100_128' }));
      made.push({ text, audio });
      // Each is recorded once paid for, after its last byte left.
      expect(await eventually(async () => (await eleven.history.list()).history.length === made.length)).toBe(true);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists newest first in pages, with the text, voice, model, price and format of each', async () => {
    const first = await eleven.history.list({ pageSize: 2 });
    expect(first.history.map((h) => h.text)).toEqual([made[2]!.text, made[1]!.text]);
    expect(first.hasMore).toBe(true);
    expect(first.lastHistoryItemId).toBe(first.history[1]!.historyItemId);
    const second = await eleven.history.list({ pageSize: 2, startAfterHistoryItemId: first.lastHistoryItemId! });
    expect(second.history.map((h) => h.text)).toEqual([made[0]!.text]);
    expect(second.hasMore).toBe(false);
    const item = first.history[0]!;
    expect(item).toMatchObject({ voiceId: VOICE, voiceCategory: 'premade', contentType: 'audio/mpeg', source: 'TTS' });
    expect(item.outputFormat).toBe('mp3_44100_128');
    const price = item.characterCountChangeFrom - item.characterCountChangeTo;
    expect(price).toBeGreaterThan(0);
    expect((item as unknown as { credits: number }).credits).toBe(price);
    expect(item.dateUnix).toBeGreaterThan(1_700_000_000);
  });

  it('searches, gets one item, and gives back its audio as delivered without charging again', async () => {
    const found = await eleven.history.list({ search: 'VIOLIN' });
    expect(found.history.map((h) => h.text)).toEqual([made[1]!.text]);
    const id = found.history[0]!.historyItemId;
    expect((await eleven.history.get(id)).text).toBe(made[1]!.text);
    const balance = async () => (await c.get('/accounts/me')).body.vip.credits as number;
    const before = await balance();
    expect((await bytesOf(await eleven.history.getAudio(id))).equals(made[1]!.audio)).toBe(true);
    expect((await bytesOf(await eleven.history.download({ historyItemIds: [id] }))).equals(made[1]!.audio)).toBe(true);
    expect(await balance()).toBe(before);
  });

  it('downloads several as a zip of their files, named by their ids', async () => {
    const { history } = await eleven.history.list();
    const ids = history.map((h) => h.historyItemId);
    const zip = await JSZip.loadAsync(await bytesOf(await eleven.history.download({ historyItemIds: ids })));
    expect(Object.keys(zip.files).sort()).toEqual(ids.map((id) => `${id}.mp3`).sort());
    for (const h of history) {
      const audio = await zip.file(`${h.historyItemId}.mp3`)!.async('nodebuffer');
      expect(audio.equals(made.find((m) => m.text === h.text)!.audio)).toBe(true);
    }
  });

  it('is in the OpenAPI document under its own tag', async () => {
    const doc = (await c.get('/openapi.json')).body as { paths: Record<string, Record<string, { tags: string[] }>> };
    for (const [path, method] of [
      ['/v1/history', 'get'],
      ['/v1/history/{history_item_id}', 'get'],
      ['/v1/history/{history_item_id}', 'delete'],
      ['/v1/history/{history_item_id}/audio', 'get'],
      ['/v1/history/download', 'post'],
    ] as const)
      expect(doc.paths[path]?.[method]?.tags, `${method} ${path}`).toEqual(['history']);
  });

  it('deletes an item with its audio; it is then 404, as another account’s is', async () => {
    const { history } = await eleven.history.list({ search: 'harbour' });
    const id = history[0]!.historyItemId;
    const other = new Client(t.url);
    await other.anonymous();
    expect((await other.get(`/v1/history/${id}`)).status).toBe(404);
    expect((await other.get(`/v1/history/${id}/audio`)).status).toBe(404);
    expect((await other.delete(`/v1/history/${id}`)).status).toBe(404);
    expect(await eleven.history.delete(id)).toEqual({ status: 'ok' });
    const missing = await eleven.history.get(id).catch((e: unknown) => e);
    expect((missing as ElevenLabsError).statusCode).toBe(404);
    expect(await t.ctx.storage.exists(`history/${id}`)).toBe(false);
  });
});
