/**
 * Provenance on every way audio leaves: each file and stream of `POST /tts` (mp3, wav, opus, pcm) and of the OpenAI
 * route carries exactly one AIGC field with a valid integrity code (pcm: in `x-aigc`), whole wav and mp3 files a
 * valid C2PA manifest, and a record; the public check reads it all back and shows the record to its maker alone.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FFMPEG } from '@polyvox/speech';
import { parseAigc, readAigcValues } from '@polyvox/speech/formats';
import { checkRecord } from '../../src/provenance/aigc.js';
import { runAdmin } from '../../src/admin/cli.js';
import { readC2pa } from '../../src/provenance/c2pa-read.js';
import { Client, signIn } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';
import { JFK_WAV, uploadSample } from '../support/design.js';

/** The bytes ffmpeg makes of `input` with `args` (a user's own re-encode). */
async function reencode(input: Buffer, args: string[], ext: string): Promise<Buffer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-reencode-'));
  try {
    await fs.writeFile(path.join(dir, 'in'), input);
    const out = path.join(dir, `out.${ext}`);
    const res = spawnSync(FFMPEG, ['-v', 'error', '-i', path.join(dir, 'in'), ...args, out]);
    if (res.status !== 0) throw new Error(res.stderr.toString());
    return await fs.readFile(out);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const FIXTURES = path.resolve(import.meta.dirname, '../../../../fixtures/speech');
const TEXT = 'The platform labels every file it makes. Check it.';

describe.each(DIALECTS)('provenance of every file (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let other: Client;
  let accountId: string;
  beforeAll(async () => {
    // A fixed SECRET: the watermark and its payload (keyed from it) are then the same on every run, so a test that reads
    // a payload back after a re-encode gives the same answer every time. How often payloads survive a re-encode over
    // many keys and texts is a rate, measured by the bench (`npx tsx bench/run.ts --only watermark`), not here.
    t = await startTestApp(dialect, {
      env: { SPEECH_WORKERS: '1', VERIFY_PER_MINUTE: '1000', SECRET: 'provenance-happy-test-secret-1' },
    });
    c = new Client(t.url);
    await c.anonymous();
    accountId = ((await signIn(c, t.outbox, `labels-${dialect}@example.com`)) as { id: string }).id;
    await givePlan(t, accountId);
    other = new Client(t.url);
    await other.anonymous();
  }, 240_000);
  afterAll(async () => {
    await t?.close();
  });

  async function audio(url: string, body: unknown, who: Client = c) {
    const res = await fetch(`${t.url}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': who.sid! },
      body: JSON.stringify(body),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${bytes.toString()}`);
    return { headers: res.headers, bytes };
  }

  async function verify(bytes: Buffer, who: Client = c, name = 'audio.bin') {
    const form = new FormData();
    form.append('file', new Blob([bytes]), name);
    return who.post('/provenance/verify', form);
  }

  const MIME = { mp3: 'audio/mpeg', wav: 'audio/wav' } as const;

  it.each(['mp3', 'wav', 'opus'] as const)(
    'labels a whole %s and a streamed one, each with one valid AIGC field',
    async (format) => {
      for (const stream of [false, true]) {
        const { bytes } = await audio('/tts', { text: TEXT, voice_id: 'voice_flite.slt', format, stream });
        const values = readAigcValues(bytes);
        expect(values, `${format} stream=${stream}`).toHaveLength(1);
        const record = parseAigc(values[0]!)!;
        expect(record.Label).toBe('1');
        expect(record.ContentProducer).toBe('Polyvox');
        expect(record.ProduceID).toMatch(/^aigc_/);
        expect(checkRecord(t.ctx.provenance.aigcKey, record)).toBe(true);
        // Still the audio it was: ffmpeg decodes the labelled (and signed) file whole.
        expect(await decodedSeconds(bytes)).toBeGreaterThan(1.5);
        const row = await t.ctx.provenance.marks.byProduceId(record.ProduceID);
        expect(row).toMatchObject({ account_id: accountId, voice_id: 'voice_flite.slt', voice_kind: 'library', engine: 'flite' });
        if (format !== 'opus' && !stream) {
          const c2pa = await readC2pa(bytes, MIME[format]);
          expect(c2pa).toMatchObject({ present: true, valid: true, produceId: record.ProduceID, voiceKind: 'library' });
        }
      }
    },
  );

  it('sends the label of raw PCM in x-aigc, whole and streamed, and of the OpenAI route', async () => {
    for (const stream of [false, true]) {
      const { headers, bytes } = await audio('/tts', { text: TEXT, voice_id: 'voice_flite.slt', format: 'pcm', stream });
      const record = parseAigc(headers.get('x-aigc') ?? '')!;
      expect(record).not.toBeNull();
      expect(checkRecord(t.ctx.provenance.aigcKey, record)).toBe(true);
      expect(readAigcValues(bytes)).toEqual([]);
    }
    const openai = await audio('/v1/audio/speech', { model: 'tts-1', input: TEXT, voice: 'alloy', response_format: 'mp3' });
    const record = parseAigc(readAigcValues(openai.bytes)[0]!)!;
    expect((await t.ctx.provenance.marks.byProduceId(record.ProduceID))?.record_type).toBe('api');
  });

  it('checks a file for anyone, and shows which record it was to its maker only', async () => {
    const { bytes } = await audio('/tts', { text: TEXT, voice_id: 'voice_flite.slt', format: 'wav' });
    const mine = await verify(bytes, c, 'speech.wav');
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({
      ai_generated: true,
      aigc_valid: true,
      c2pa: { present: true, valid: true },
      record: { voice_id: 'voice_flite.slt', type: 'tts', api_key_id: null },
    });
    expect(mine.body.aigc.ProduceID).toBe(mine.body.record.produce_id);
    // A few seconds show the mark; its payload needs about 15 s (the next test's file).
    expect(mine.body.watermark).toMatchObject({ detected: true });
    expect(mine.body.watermark.false_alarm_rate).toBeLessThan(1e-6);
    const theirs = await verify(bytes, other, 'speech.wav');
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ ai_generated: true, aigc_valid: true });
    expect(theirs.body.record).toBeUndefined();
  });

  it('finds the watermark in a file whose metadata a re-encode stripped, and its record by the payload', async () => {
    const { bytes } = await audio('/tts', { text: `${TEXT} `.repeat(6), voice_id: 'voice_espeak.en-us', format: 'wav' });
    const stripped = await reencode(bytes, ['-map_metadata', '-1', '-c:a', 'libmp3lame', '-b:a', '64k'], 'mp3');
    expect(readAigcValues(stripped)).toEqual([]);
    const res = await verify(stripped, c, 'reencoded.mp3');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ai_generated: true, aigc: null, c2pa: null, watermark: { detected: true } });
    expect(res.body.record).toMatchObject({ voice_id: 'voice_espeak.en-us', type: 'tts' });
    // The same file checked by someone else: made here, but not theirs to know by whom.
    const theirs = await verify(stripped, other, 'reencoded.mp3');
    expect(theirs.body.ai_generated).toBe(true);
    expect(theirs.body.record).toBeUndefined();
  });

  it('tells the operator who made a file, from the file alone, even stripped of its metadata', async () => {
    const { bytes } = await audio('/tts', { text: `${TEXT} `.repeat(6), voice_id: 'voice_espeak.en-us', format: 'mp3' });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-admin-'));
    try {
      const env = {
        DATA_DIR: t.dataDir,
        ...(t.ctx.config.DATABASE_URL ? { DATABASE_URL: t.ctx.config.DATABASE_URL } : {}),
        ...(t.ctx.config.SECRET ? { SECRET: t.ctx.config.SECRET } : {}),
      };
      const run = async (file: string) => {
        const out: string[] = [];
        const code = await runAdmin(['provenance', file], env, { out: (l) => out.push(l), err: (l) => out.push(l) });
        return { code, text: out.join('\n') };
      };
      await fs.writeFile(path.join(dir, 'labelled.mp3'), bytes);
      const labelled = await run(path.join(dir, 'labelled.mp3'));
      expect(labelled.code).toBe(0);
      expect(labelled.text).toContain('integrity checks out');
      expect(labelled.text).toContain(`labels-${dialect}@example.com`);
      expect(labelled.text).toContain('voice_espeak.en-us (library, espeak)');
      await fs.writeFile(path.join(dir, 'stripped.mp3'), await reencode(bytes, ['-map_metadata', '-1', '-b:a', '64k'], 'mp3'));
      const stripped = await run(path.join(dir, 'stripped.mp3'));
      expect(stripped.code).toBe(0);
      expect(stripped.text).toMatch(/watermark\s+found/);
      expect(stripped.text).toContain(`labels-${dialect}@example.com`);
      await fs.copyFile(JFK_WAV, path.join(dir, 'person.wav'));
      const person = await run(path.join(dir, 'person.wav'));
      expect(person.code).toBe(1);
      expect(person.text).toContain('Made by this server: no');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('records a clone sample that is a re-encoded download of ours as synthetic, and a person as not', async () => {
    const { bytes } = await audio('/tts', { text: `${TEXT} `.repeat(6), voice_id: 'voice_espeak.en-us', format: 'wav' });
    const stripped = await reencode(bytes, ['-map_metadata', '-1', '-c:a', 'libmp3lame', '-b:a', '64k'], 'mp3');
    const ours = await uploadSample(c, stripped, 'mine.mp3', { mime: 'audio/mpeg' });
    expect(ours.status).toBe(201);
    expect(ours.body.synthetic).toBe(true);
    const row = await t.ctx.db.kysely
      .selectFrom('voice_samples')
      .selectAll()
      .where('id', '=', ours.body.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.synthetic!)).toMatchObject({ watermark: true });
    expect(row.sha256).toMatch(/^[0-9a-f]{64}$/);
    const person = await uploadSample(c, await fs.readFile(JFK_WAV), 'person.wav');
    expect(person.status).toBe(201);
    expect(person.body.synthetic).toBe(false);
  });

  it('tells an edited label and a human recording from ours', async () => {
    // Three sentences (about 10 s): the mark's payload needs several seconds of sound (docs/provenance.md).
    const { bytes } = await audio('/tts', { text: `${TEXT} `.repeat(3), voice_id: 'voice_flite.slt', format: 'mp3' });
    // The producer's name changed in place, same length: the integrity code no longer matches, the C2PA hash neither.
    const at = bytes.indexOf('"Polyvox"');
    const edited = Buffer.from(bytes);
    edited.write('"Polyfox"', at, 'latin1');
    const res = await verify(edited, c, 'edited.mp3');
    expect(res.status).toBe(200);
    expect(res.body.aigc.ContentProducer).toBe('Polyfox');
    expect(res.body.aigc_valid).toBe(false);
    expect(res.body.c2pa).toMatchObject({ present: true, valid: false, validation_state: 'Invalid' });
    // The edited label names no record; the sound's own payload still finds one, for the account that made it: the
    // payload names the content, so an earlier rendering of the same text (whose mark a cached replay carries) may be it.
    expect(res.body.watermark).toMatchObject({ detected: true, payload_found: true });
    expect(res.body.record).toMatchObject({ type: 'tts', voice_id: 'voice_flite.slt' });
    expect(res.body.record.produce_id).toMatch(/^aigc_/);

    const human = await fs.readFile(path.join(FIXTURES, 'LJ001-0001.wav'));
    const check = await verify(human, c, 'human.wav');
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ ai_generated: false, aigc: null, aigc_valid: false, c2pa: null });
    expect(check.body.watermark.detected).toBe(false);
  });

  it('checks a job file by its address on this server, as its owner may read it', async () => {
    const long = `${TEXT} `.repeat(8);
    const created = await c.post('/tts/jobs', { text: long, voice_id: 'voice_flite.slt', format: 'mp3' });
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    let job = created.body;
    // Until it ends, however long a loaded machine takes (the test's own timeout bounds it).
    while (job.status === 'queued' || job.status === 'running') {
      await new Promise((r) => setTimeout(r, 200));
      job = (await c.get(`/tts/jobs/${id}`)).body;
    }
    expect(job.status).toBe('succeeded');
    const res = await c.post('/provenance/verify', { url: job.audio_url });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ai_generated: true, aigc_valid: true, c2pa: { valid: true }, record: { type: 'tts' } });
    // Another visitor may not read the job's file, so may not have it checked by address either.
    expect((await other.post('/provenance/verify', { url: job.audio_url })).status).toBe(404);
  }, 240_000);
});
