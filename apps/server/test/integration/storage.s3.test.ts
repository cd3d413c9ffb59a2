import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, signIn } from '../support/client.js';
import { DIALECTS, startPeer, startTestApp, type TestApp } from '../support/app.js';
import { eventually, longText } from '../support/leave.js';
import { JFK_WAV, uploadSample } from '../support/design.js';
import { startS3Server, type TestS3 } from '../support/s3.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}

/** The whole app with S3_URL set: every file it keeps lands in the bucket, and is served back through the API. */
describe.each(DIALECTS)('files in an S3 bucket (%s)', (dialect) => {
  let s3: TestS3;
  let t: TestApp;
  let c: Client;
  const PREFIX = 'polyvox';

  beforeAll(async () => {
    s3 = await startS3Server();
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' }, s3: { url: `${s3.url}/${PREFIX}?region=us-east-1` } });
    c = new Client(t.url);
    await c.anonymous();
    await signIn(c, t.outbox, `s3-${dialect}@example.com`);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  /** Raw bytes of a GET through the API, with the session. */
  const fetchBytes = async (url: string, headers: Record<string, string> = {}, sid = c.sid!) => {
    const res = await fetch(new URL(url, t.url), { headers: { 'x-sid': sid, ...headers } });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };

  it('stores a clone sample, its preview, a library preview and a job in the bucket, and serves them back', async () => {
    expect(t.ctx.storage.kind).toBe('s3');
    const wav = await fs.readFile(JFK_WAV);
    const sample = await uploadSample(c, wav, 'jfk.wav');
    expect(sample.status).toBe(201);
    const sampleKey = `${PREFIX}/samples/${sample.body.id}.wav`;
    expect(await s3.keys()).toContain(sampleKey);
    expect((await s3.object(sampleKey)).equals(wav)).toBe(true);

    const preview = await c.post('/voice/previews', {
      type: 'clone',
      model: 'flite',
      language: 'en',
      preview_text: 'A voice kept in a bucket.',
      file_id: sample.body.id,
    });
    expect(preview.status).toBe(201);
    const previewKey = `${PREFIX}/voice-previews/${preview.body.id}.mp3`;
    const storedPreview = await s3.object(previewKey);
    const served = await fetchBytes(preview.body.audio_url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('audio/mpeg');
    expect(served.headers.get('accept-ranges')).toBe('bytes');
    expect(Number(served.headers.get('content-length'))).toBe(storedPreview.length);
    expect(served.body.equals(storedPreview)).toBe(true);
    // A player's range request: 206 with the asked bytes.
    const part = await fetchBytes(preview.body.audio_url, { range: 'bytes=10-109' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-109/${storedPreview.length}`);
    expect(part.body.equals(storedPreview.subarray(10, 110))).toBe(true);
    const tail = await fetchBytes(preview.body.audio_url, { range: 'bytes=-64' });
    expect(tail.status).toBe(206);
    expect(tail.body.equals(storedPreview.subarray(storedPreview.length - 64))).toBe(true);
    // A range past the end is answered whole.
    const past = await fetchBytes(preview.body.audio_url, { range: `bytes=${storedPreview.length}-` });
    expect(past.status).toBe(200);
    expect(past.body.equals(storedPreview)).toBe(true);

    const library = await fetchBytes('/voice/preview/voice_flite.slt.mp3');
    expect(library.status).toBe(200);
    const libraryKey = (await s3.keys()).find((k) => k.startsWith(`${PREFIX}/previews/`));
    expect(libraryKey).toBeDefined();
    expect(library.body.equals(await s3.object(libraryKey!))).toBe(true);

    const created = await c.post('/tts/jobs', {
      text: longText(4, 'a job kept in a bucket'),
      voice_id: 'voice_espeak.en-us',
      format: 'mp3',
    });
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    expect(await eventually(async () => (await c.get(`/tts/jobs/${id}`)).body.status === 'succeeded', 1200, 50)).toBe(true);
    const jobKey = `${PREFIX}/jobs/${id}`;
    const audio = await fetchBytes(`/tts/jobs/${id}/audio`);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/mpeg');
    expect(audio.body.length).toBeGreaterThan(1000);
    expect(audio.body.equals(await s3.object(jobKey))).toBe(true);

    // Another account reaches none of it.
    const other = new Client(t.url);
    await other.anonymous();
    expect((await fetchBytes(`/tts/jobs/${id}/audio`, {}, other.sid!)).status).toBe(404);
    expect((await fetchBytes(preview.body.audio_url, {}, other.sid!)).status).toBe(404);

    // Nothing of it is on the local disk.
    expect(await filesUnder(path.join(t.dataDir, 'files'))).toEqual([]);
    expect(await filesUnder(path.join(t.dataDir, 'tmp'))).toEqual([]);
  });

  it('serves through a second server process what the first one stored: one bucket behind a load balancer', async () => {
    const peer = await startPeer(t);
    try {
      expect(peer.ctx.storage.kind).toBe('s3');
      const created = await c.post('/tts/jobs', {
        text: 'Made here, fetched there.',
        voice_id: 'voice_espeak.en-us',
        format: 'mp3',
      });
      const id = created.body.id as string;
      expect(await eventually(async () => (await c.get(`/tts/jobs/${id}`)).body.status === 'succeeded', 1200, 50)).toBe(true);
      const here = await fetchBytes(`/tts/jobs/${id}/audio`);
      const there = await fetch(new URL(`/tts/jobs/${id}/audio`, peer.url), { headers: { 'x-sid': c.sid! } });
      expect(there.status).toBe(200);
      expect(Buffer.from(await there.arrayBuffer()).equals(here.body)).toBe(true);
      expect(await filesUnder(path.join(t.dataDir, 'files'))).toEqual([]);
    } finally {
      await peer.close();
    }
  });

  it('sweeps expired jobs and stray job files out of the bucket', async () => {
    const created = await c.post('/tts/jobs', {
      text: longText(2, 'a job that expires'),
      voice_id: 'voice_espeak.en-us',
      format: 'mp3',
    });
    const id = created.body.id as string;
    expect(await eventually(async () => (await c.get(`/tts/jobs/${id}`)).body.status === 'succeeded', 1200, 50)).toBe(true);
    await t.ctx.storage.put('jobs/job_stray', Buffer.from('nobody refers to me'));
    expect(await s3.keys()).toEqual(expect.arrayContaining([`${PREFIX}/jobs/${id}`, `${PREFIX}/jobs/job_stray`]));
    await t.ctx.jobs.sweep(new Date(Date.now() + 2 * 3600_000));
    const left = await s3.keys();
    expect(left.filter((k) => k.startsWith(`${PREFIX}/jobs/`))).toEqual([]);
    expect((await fetchBytes(`/tts/jobs/${id}/audio`)).status).toBe(404);
  });

  it('streams a large file to a client that reads it, and stops reading the bucket when the client leaves', async () => {
    const created = await c.post('/tts/jobs', { text: 'A short job.', voice_id: 'voice_espeak.en-us', format: 'mp3' });
    const id = created.body.id as string;
    expect(await eventually(async () => (await c.get(`/tts/jobs/${id}`)).body.status === 'succeeded', 1200, 50)).toBe(true);
    // A 25 MB file in the job's place: as large as the biggest sample.
    const big = Buffer.alloc(25 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = (i / 4096) % 251;
    await t.ctx.storage.putStream(
      `jobs/${id}`,
      Readable.from([big.subarray(0, 12 * 1024 * 1024), big.subarray(12 * 1024 * 1024)]),
    );
    const whole = await fetchBytes(`/tts/jobs/${id}/audio`);
    expect(whole.status).toBe(200);
    expect(Number(whole.headers.get('content-length'))).toBe(big.length);
    expect(whole.body.equals(big)).toBe(true);
    const head = await fetch(new URL(`/tts/jobs/${id}/audio`, t.url), { method: 'HEAD', headers: { 'x-sid': c.sid! } });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(big.length);

    // A client that reads one chunk and leaves: the server stops pulling from the bucket far short of the file.
    const before = s3.bytesSent();
    const controller = new AbortController();
    const res = await fetch(new URL(`/tts/jobs/${id}/audio`, t.url), { headers: { 'x-sid': c.sid! }, signal: controller.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    let last = -1;
    await eventually(
      async () => {
        const now = s3.bytesSent() - before;
        const still = now === last;
        last = now;
        return still;
      },
      100,
      100,
    );
    expect(last).toBeLessThan(big.length / 2);
    // And it still serves the next request.
    expect((await fetchBytes(`/tts/jobs/${id}/audio`, { range: 'bytes=0-3' })).body.equals(big.subarray(0, 4))).toBe(true);
  });

  it('refuses to start on a bucket that is not there, saying so, before it opens the database', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-s3-start-'));
    try {
      const config = loadConfig({
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        S3_URL: s3.url.replace(s3.bucket, 'missing-bucket'),
        ...(dialect === 'postgres' ? { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' } : {}),
      });
      await expect(buildApp(config)).rejects.toThrow(/bucket "missing-bucket", has no such bucket/);
      expect(await fs.readdir(dataDir)).toEqual([]);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('answers INTERNAL, not a hang or a crash, when the bucket server is gone', async () => {
    const created = await c.post('/tts/jobs', { text: 'Soon unreachable.', voice_id: 'voice_espeak.en-us', format: 'mp3' });
    const id = created.body.id as string;
    expect(await eventually(async () => (await c.get(`/tts/jobs/${id}`)).body.status === 'succeeded', 1200, 50)).toBe(true);
    await s3.close();
    const res = await c.get(`/tts/jobs/${id}/audio`);
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ code: 'INTERNAL', request_id: expect.stringMatching(/^req_/) });
    await expect(t.ctx.storage.check()).rejects.toThrow(/cannot be reached/);
    // The rest of the API does not depend on the bucket.
    expect((await c.get('/accounts/me')).status).toBe(200);
  });
});

/** The same audio routes on the local folder: ranges and HEAD behave alike. */
describe.each(DIALECTS)('stored audio from the local folder (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves a whole file, a range, a suffix, HEAD, and the whole file for a range past its end', async () => {
    expect(t.ctx.storage.kind).toBe('local');
    const get = async (headers: Record<string, string> = {}, method = 'GET') => {
      const res = await fetch(new URL('/voice/preview/voice_flite.slt.mp3', t.url), { method, headers });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    };
    const whole = await get();
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(Number(whole.headers.get('content-length'))).toBe(whole.body.length);
    const stored = await t.ctx.storage.get((await t.ctx.storage.list('previews'))[0]!);
    expect(stored?.equals(whole.body)).toBe(true);
    const part = await get({ range: 'bytes=0-99' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-99/${whole.body.length}`);
    expect(part.body.equals(whole.body.subarray(0, 100))).toBe(true);
    const tail = await get({ range: 'bytes=-10' });
    expect(tail.body.equals(whole.body.subarray(whole.body.length - 10))).toBe(true);
    const head = await get({}, 'HEAD');
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(whole.body.length);
    expect(head.body.length).toBe(0);
    for (const ignored of [`bytes=${whole.body.length}-`, 'bytes=0-1,5-6', 'pages=1-2', 'bytes=9-1']) {
      const res = await get({ range: ignored });
      expect(res.status, ignored).toBe(200);
      expect(res.body.equals(whole.body), ignored).toBe(true);
    }
    expect((await get({ range: 'bytes=0-0' })).body.length).toBe(1);
  });
});
