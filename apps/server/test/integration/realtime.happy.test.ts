/** ElevenLabs' realtime protocol over a WebSocket: each message and query parameter doing what ElevenLabs documents. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds } from '../support/leave.js';
import { audioOf, openRealtime } from '../support/realtime.js';
import { parseWavHeader, readAigcValues } from '@polyvox/speech/formats';
import { decodedSeconds, measureS16 } from '../support/audio.js';

const VOICE = 'voice_espeak.en-us';
const path = (query = '', multi = false) =>
  `/v1/text-to-speech/${VOICE}/${multi ? 'multi-stream-input' : 'stream-input'}${query}`;

/** Each audio message's characters, ordered and timed from that message's own start. */
function expectChunkAlignment(m: any): void {
  for (const a of [m.alignment, m.normalizedAlignment]) {
    expect(a.chars.length).toBe(a.charStartTimesMs.length);
    expect(a.chars.length).toBe(a.charDurationsMs.length);
    expect(a.charsStartTimesMs).toEqual(a.charStartTimesMs);
    expect(a.charsDurationsMs).toEqual(a.charDurationsMs);
    expect(a.char_start_times_ms).toEqual(a.charStartTimesMs);
    expect(a.chars_durations_ms).toEqual(a.charDurationsMs);
    for (let i = 1; i < a.charStartTimesMs.length; i++)
      expect(a.charStartTimesMs[i]).toBeGreaterThanOrEqual(a.charStartTimesMs[i - 1]);
    if (a.charStartTimesMs.length) expect(a.charStartTimesMs[0]).toBeLessThan(1500);
  }
}

describe.each(DIALECTS)('realtime text to speech over a WebSocket (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let accountId: string;
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 100_000, 'realtime'));
    accountId = (await c.get('/accounts/me')).body.id;
  });
  afterAll(async () => {
    await t.close();
  });
  const balance = async () => (await c.get('/accounts/me')).body.vip.credits as number;
  const records = async () => (await c.get(`/api/credits/records?api_key=${key.id}&page_size=100`)).body.items as any[];

  it('voice_settings of the opening message are heard: stability 0 swings the pitch wider than 1, on both sockets', async () => {
    const SPOKEN = 'Do you really think so? I was sure the weather would hold until the evening, but look at it now!';
    const f0 = (pcm: Buffer) => measureS16(pcm).f0RangeSemitones;
    const single = async (stability: number) => {
      const rt = await openRealtime(t.url, path('?output_format=pcm_24000'), { 'xi-api-key': key.key });
      rt.send({ text: ' ', voice_settings: { stability, similarity_boost: 0.75 } });
      rt.send({ text: SPOKEN, flush: true });
      rt.send({ text: '' });
      await rt.next((m) => m.isFinal === true);
      return f0(audioOf(rt.messages));
    };
    expect(await single(0)).toBeGreaterThan((await single(1)) * 1.3);
    const rt = await openRealtime(t.url, path('?output_format=pcm_24000', true), { 'xi-api-key': key.key });
    rt.send({ text: ' ', context_id: 'loose', voice_settings: { stability: 0, style: 0.5 } });
    rt.send({ text: ' ', context_id: 'steady', voice_settings: { stability: 1 } });
    for (const id of ['loose', 'steady']) rt.send({ text: SPOKEN, context_id: id, flush: true });
    for (const id of ['loose', 'steady']) rt.send({ context_id: id, close_context: true });
    await rt.next((m) => m.isFinal === true && m.contextId === 'loose');
    await rt.next((m) => m.isFinal === true && m.contextId === 'steady');
    rt.send({ close_socket: true });
    expect(f0(audioOf(rt.messages, 'loose'))).toBeGreaterThan(f0(audioOf(rt.messages, 'steady')) * 1.3);
  });

  it('speaks text sent in pieces once the schedule is met, flushes, closes with empty text, and charges what it spoke', async () => {
    const before = await balance();
    const rt = await openRealtime(t.url, path('?output_format=pcm_16000&sync_alignment=true'), { 'xi-api-key': key.key });
    rt.send({
      text: ' ',
      voice_settings: { stability: 0.5, similarity_boost: 0.8, speed: 1 },
      generation_config: { chunk_length_schedule: [50] },
    });
    // Under the schedule's 50 characters: nothing yet.
    for (const piece of ['Hello ', 'there, ', 'this is ', 'Polyvox ']) rt.send({ text: piece });
    rt.send({ text: 'speaking as an LLM writes, ', try_trigger_generation: false });
    const first = await rt.next((m) => typeof m.audio === 'string');
    expect(first.isFinal).toBe(false);
    expectChunkAlignment(first);
    rt.send({ text: 'and then a flush.', flush: true });
    rt.send({ text: '' });
    const final = await rt.next((m) => m.isFinal === true);
    expect(final.is_final).toBe(true);
    expect((await rt.closed).code).toBe(1000);
    const audio = rt.messages.filter((m) => typeof m.audio === 'string');
    for (const m of audio) expectChunkAlignment(m);
    const spoken = audio.map((m) => m.alignment.chars.join('')).join('');
    expect(spoken).toBe('Hello there, this is Polyvox speaking as an LLM writes, and then a flush.');
    // 16 kHz 16-bit PCM: whole samples, about as long as the text takes to say.
    // Raw samples: their AIGC label beside them, on each piece's first message.
    expect(typeof first.aigc).toBe('string');
    const pcm = audioOf(rt.messages);
    expect(pcm.length % 2).toBe(0);
    expect(pcm.length / 2 / 16000).toBeGreaterThan(2);
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    const charged = before - (await balance());
    expect(charged).toBeGreaterThan(0);
    expect((await records()).length).toBeGreaterThanOrEqual(2);
  });

  it('runs several contexts on one multi-stream socket, with flush_done, close_context and close_socket', async () => {
    const rt = await openRealtime(t.url, path('?output_format=mp3_44100_128&sync_alignment=true', true), {
      'xi-api-key': key.key,
    });
    rt.send({ text: ' ', context_id: 'a', voice_settings: { speed: 1.1 } });
    rt.send({ text: ' ', context_id: 'b' });
    rt.send({ text: 'First context speaks. ', context_id: 'a', flush: true });
    rt.send({ text: 'Second context speaks too. ', context_id: 'b', flush: true });
    const doneA = await rt.next((m) => m.type === 'flush_done' && m.contextId === 'a');
    await rt.next((m) => m.type === 'flush_done' && m.contextId === 'b');
    const indexA = rt.messages.indexOf(doneA);
    expect(rt.messages.slice(0, indexA).some((m) => m.audio && m.contextId === 'a')).toBe(true);
    // A keep-alive, then text left unflushed in a closed context: never spoken.
    rt.send({ text: '', context_id: 'a' });
    rt.send({ text: 'never said ', context_id: 'a' });
    rt.send({ context_id: 'a', close_context: true });
    const finalA = await rt.next((m) => m.isFinal === true && m.contextId === 'a');
    expect(finalA.context_id).toBe('a');
    rt.send({ close_socket: true });
    await rt.next((m) => m.isFinal === true && m.contextId === 'b');
    expect((await rt.closed).code).toBe(1000);
    const a = rt.messages.filter((m) => m.audio && m.contextId === 'a');
    expect(a.map((m) => m.alignment.chars.join('')).join('')).toBe('First context speaks. ');
    const mp3 = audioOf(rt.messages, 'b');
    expect(mp3.length).toBeGreaterThan(1000);
  });

  for (const sync of [false, true])
    it(`wav_* is one WAV file per stream: the header (with its label) on the first audio message only${sync ? ' (sync_alignment)' : ''}`, async () => {
      const rt = await openRealtime(t.url, path(`?output_format=wav_16000${sync ? '&sync_alignment=true' : ''}`), {
        'xi-api-key': key.key,
      });
      rt.send({ text: ' ' });
      rt.send({ text: 'The first piece of the file. ', flush: true });
      await rt.next((m) => typeof m.audio === 'string');
      rt.send({ text: 'The second piece follows it in the same file.', flush: true });
      rt.send({ text: '' });
      await rt.next((m) => m.isFinal === true);
      const messages = rt.messages.filter((m) => typeof m.audio === 'string');
      const wav = audioOf(rt.messages);
      // One header, at the start; every other message is samples.
      expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
      expect(messages.filter((m) => Buffer.from(m.audio, 'base64').subarray(0, 4).toString('latin1') === 'RIFF')).toHaveLength(1);
      const info = parseWavHeader(wav)!;
      expect(info).toMatchObject({ sampleRate: 16_000, channels: 1, bitsPerSample: 16 });
      expect(readAigcValues(wav)).toHaveLength(1);
      expect((wav.length - info.dataOffset) % 2).toBe(0);
      // Both pieces decode from the one file, as long as their samples say.
      const samplesSeconds = (wav.length - info.dataOffset) / 2 / 16_000;
      expect(samplesSeconds).toBeGreaterThan(3);
      expect(Math.abs((await decodedSeconds(wav)) - samplesSeconds)).toBeLessThan(0.05);
      // Each piece's label beside its samples too, as raw samples carry it.
      expect(messages.filter((m) => typeof m.aigc === 'string').length).toBe(2);
    });

  it('wav_* on multi-stream-input: each context is its own file, its header on its first message', async () => {
    const rt = await openRealtime(t.url, path('?output_format=wav_24000', true), { 'xi-api-key': key.key });
    for (const id of ['a', 'b']) {
      rt.send({ text: ' ', context_id: id });
      rt.send({ text: `Context ${id} speaks once. `, context_id: id, flush: true });
      rt.send({ text: `Context ${id} speaks twice.`, context_id: id, flush: true });
      rt.send({ context_id: id, close_context: true });
    }
    await rt.next((m) => m.isFinal === true && m.contextId === 'a');
    await rt.next((m) => m.isFinal === true && m.contextId === 'b');
    rt.send({ close_socket: true });
    for (const id of ['a', 'b']) {
      const wav = audioOf(rt.messages, id);
      expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
      expect(wav.indexOf('RIFF', 4, 'latin1')).toBe(-1);
      expect(parseWavHeader(wav)!.sampleRate).toBe(24_000);
      expect(await decodedSeconds(wav)).toBeGreaterThan(1.5);
    }
  });

  it('speaks each sentence as it ends with auto_mode, in the order sent', async () => {
    const rt = await openRealtime(t.url, path('?auto_mode=true&output_format=ulaw_8000&sync_alignment=true'), {
      'xi-api-key': key.key,
    });
    rt.send({ text: ' ' });
    rt.send({ text: 'One. ' });
    await rt.next((m) => typeof m.audio === 'string');
    rt.send({ text: 'Two. Three' });
    rt.send({ text: '' });
    await rt.next((m) => m.isFinal === true);
    const said = rt.messages
      .filter((m) => m.audio)
      .map((m) => m.alignment.chars.join(''))
      .join('');
    expect(said).toBe('One. Two. Three');
    // G.711: a byte a sample at 8 kHz.
    expect(audioOf(rt.messages).length / 8000).toBeGreaterThan(0.8);
  });

  it('streams audio as it is made without sync_alignment, charged once all of it is out', async () => {
    const before = await balance();
    const rt = await openRealtime(t.url, path('?output_format=mp3_22050_32'), { 'xi-api-key': key.key });
    rt.send({ text: ' ' });
    rt.send({ text: 'Streamed as it is made, ' });
    rt.send({ text: 'without alignment.', flush: true });
    rt.send({ text: '' });
    await rt.next((m) => m.isFinal === true);
    expect((await rt.closed).code).toBe(1000);
    const audio = rt.messages.filter((m) => typeof m.audio === 'string');
    expect(audio.length).toBeGreaterThan(1);
    for (const m of audio) {
      expect(m.alignment).toBeNull();
      expect(m.normalizedAlignment).toBeNull();
    }
    // One mp3 stream, labelled at its start.
    const mp3 = audioOf(rt.messages);
    expect(mp3.subarray(0, 3).toString('latin1')).toBe('ID3');
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    expect(before - (await balance())).toBe(
      (await c.post('/tts/estimate', { text: 'Streamed as it is made, without alignment.', voice_id: VOICE })).body.credits,
    );
  });

  it('applies the dictionaries the opening message names, and ElevenLabs’ <break> however the text is cut', async () => {
    const dict = (
      await c.post('/v1/pronunciation-dictionaries/add-from-rules', {
        name: 'Realtime',
        rules: [{ type: 'alias', string_to_replace: 'UN', alias: 'United Nations' }],
      })
    ).body;
    const locators = [{ pronunciation_dictionary_id: dict.id, version_id: dict.version_id }];
    const speak = async (pieces: string[], opening: object) => {
      const rt = await openRealtime(t.url, path('?output_format=pcm_16000&sync_alignment=true'), { 'xi-api-key': key.key });
      rt.send({ text: ' ', generation_config: { chunk_length_schedule: [20] }, ...opening });
      for (const text of pieces) rt.send({ text });
      rt.send({ text: '' });
      await rt.next((m) => m.isFinal === true);
      const heard = rt.messages.filter((m) => typeof m.audio === 'string');
      return {
        seconds: audioOf(rt.messages).length / 32000,
        normalized: heard.map((m) => m.normalizedAlignment.chars.join('')).join(''),
        said: heard.map((m) => m.alignment.chars.join('')).join(''),
      };
    };
    // The schedule's cut (20 characters) would fall inside the tag, which is sent in three messages.
    const pieces = ['The UN met today <break ', 'time="1.5s" ', '/> and then it rested.'];
    const ruled = await speak(pieces, { pronunciation_dictionary_locators: locators });
    expect(ruled.normalized).toContain('United Nations');
    expect(ruled.normalized).not.toContain('break');
    expect(ruled.said).toContain('The UN met');
    const plain = await speak(['The UN met today and then it rested.'], { pronunciation_dictionary_locators: [] });
    expect(plain.normalized).not.toContain('United Nations');
    // The alias's words and the 1.5 s pause: over 1.5 s longer.
    expect(ruled.seconds).toBeGreaterThan(plain.seconds + 1.5);

    // A dictionary the caller may not read: NOT_FOUND, before anything is spoken.
    const rt = await openRealtime(t.url, path('?output_format=pcm_16000'), { 'xi-api-key': key.key });
    rt.send({ text: ' ', pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'pd_nope' }] });
    rt.send({ text: 'Hello there.', flush: true });
    expect(await rt.next((m) => typeof m.error === 'string')).toMatchObject({ error: 'NOT_FOUND', code: 404 });
    expect((await rt.closed).code).toBe(1008);
    expect(rt.messages.some((m) => typeof m.audio === 'string')).toBe(false);
  });

  it('documents both sockets in the OpenAPI document, in prose with examples', async () => {
    const doc = (await c.get('/openapi.json')).body;
    for (const route of ['stream-input', 'multi-stream-input']) {
      const op = doc.paths[`/v1/text-to-speech/{voice_id}/${route}`]?.get;
      expect(op, route).toBeDefined();
      expect(op.description).toContain('WebSocket');
      expect(op.description).toContain('chunk_length_schedule');
    }
    expect(doc.paths['/v1/text-to-speech/{voice_id}/multi-stream-input'].get.description).toContain('flush_done');
  });

  it('takes the key in the query and a session in x-sid', async () => {
    const byQuery = await openRealtime(t.url, path(`?xi_api_key=${key.key}`));
    byQuery.send({ text: ' ' });
    byQuery.send({ text: 'Hi.', flush: true });
    await byQuery.next((m) => typeof m.audio === 'string');
    byQuery.ws.close();
    const sid = c.sid!;
    const bySession = await openRealtime(t.url, path(), { 'x-sid': sid });
    bySession.send({ text: ' ' });
    bySession.send({ text: 'Hello from the console.' });
    bySession.send({ text: '' });
    await bySession.next((m) => m.isFinal === true);
    expect(bySession.messages.some((m) => m.audio)).toBe(true);
  });
});
