/** Who may open a realtime socket, what it counts against its key, and what a socket that drops leaves behind. */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds, longText } from '../support/leave.js';
import { openRealtime } from '../support/realtime.js';

const VOICE = 'voice_espeak.en-us';
const PATH = `/v1/text-to-speech/${VOICE}/stream-input`;

describe.each(DIALECTS)('realtime sockets and their callers (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let accountId: string;
  beforeAll(async () => {
    ({ t, c } = await keyedApp(dialect, 200_000, 'realtime-security'));
    accountId = (await c.get('/accounts/me')).body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses the upgrade with a key that does not exist, in the header or the query', async () => {
    await expect(openRealtime(t.url, PATH, { 'xi-api-key': 'pvx_not_a_key' })).rejects.toMatchObject({ status: 401 });
    await expect(openRealtime(t.url, `${PATH}?xi_api_key=pvx_nope`)).rejects.toMatchObject({ status: 401 });
  });

  it("takes the key in the first message (ElevenLabs' xi_api_key), and closes one that has none or a wrong one", async () => {
    const { body: key } = await c.put('/api/authorization', { name: 'in-the-message' });
    const rt = await openRealtime(t.url, PATH);
    rt.send({ text: ' ', xi_api_key: key.key });
    rt.send({ text: 'Signed in by the first message.', flush: true });
    rt.send({ text: '' });
    await rt.next((m) => m.isFinal === true);
    expect(rt.messages.some((m) => m.audio)).toBe(true);
    expect((await rt.closed).code).toBe(1000);
    for (const first of [{ text: ' ' }, { text: ' ', xi_api_key: 'pvx_wrong' }, 'not json']) {
      const bare = await openRealtime(t.url, PATH);
      bare.send(first);
      const error = await bare.next((m) => typeof m.error === 'string');
      expect(error.error).toBe('UNAUTHENTICATED');
      expect((await bare.closed).code).toBe(1008);
    }
  });

  it("refuses a voice outside the key's allowed voices with FORBIDDEN and a close", async () => {
    const { body: narrow } = await c.put('/api/authorization', { name: 'narrow', voices: ['voice_espeak.de'] });
    const rt = await openRealtime(t.url, PATH, { 'xi-api-key': narrow.key });
    const error = await rt.next((m) => typeof m.error === 'string');
    expect(error.error).toBe('FORBIDDEN');
    expect((await rt.closed).code).toBe(1008);
  });

  it("counts an open socket against the key's concurrency until it closes", async () => {
    const { body: one } = await c.put('/api/authorization', { name: 'one-at-a-time', concurrency: 1 });
    const first = await openRealtime(t.url, PATH, { 'xi-api-key': one.key });
    await expect(openRealtime(t.url, PATH, { 'xi-api-key': one.key })).rejects.toMatchObject({ status: 429 });
    first.ws.close();
    await first.closed;
    const again = async () => {
      try {
        const rt = await openRealtime(t.url, PATH, { 'xi-api-key': one.key });
        rt.ws.close();
        await rt.closed;
        return true;
      } catch {
        return false;
      }
    };
    expect(await eventually(again)).toBe(true);
  });

  it('releases every hold of a socket that drops mid-stream, charges only pieces it got, and keeps serving', async () => {
    const { body: key } = await c.put('/api/authorization', { name: 'dropper', concurrency: 1 });
    const before = (await c.get('/accounts/me')).body.vip.credits as number;
    const rt = await openRealtime(t.url, `${PATH}?output_format=pcm_44100`, { 'xi-api-key': key.key });
    rt.send({ text: ' ', generation_config: { chunk_length_schedule: [50] } });
    // Many pieces queued at once; the socket is cut after the first audio.
    for (let i = 0; i < 6; i++) rt.send({ text: longText(2) + ' ' });
    rt.send({ text: '', flush: true });
    await rt.next((m) => typeof m.audio === 'string');
    rt.ws.terminate();
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    const charged = before - ((await c.get('/accounts/me')).body.vip.credits as number);
    const all = (await c.post('/tts/estimate', { text: Array.from({ length: 6 }, () => longText(2)).join(' '), voice_id: VOICE }))
      .body.credits as number;
    expect(charged).toBeLessThan(all);
    expect(await t.ctx.credits.balance(accountId)).toBe(await t.ctx.credits.ledgerSum(accountId));
    // The key's slot came back, and the server still answers.
    expect(await eventually(async () => (await new Client(t.url).get('/api/me', { 'xi-api-key': key.key })).status === 200)).toBe(
      true,
    );
  });

  it('releases the holds of every context of a multi-stream socket that drops, aligned or streamed', async () => {
    const { body: key } = await c.put('/api/authorization', { name: 'multi-dropper' });
    for (const query of ['', '?sync_alignment=true']) {
      const rt = await openRealtime(t.url, `/v1/text-to-speech/${VOICE}/multi-stream-input${query}`, { 'xi-api-key': key.key });
      for (const id of ['a', 'b', 'c']) {
        rt.send({ text: ' ', context_id: id });
        rt.send({ text: longText(3), context_id: id, flush: true });
        rt.send({ context_id: id, close_context: true });
      }
      await rt.next((m) => typeof m.audio === 'string');
      rt.ws.terminate();
      expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    }
    expect(await t.ctx.credits.balance(accountId)).toBe(await t.ctx.credits.ledgerSum(accountId));
    expect((await c.get('/accounts/me')).status).toBe(200);
  });

  it('survives clients that vanish during the handshake and mid-frame', async () => {
    const { body: key } = await c.put('/api/authorization', { name: 'vanishing' });
    for (let i = 0; i < 5; i++) {
      const rt = await openRealtime(t.url, PATH, { 'xi-api-key': key.key });
      rt.send({ text: ' ' });
      rt.send({ text: 'Half a sentence, then gone. ', flush: true });
      // A raw half frame, then the connection cut.
      const raw = (rt.ws as unknown as { _socket: import('node:net').Socket })._socket;
      raw.write(Buffer.from([0x81, 0xfe, 0x10]));
      raw.destroy();
    }
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    expect((await c.get('/accounts/me')).status).toBe(200);
  });
});

describe.each(DIALECTS)('a realtime client that never reads (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let accountId: string;
  beforeAll(async () => {
    // Small bounds, so a paused reader is found within the test: the defaults are 4 MiB and 30 s.
    ({ t, c } = await keyedApp(dialect, 200_000, 'realtime-unread', {
      REALTIME_MAX_UNSENT_BYTES: '65536',
      REALTIME_SEND_TIMEOUT_SECONDS: '2',
    }));
    accountId = (await c.get('/accounts/me')).body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('is closed once its unread audio fills the connection: its holds are released, its key slot freed, the rest not charged', async () => {
    const { body: key } = await c.put('/api/authorization', { name: 'never-reads', concurrency: 1 });
    const before = (await c.get('/accounts/me')).body.vip.credits as number;
    const rt = await deafSocket(t.url, `${PATH}?output_format=pcm_48000`, { 'xi-api-key': key.key });
    // Slow and at 48 kHz: about 100 kB a second of audio, far more than the connection holds (some MB locally).
    rt.send({ text: ' ', voice_settings: { speed: 0.5 }, generation_config: { chunk_length_schedule: [50] } });
    const text = longText(24, 'a client that never reads what it asked for');
    rt.send({ text, flush: true });
    // The key's slot comes back while the client still reads nothing: the server gave up on it.
    const free = async () => (await new Client(t.url).get('/api/me', { 'xi-api-key': key.key })).status === 200;
    expect(await eventually(free, 480, 250)).toBe(true);
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    const charged = before - ((await c.get('/accounts/me')).body.vip.credits as number);
    // What all of it would cost, priced in two halves (the whole is over the estimate's length limit).
    const half = await c.post('/tts/estimate', {
      text: longText(12, 'a client that never reads what it asked for'),
      voice_id: VOICE,
    });
    expect(half.status).toBe(200);
    expect(charged).toBeLessThan((half.body.credits as number) * 2);
    expect(await t.ctx.credits.balance(accountId)).toBe(await t.ctx.credits.ledgerSum(accountId));
    // Reading again, the client finds the connection closed.
    const closed = new Promise((resolve) => rt.socket.once('close', resolve));
    rt.socket.resume();
    await closed;
  }, 180_000);
});

/**
 * A WebSocket client that never reads: the handshake by hand on a raw TCP connection, then masked text frames out and
 * nothing read in (`ws`' own client resumes its socket as its parser drains, so it cannot be kept from reading).
 */
async function deafSocket(base: string, path: string, headers: Record<string, string>) {
  const url = new URL(base);
  const socket = net.connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(
    [
      `GET ${path} HTTP/1.1`,
      `Host: ${url.host}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n'),
  );
  await new Promise<void>((resolve, reject) => {
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.pause();
      if (head.startsWith('HTTP/1.1 101')) resolve();
      else reject(new Error(head.split('\r\n')[0]));
    };
    socket.on('data', onData);
  });
  const send = (message: unknown) => {
    const payload = Buffer.from(JSON.stringify(message));
    const n = payload.length;
    let header: Buffer;
    if (n < 126) header = Buffer.from([0x81, 0x80 | n]);
    else if (n < 65_536) header = Buffer.from([0x81, 0x80 | 126, n >> 8, n & 255]);
    else {
      header = Buffer.alloc(10);
      header[0] = 0x81;
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(n), 2);
    }
    const mask = randomBytes(4);
    const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
    socket.write(Buffer.concat([header, mask, body]));
  };
  return { socket, send };
}
