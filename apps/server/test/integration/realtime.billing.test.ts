/**
 * What a realtime socket charges, and how its contexts come and go, as ElevenLabs' do: a socket dropped at any point
 * pays for the characters of the audio messages written to it and nothing else; `close_context` frees its slot at
 * once and its id may open again; a one-character flush costs a minimum piece.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countCharacters } from '@polyvox/speech';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds } from '../support/leave.js';
import { audioOf, openRealtime, type Realtime } from '../support/realtime.js';
import { MIN_PIECE_CHARACTERS } from '../../src/synthesis/realtime/protocol.js';
import { seededRandom } from '../support/random.js';

const VOICE = 'voice_espeak.en-us';
const path = (query: string, multi = false) =>
  `/v1/text-to-speech/${VOICE}/${multi ? 'multi-stream-input' : 'stream-input'}?${query}`;
/** Two pieces of a few seconds each: several audio messages apiece (about a second each). */
const PIECES = ['The quick brown fox jumps over the lazy dog. ', 'Then it runs home again, tired but happy.'];
const FORMATS = ['mp3_22050_32', 'pcm_16000', 'ulaw_8000', 'wav_24000', 'opus_48000_64'];
/** Runs over both databases together (half on each), each a socket dropped at a random point. */
const RUNS = 200;

/** The priced characters of a message's alignment: not whitespace. */
const charsOf = (m: any): number => countCharacters(m.alignment.chars.join(''));

/** What a piece is charged once messages carrying `characters` of it were written: the documented rule. */
function pieceCharge(text: string, whole: boolean, characters: number): number {
  if (whole) return Math.max(MIN_PIECE_CHARACTERS, countCharacters(text));
  return Math.max(MIN_PIECE_CHARACTERS, Math.min(countCharacters(text), characters));
}

/** The first message of a piece: its AIGC label beside raw samples, or its file's tags (mp3's ID3, Ogg's Opus head). */
function pieceStart(m: any): boolean {
  const head = Buffer.from(m.audio, 'base64').subarray(0, 64).toString('latin1');
  return typeof m.aigc === 'string' || head.startsWith('ID3') || head.includes('OpusHead');
}

describe.each(DIALECTS)('a realtime socket’s charges and contexts (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let accountId: string;
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 1_000_000, 'realtime-billing'));
    accountId = (await c.get('/accounts/me')).body.id;
    // The server's writes complete 2 ms later, as they do to a client across a network (on loopback they complete at
    // once, so a piece's messages would all leave before a drop could be noticed): a drop may then land between any
    // two messages. Nothing else of the server changes.
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
  const balance = async () => (await c.get('/accounts/me')).body.vip.credits as number;
  /** Every piece the server started has ended (a dropped socket's too) and closed its hold. */
  const settled = async () => {
    await t.ctx.synthesis.drain();
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
  };
  /** Every ledger entry of the account adds up to its balance: nothing moved without a record. */
  const ledgerAddsUp = async () => {
    const rows = await t.ctx.db.kysely.selectFrom('credit_ledger').select('amount').where('account_id', '=', accountId).execute();
    expect(rows.reduce((sum, r) => sum + Number(r.amount), 0)).toBe(await balance());
  };

  /**
   * Speaks PIECES (each flushed) and ends. `drop` may cut the socket once that many audio messages have arrived:
   * the client stops reading (so the server's writes back up, as to a slow client far away), lets the server run for
   * `turns` turns of the event loop, then drops the connection: a half close (FIN, no close frame), after which the
   * server sends nothing more, while everything it had written still reaches this client, which reads on until the
   * server's own FIN. So what the client received is exactly what the server wrote.
   */
  async function session(query: string, drop?: { at: number; turns: number }): Promise<Realtime> {
    // The console's session: hundreds of sockets a minute, which a key's requests per minute would refuse.
    const rt = await openRealtime(t.url, path(query), { 'x-sid': c.sid! });
    const socket = (rt.ws as any)._socket as import('node:net').Socket;
    let audio = 0;
    let dropped = false;
    const cut = () => {
      if (dropped) return;
      dropped = true;
      socket.pause();
      let turns = drop!.turns;
      const later = () => {
        if (turns-- > 0) return void setImmediate(later);
        socket.end();
        socket.resume();
      };
      later();
    };
    if (drop && drop.at === 0) cut();
    rt.ws.on('message', (data) => {
      if (drop && typeof JSON.parse(String(data)).audio === 'string' && ++audio >= drop.at) cut();
    });
    rt.send({ text: ' ' });
    for (const text of PIECES) rt.send({ text, flush: true });
    rt.send({ text: '' });
    await rt.closed;
    return rt;
  }

  /** The balance as stored, read from the database itself. */
  const stored = async () =>
    Number(
      (await t.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirstOrThrow())
        .credits,
    );

  for (const [i, format] of FORMATS.entries())
    it(
      `charges a socket dropped at random points the characters of the messages it was sent, exactly (${format}, ${RUNS / 2 / FORMATS.length} drops)`,
      { timeout: 600_000 },
      async () => {
        const next = seededRandom((dialect === 'sqlite' ? 29 : 2029) + i);
        const totals = { charged: 0, delivered: 0, partial: 0, whole: 0, none: 0 };
        {
          const runs = RUNS / 2 / FORMATS.length;
          for (let run = 0; run < runs; run++) {
            const sync = (run + i) % 2 === 0;
            // Whole sessions have about 6 messages: the drop comes after 0 to 6 of them have arrived, a few turns later.
            const drop = { at: Math.floor(next() * 7), turns: Math.floor(next() * 4) };
            const before = await stored();
            const rt = await session(`output_format=${format}${sync ? '&sync_alignment=true' : ''}`, drop);
            await settled();
            const charged = before - (await stored());
            // The pieces as the client got them: each starts with its label (beside raw samples, or in the file's tags).
            const pieces: { messages: number; characters: number }[] = [];
            for (const m of rt.messages.filter((m) => typeof m.audio === 'string')) {
              if (pieceStart(m)) pieces.push({ messages: 0, characters: 0 });
              const piece = pieces.at(-1)!;
              piece.messages += 1;
              // With alignment the client counts them itself; without, each message says them.
              if (sync) expect(m.characters).toBe(charsOf(m));
              else expect(m.alignment).toBeNull();
              piece.characters += sync ? charsOf(m) : m.characters;
            }
            expect(pieces.length).toBeLessThanOrEqual(PIECES.length);
            // The isFinal, once a piece was whole, tells its last message came.
            const expected = pieces.reduce((sum, p, k) => {
              const whole = p.characters === countCharacters(PIECES[k]!);
              if (whole) totals.whole += 1;
              else totals.partial += 1;
              return sum + pieceCharge(PIECES[k]!, whole, p.characters);
            }, 0);
            totals.none += PIECES.length - pieces.length;
            expect({ format, sync, drop, charged }).toEqual({ format, sync, drop, charged: expected });
            totals.charged += charged;
            totals.delivered += expected;
          }
        }
        console.log(`realtime drops (${dialect}, ${format}): ${JSON.stringify(totals)}`);
        await ledgerAddsUp();
      },
    );

  it(
    'close_context frees its slot at once: 300 contexts opened and closed in turn on one socket all speak',
    { timeout: 600_000 },
    async () => {
      const rt = await openRealtime(t.url, path('output_format=pcm_16000', true), { 'xi-api-key': key.key });
      for (let i = 0; i < 300; i++) {
        rt.send({ text: ' ', context_id: `c${i}` });
        rt.send({ text: 'Hi.', context_id: `c${i}`, flush: true });
        rt.send({ context_id: `c${i}`, close_context: true });
      }
      await rt.next((m) => m.isFinal === true && m.contextId === 'c299');
      rt.send({ close_socket: true });
      expect((await rt.closed).code).toBe(1000);
      expect(rt.messages.filter((m) => typeof m.error === 'string')).toEqual([]);
      for (let i = 0; i < 300; i++) expect(audioOf(rt.messages, `c${i}`).length, `c${i}`).toBeGreaterThan(1000);
      await settled();
    },
  );

  it('a context_id reused after close_context opens a new context (after the old one’s audio); text for a closed id is answered', async () => {
    const rt = await openRealtime(t.url, path('output_format=pcm_16000&sync_alignment=true', true), {
      'xi-api-key': key.key,
    });
    rt.send({ text: ' ', context_id: 'x' });
    rt.send({ text: 'The first time. ', context_id: 'x', flush: true });
    rt.send({ context_id: 'x', close_context: true });
    rt.send({ text: ' ', context_id: 'x' });
    rt.send({ text: 'The second time.', context_id: 'x', flush: true });
    rt.send({ context_id: 'x', close_context: true });
    const first = await rt.next((m) => m.isFinal === true && m.contextId === 'x');
    const second = await rt.next((m) => m.isFinal === true && m.contextId === 'x', rt.messages.indexOf(first) + 1);
    const said = (from: number, to: number) =>
      rt.messages
        .slice(from, to)
        .filter((m) => typeof m.audio === 'string')
        .map((m) => m.alignment.chars.join(''))
        .join('');
    expect(said(0, rt.messages.indexOf(first))).toBe('The first time. ');
    expect(said(rt.messages.indexOf(first), rt.messages.indexOf(second))).toBe('The second time.');
    // Text for a context that is closed, without opening it again: an error naming it, never silence.
    rt.send({ text: 'Anyone there? ', context_id: 'x', flush: true });
    const error = await rt.next((m) => typeof m.error === 'string');
    expect(error).toMatchObject({ error: 'VALIDATION_FAILED', contextId: 'x' });
    rt.send({ close_socket: true });
    expect((await rt.closed).code).toBe(1000);
  });

  it('speaks a piece made only of break tags and a word', async () => {
    for (const multi of [false, true]) {
      const rt = await openRealtime(t.url, path('output_format=pcm_16000', multi), { 'xi-api-key': key.key });
      rt.send({ text: ' ' });
      rt.send({ text: '<break time="1s"/> <break time="1s"/> hello', flush: true });
      if (multi) rt.send({ close_socket: true });
      else rt.send({ text: '' });
      await rt.next((m) => m.isFinal === true);
      expect((await rt.closed).code).toBe(1000);
      expect(rt.messages.filter((m) => typeof m.error === 'string')).toEqual([]);
      // Two seconds of pause and the word.
      expect(audioOf(rt.messages).length / 32_000).toBeGreaterThan(2);
    }
  });

  it(`a one-character flush costs a minimum piece (${MIN_PIECE_CHARACTERS} characters), and a longer piece its characters`, async () => {
    const before = await balance();
    const rt = await openRealtime(t.url, path('output_format=pcm_16000'), { 'xi-api-key': key.key });
    rt.send({ text: ' ' });
    for (const ch of ['a', 'b', 'c']) rt.send({ text: ch, flush: true });
    rt.send({ text: '' });
    await rt.next((m) => m.isFinal === true);
    await settled();
    expect(before - (await balance())).toBe(3 * MIN_PIECE_CHARACTERS);
    const long = 'A sentence well over the minimum number of characters.';
    const middle = await balance();
    const again = await openRealtime(t.url, path('output_format=pcm_16000'), { 'xi-api-key': key.key });
    again.send({ text: ' ' });
    again.send({ text: long, flush: true });
    again.send({ text: '' });
    await again.next((m) => m.isFinal === true);
    await settled();
    expect(middle - (await balance())).toBe(countCharacters(long));
    await ledgerAddsUp();
  });
});
