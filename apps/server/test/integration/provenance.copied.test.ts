/**
 * A label vouches only for the sound it was written on: a genuine file's AIGC label (its ID3v2 tag, its LIST/INFO
 * chunk, its Ogg comment) copied onto a person's recording verifies as what it is (`aigc_valid: false`, no record,
 * not made here on the label's word), while the genuine file, whole or streamed, still verifies with its record, and
 * a re-encode of it (its label stripped, or kept on changed sound) is still found by the watermark.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { id3Size, opusWithComments, readAigcValues, wavWithInfo } from '@polyvox/speech/formats';
import { Client, signIn } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { ffmpegMake, JFK_MP3, JFK_WAV } from '../support/design.js';

const TEXT = 'The platform labels every file it makes. Check it.';

describe.each(DIALECTS)('a label copied onto other audio (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    // A fixed SECRET: the watermark's payload is then the same on every run (see provenance.happy.test.ts).
    t = await startTestApp(dialect, {
      env: { SPEECH_WORKERS: '1', VERIFY_PER_MINUTE: '1000', SECRET: 'provenance-copied-test-secret-1' },
    });
    c = new Client(t.url);
    await c.anonymous();
    const account = (await signIn(c, t.outbox, `copied-${dialect}@example.com`)) as { id: string };
    await givePlan(t, account.id);
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  async function speech(format: 'mp3' | 'wav' | 'opus', stream: boolean, text = TEXT): Promise<Buffer> {
    const res = await fetch(`${t.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid! },
      body: JSON.stringify({ text, voice_id: 'voice_flite.slt', format, stream }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`/tts: ${res.status} ${bytes.toString()}`);
    return bytes;
  }

  async function verify(bytes: Buffer, name: string) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), name);
    const res = await c.post('/provenance/verify', form);
    expect(res.status).toBe(200);
    return res.body;
  }

  /** The one AIGC value a file carries. */
  const labelOf = (bytes: Buffer) => {
    const values = readAigcValues(bytes);
    expect(values).toHaveLength(1);
    return values[0]!;
  };

  /** What a copied label must verify as: a label that checks nothing, no record, not made here on its word. */
  function expectCopied(body: Record<string, unknown>, label: string) {
    expect(body).toMatchObject({ ai_generated: false, aigc_valid: false, watermark: { detected: false } });
    expect(JSON.stringify(body.aigc)).toBe(label);
    expect(body.record).toBeUndefined();
  }

  it.each([false, true])('mp3 (streamed: %s): its ID3 tag copied onto a person`s mp3 binds nothing', async (stream) => {
    const genuine = await speech('mp3', stream);
    const mine = await verify(genuine, 'genuine.mp3');
    expect(mine).toMatchObject({ ai_generated: true, aigc_valid: true });
    expect(mine.record.produce_id).toBe(mine.aigc.ProduceID);
    // The whole tag, as a tag editor copies it (with the C2PA manifest it holds, for a whole file).
    const tag = genuine.subarray(0, id3Size(genuine));
    const copied = Buffer.concat([tag, await fs.readFile(JFK_MP3)]);
    const body = await verify(copied, 'copied.mp3');
    expectCopied(body, labelOf(genuine));
    // The manifest came along but its hash is over other bytes: it vouches for nothing either.
    if (!stream) expect(body.c2pa).toMatchObject({ present: true, valid: false });
  });

  it.each([false, true])('wav (streamed: %s): its label chunk copied onto a person`s wav binds nothing', async (stream) => {
    const genuine = await speech('wav', stream);
    expect(await verify(genuine, 'genuine.wav')).toMatchObject({ ai_generated: true, aigc_valid: true, record: {} });
    const copied = Buffer.from(wavWithInfo(await fs.readFile(JFK_WAV), [['AIGC', labelOf(genuine)]]));
    const body = await verify(copied, 'copied.wav');
    expectCopied(body, labelOf(genuine));
    expect(body.c2pa).toBeNull();
  });

  it('opus (streamed): its comment copied onto a person`s Ogg Opus binds nothing', async () => {
    const genuine = await speech('opus', true);
    expect(await verify(genuine, 'genuine.ogg')).toMatchObject({ ai_generated: true, aigc_valid: true, record: {} });
    const human = await ffmpegMake(['-i', JFK_WAV, '-c:a', 'libopus', '-b:a', '32k', '-map_metadata', '-1'], 'ogg');
    const copied = Buffer.from(opusWithComments(human, [`AIGC=${labelOf(genuine)}`]));
    expectCopied(await verify(copied, 'copied.ogg'), labelOf(genuine));
  });

  it('finds a re-encoded genuine file by its watermark, its label stripped or kept on the changed sound', async () => {
    // Several sentences: the payload that names the record needs about 15 s of sound (docs/provenance.md).
    const genuine = await speech('mp3', false, `${TEXT} `.repeat(6));
    const produceId = JSON.parse(labelOf(genuine)).ProduceID as string;
    const input = path.join(t.dataDir, 'genuine.mp3');
    await fs.writeFile(input, genuine);
    for (const keep of [false, true]) {
      const strip = keep ? [] : ['-map_metadata', '-1'];
      const again = await ffmpegMake(['-i', input, ...strip, '-c:a', 'libmp3lame', '-b:a', '64k'], 'mp3');
      expect(readAigcValues(again), `label kept: ${keep}`).toHaveLength(keep ? 1 : 0);
      const body = await verify(again, 'reencoded.mp3');
      expect(body).toMatchObject({ ai_generated: true, aigc_valid: false, watermark: { detected: true, payload_found: true } });
      // The sound itself names the content (an earlier rendering of the same text may share its payload).
      expect(body.record).toMatchObject({ type: 'tts', voice_id: 'voice_flite.slt' });
      const row = await t.ctx.provenance.marks.byProduceId(produceId);
      expect(row?.payload).not.toBeNull();
      expect((await t.ctx.provenance.marks.byProduceId(body.record.produce_id))?.payload).toBe(row?.payload);
    }
  });
});
