import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@polyvox/contracts';
import { Client, signIn } from '../support/client.js';
import { givePlan } from '../support/economy.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { eventually, heldHolds, rawPost } from '../support/leave.js';
import { JFK_WAV, uploadSample } from '../support/design.js';

const TEXT = 'A quick preview of this voice.';

describe.each(DIALECTS)('voice design, security (%s)', (dialect) => {
  let t: TestApp;
  /** The previews' stored files: their audio, and timings whose audio is gone (none should be). */
  const previewFiles = async () => {
    const all = await t.ctx.storage.list('voice-previews');
    const timings = all.filter((k) => k.endsWith('.timings.json'));
    return {
      audio: all.filter((k) => !k.endsWith('.timings.json')).sort(),
      orphanTimings: timings.filter((k) => !all.includes(k.slice(0, -'.timings.json'.length))),
    };
  };
  let owner: Client;
  let other: Client;
  let ownerId: string;
  let otherId: string;
  let voiceId: string;
  let previewId: string;
  let sampleId: string;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', HOLD_SWEEP_SECONDS: '86400' } });
    owner = new Client(t.url);
    await owner.anonymous();
    ownerId = (await signIn(owner, t.outbox, `design-owner-${dialect}@example.com`)).id;
    await givePlan(t, ownerId); // saves more voices than the free plan's one
    other = new Client(t.url);
    await other.anonymous();
    otherId = (await signIn(other, t.outbox, `design-other-${dialect}@example.com`)).id;
    await givePlan(t, otherId);
    sampleId = (await uploadSample(owner, await fs.readFile(JFK_WAV), 'jfk.wav')).body.id;
    const preview = await owner.post('/voice/previews', {
      type: 'clone',
      model: 'flite',
      language: 'en',
      preview_text: TEXT,
      file_id: sampleId,
    });
    previewId = preview.body.id;
    // A second preview stays unactivated, for the other account to try.
    voiceId = (await owner.put('/voice', { type: 'clone', name: 'Owner voice', preview_id: previewId })).body.id;
    const spare = await owner.post('/voice/previews', {
      type: 'prompt',
      model: 'flite',
      language: 'en',
      preview_text: TEXT,
      prompt: 'a calm man',
    });
    previewId = spare.body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  /** Another account's object answers exactly as a missing one: same status, code and message. */
  async function sameAsMissing(
    theirs: Promise<{ status: number; body: any; headers: Headers }>,
    missing: Promise<{ status: number; body: any; headers: Headers }>,
  ) {
    const [a, b] = await Promise.all([theirs, missing]);
    expectError(a, b.body.error.code);
    expect({ status: a.status, code: a.body.error.code, message: a.body.error.message }).toEqual({
      status: b.status,
      code: b.body.error.code,
      message: b.body.error.message,
    });
    return a;
  }

  it("answers another account's voice, preview and sample as missing ones", async () => {
    const missingVoice = 'voice_0mwvmxd0n000x44xlzb3mqia';
    expect((await sameAsMissing(other.get(`/voice?id=${voiceId}`), other.get(`/voice?id=${missingVoice}`))).status).toBe(404);
    await sameAsMissing(
      other.request('PATCH', '/voice', { id: voiceId, name: 'Stolen' }),
      other.request('PATCH', '/voice', { id: missingVoice, name: 'Stolen' }),
    );
    await sameAsMissing(other.delete(`/voice?id=${voiceId}`), other.delete(`/voice?id=${missingVoice}`));
    await sameAsMissing(other.get(`/voice/preview/${voiceId}.mp3`), other.get(`/voice/preview/${missingVoice}.mp3`));
    await sameAsMissing(other.get(`/voice/previews/${previewId}/audio`), other.get('/voice/previews/prv_missing/audio'));
    await sameAsMissing(
      other.post('/tts', { text: 'Not yours.', voice_id: voiceId }),
      other.post('/tts', { text: 'Not yours.', voice_id: missingVoice }),
    );
    await sameAsMissing(
      other.post('/tts', { text: 'Not yours.', voice_id: voiceId, stream: true }),
      other.post('/tts', { text: 'Not yours.', voice_id: missingVoice, stream: true }),
    );
    await sameAsMissing(
      other.post('/tts/jobs', { text: 'Not yours.', voice_id: voiceId }),
      other.post('/tts/jobs', { text: 'Not yours.', voice_id: missingVoice }),
    );
    await sameAsMissing(
      other.post('/tts/estimate', { text: 'Not yours.', voice_id: voiceId }),
      other.post('/tts/estimate', { text: 'Not yours.', voice_id: missingVoice }),
    );
    await sameAsMissing(
      other.post('/v1/audio/speech', { model: 'tts-1', input: 'Not yours.', voice: voiceId }),
      other.post('/v1/audio/speech', { model: 'tts-1', input: 'Not yours.', voice: missingVoice }),
    );
    // ElevenLabs' routes, the timestamped ones too, whole and streamed (their body also carries ElevenLabs' `detail`).
    for (const suffix of ['', '/stream', '/with-timestamps', '/stream/with-timestamps']) {
      const [theirs, missing] = await Promise.all([
        other.post(`/v1/text-to-speech/${voiceId}${suffix}`, { text: 'Not yours.' }),
        other.post(`/v1/text-to-speech/${missingVoice}${suffix}`, { text: 'Not yours.' }),
      ]);
      expect(theirs.status, suffix).toBe(404);
      expect({ status: theirs.status, error: theirs.body.error?.code, message: theirs.body.error?.message }, suffix).toEqual({
        status: missing.status,
        error: missing.body.error?.code,
        message: missing.body.error?.message,
      });
    }
    const clone = (file_id: string) =>
      other.post('/voice/previews', { type: 'clone', model: 'flite', language: 'en', preview_text: TEXT, file_id });
    await sameAsMissing(clone(sampleId), clone('file_missing'));
    // Activation from another account's preview is refused like activation without one.
    const before = await t.ctx.credits.balance(otherId);
    await sameAsMissing(
      other.put('/voice', { type: 'prompt', name: 'Stolen', preview_id: previewId }),
      other.put('/voice', { type: 'prompt', name: 'Stolen', preview_id: 'prv_missing' }),
    );
    expect(await t.ctx.credits.balance(otherId)).toBe(before);
    expect((await other.get('/voice?source=mine')).body.total).toBe(0);
    expect((await other.get('/voice/previews')).body.total).toBe(0);
    // Nothing of the owner's changed.
    expect((await owner.get(`/voice?id=${voiceId}`)).body.name).toBe('Owner voice');
    expect((await owner.get(`/voice/previews/${previewId}/audio`)).status).toBe(200);
    expect(await t.ctx.credits.ledgerSum(ownerId)).toBe(await t.ctx.credits.balance(ownerId));
  });

  it('keeps prototype names out of every lookup', async () => {
    for (const id of ['__proto__', 'constructor', 'toString', 'voice___proto__', 'hasOwnProperty']) {
      expectError(await owner.get(`/voice?id=${id}`), 'NOT_FOUND');
      expectError(await owner.delete(`/voice?id=${id}`), 'NOT_FOUND');
      expectError(await owner.request('PATCH', '/voice', { id, name: 'x' }), 'NOT_FOUND');
      expectError(await owner.get(`/voice/previews/${id}/audio`), 'NOT_FOUND');
      expectError(await owner.put('/voice', { type: 'clone', name: 'x', preview_id: id }), 'PREVIEW_REQUIRED');
      expectError(await owner.post('/tts', { text: 'Hello.', voice_id: id }), 'NOT_FOUND');
      expectError(
        await owner.post('/voice/previews', { type: 'clone', model: 'flite', language: 'en', preview_text: TEXT, file_id: id }),
        'NOT_FOUND',
      );
      expectError(
        await owner.post('/voice/previews', { type: 'prompt', model: id, language: 'en', preview_text: TEXT, prompt: 'a voice' }),
        'VALIDATION_FAILED',
      );
      expectError(
        await owner.post('/voice/previews', {
          type: 'mix',
          model: 'espeak-ng',
          language: 'en',
          preview_text: TEXT,
          mix: [{ voice_id: id, weight: 1 }],
        }),
        'NOT_FOUND',
      );
    }
    const proto = await owner.request(
      'PUT',
      '/voice',
      JSON.parse(
        '{"type":"mix","name":"P","model":"espeak-ng","mix":[{"voice_id":"voice_espeak.en-us","weight":1}],"__proto__":{"type":"prompt"}}',
      ),
    );
    expect([201, 400]).toContain(proto.status);
    if (proto.status === 201) expect(proto.body.type).toBe('mix');
  });

  it('refuses NUL characters and oversized fields before any work', async () => {
    expectError(await owner.put('/voice', { type: 'prompt', name: 'a\u0000b', preview_id: previewId }), 'VALIDATION_FAILED');
    expectError(
      await owner.post('/voice/previews', {
        type: 'prompt',
        model: 'flite',
        language: 'en',
        preview_text: TEXT,
        prompt: 'calm\u0000',
      }),
      'VALIDATION_FAILED',
    );
    expectError(
      await owner.post('/voice/previews', {
        type: 'prompt',
        model: 'flite',
        language: 'en',
        preview_text: TEXT,
        prompt: 'x'.repeat(LIMITS.promptMaxLength + 1),
      }),
      'VALIDATION_FAILED',
    );
    expectError(await owner.request('PATCH', '/voice', { id: voiceId, name: 'y'.repeat(41) }), 'VALIDATION_FAILED');
    const form = new FormData();
    form.append('consent', 'true\u0000');
    form.append('file', new Blob([new Uint8Array(await fs.readFile(JFK_WAV))]), 'jfk.wav');
    expectError(await owner.post('/files_upload?type=clone', form), 'VALIDATION_FAILED');
  });

  it('numbers samples once each under concurrent uploads', async () => {
    const wav = await fs.readFile(JFK_WAV);
    const results = await Promise.all([1, 2, 3].map(() => uploadSample(other, wav, 'jfk.wav')));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(results.map((r) => r.body.index).sort()).toEqual([1, 2, 3]);
  });

  it('keeps the newest 50 previews per account under concurrent requests, deleting older ones with their audio', async () => {
    const c = new Client(t.url);
    await c.anonymous();
    const id = (await signIn(c, t.outbox, `design-many-${dialect}@example.com`)).id;
    const make = (i: number) =>
      c.post('/voice/previews', {
        type: 'prompt',
        model: 'espeak-ng',
        language: 'en',
        preview_text: `Preview number ${i % 5}.`,
        prompt: 'a calm voice',
      });
    const first = await make(0);
    expect(first.status).toBe(201);
    const made: number[] = [first.body.version];
    for (let batch = 0; batch < 11; batch++) {
      const results = await Promise.all([1, 2, 3, 4, 5].map((k) => make(batch * 5 + k)));
      for (const r of results) {
        expect(r.status).toBe(201);
        made.push(r.body.version);
      }
    }
    expect(new Set(made).size).toBe(56);
    // The oldest go once each answer is delivered and paid: the last prune may still be running.
    const count = async () =>
      (await t.ctx.db.kysely.selectFrom('voice_previews').select('id').where('account_id', '=', id).execute()).length;
    expect(await eventually(async () => (await count()) === LIMITS.previewVersions)).toBe(true);
    const rows = await t.ctx.db.kysely
      .selectFrom('voice_previews')
      .select(['version', 'storage_key'])
      .where('account_id', '=', id)
      .orderBy('version', 'desc')
      .execute();
    expect(rows).toHaveLength(LIMITS.previewVersions);
    const newest = [...made].sort((a, b) => b - a).slice(0, 50);
    expect(rows.map((r) => Number(r.version))).toEqual(newest);
    const all = await t.ctx.db.kysely.selectFrom('voice_previews').select('storage_key').execute();
    const keys = all.map((r) => r.storage_key).sort();
    const files = async () => (await previewFiles()).audio;
    await eventually(async () => JSON.stringify(await files()) === JSON.stringify(keys));
    expect(await files()).toEqual(keys);
    // The pruned versions' timings went with their audio.
    expect((await previewFiles()).orphanTimings).toEqual([]);
    expect((await c.get(`/voice/previews/${first.body.id}/audio`)).status).toBe(404);
    expect((await c.get('/voice/previews?page_size=100')).body.total).toBe(50);
    expect(await t.ctx.credits.ledgerSum(id)).toBe(await t.ctx.credits.balance(id));
  });

  it('releases the preview hold and keeps no version when the client leaves', async () => {
    const c = new Client(t.url);
    await c.anonymous();
    const id = (await signIn(c, t.outbox, `design-leaver-${dialect}@example.com`)).id;
    const before = await t.ctx.credits.balance(id);
    const long = Array.from({ length: 12 }, (_, i) => `Sentence ${i + 1} of a preview nobody waits for.`).join(' ');
    const { req } = rawPost(
      t.url,
      '/voice/previews',
      { type: 'prompt', model: 'gnuspeech', language: 'en', preview_text: long.slice(0, 300), prompt: 'an old man' },
      { 'x-sid': c.sid! },
    );
    req.on('error', () => {});
    expect(await eventually(async () => (await heldHolds(t, id)).length === 1, 300, 10)).toBe(true);
    req.destroy();
    expect(await eventually(async () => (await heldHolds(t, id)).length === 0)).toBe(true);
    expect(await t.ctx.credits.balance(id)).toBe(before);
    expect(await eventually(async () => (await c.get('/voice/previews')).body.total === 0)).toBe(true);
    const left = await previewFiles();
    expect(left.audio.length).toBe((await t.ctx.db.kysely.selectFrom('voice_previews').select('id').execute()).length);
    expect(left.orphanTimings).toEqual([]);
  });

  it('removes a half-received upload when the client leaves, and one a dead process left at the next start', async () => {
    const tempDir = path.join(t.dataDir, 'tmp', 'uploads');
    const boundary = '----polyvoxleave';
    const req = http.request(new URL('/files_upload?type=clone', t.url), {
      method: 'POST',
      headers: { 'x-sid': owner.sid!, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    req.on('error', () => {});
    req.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    );
    req.write(Buffer.alloc(2 * 1024 * 1024, 0x41));
    const growing = async () => (await fs.readdir(tempDir).catch(() => [])).length === 1;
    expect(await eventually(growing, 300, 10)).toBe(true);
    req.destroy();
    expect(await eventually(async () => (await fs.readdir(tempDir).catch(() => [])).length === 0)).toBe(true);

    await fs.writeFile(path.join(tempDir, 'file_left_by_a_crash.upload'), 'half');
    // Last in the file: the clients above speak to the old port.
    t = await t.restart();
    expect(await fs.readdir(tempDir).catch(() => [])).toEqual([]);
  });
});

describe.each(DIALECTS)('voice design, upload limit (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', SAMPLE_UPLOADS_PER_ACCOUNT_HOUR: '2' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('limits sample uploads per account, whoever else uploads', async () => {
    const c = new Client(t.url);
    await c.anonymous();
    const wav = await fs.readFile(JFK_WAV);
    expect((await uploadSample(c, wav, 'jfk.wav')).status).toBe(201);
    expectError(await uploadSample(c, Buffer.from('not audio'), 'a.wav'), 'UNSUPPORTED_FILE_TYPE');
    const refused = await uploadSample(c, wav, 'jfk.wav');
    expectError(refused, 'RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const d = new Client(t.url);
    await d.anonymous();
    expect((await uploadSample(d, wav, 'jfk.wav')).status).toBe(201);
  });
});
