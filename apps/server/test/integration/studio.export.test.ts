import fs from 'node:fs';
import os from 'node:os';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWavHeader } from '@polyvox/speech/formats';
import { registerAuth } from '../../src/http/auth.js';
import { acceptEmptyJson } from '../../src/http/body.js';
import { createServer } from '../../src/composition/server.js';
import { AppError } from '../../src/platform/errors.js';
import type { SnapshotManifest } from '../../src/studio/snapshot.js';
import { studioExportRoutes } from '../../src/studio/export/routes.js';
import { timeline } from '../../src/studio/export/timeline.js';
import { DIALECTS, type LogLine, type TestApp } from '../support/app.js';
import { Client } from '../support/client.js';
import { eventually, ffmpegChildren } from '../support/leave.js';
import { keyedApp } from '../support/sdk.js';
import { coverPng, cueTimes, probeFile, speakParagraphs } from '../support/studio-export.js';

const m4bFolders = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('polyvox-m4b-')).length;

describe.each(DIALECTS)('Studio export (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let owner: string;
  let side: ReturnType<typeof createServer>;
  let base: string;
  const logs: LogLine[] = [];
  const manifests = new Map<string, SnapshotManifest>();
  let book: SnapshotManifest;
  let total: number;

  beforeAll(async () => {
    const app = await keyedApp(dialect, 100, 'export');
    t = app.t;
    c = app.c;
    owner = (await c.get('/accounts/me')).body.id as string;
    const paragraphs = await speakParagraphs(t.ctx.storage, t.ctx.provenance.watermarkKey, 'studio-test', [
      'It was a dark and stormy night. The rain fell in torrents.',
      'Run, said Anna. We must reach the lighthouse before the tide comes in.',
      'Morning came slowly over the quiet harbour.',
      'The end of a small book, read by a machine.',
    ]);
    await t.ctx.storage.put('studio-test/cover.png', await coverPng());
    book = {
      project: {
        id: 'proj_1',
        name: 'Storm book',
        title: 'The Storm: A Tale',
        author: 'Jane Writer',
        language: 'en',
        cover_key: 'studio-test/cover.png',
        cover_type: 'image/png',
      },
      chapters: [
        { id: 'chap_1', title: 'The Storm', paragraphs: paragraphs.slice(0, 2) },
        { id: 'chap_2', title: 'Morning', paragraphs: paragraphs.slice(2) },
      ],
    };
    total = timeline(book.chapters).total / 24000;
    // A long one (the same paragraphs many times): long enough to leave while ffmpeg encodes it.
    const long = { ...book, chapters: [{ id: 'chap_l', title: 'Long', paragraphs: Array(150).fill(paragraphs).flat() }] };
    manifests.set('snap_1', book);
    manifests.set('snap_long', long);
    // The routes as the composition registers them, with an injected loader (the snapshots' store is another module's).
    side = createServer(
      t.ctx.config,
      new (await import('node:stream')).Writable({
        write(chunk: Buffer, _e, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) logs.push(JSON.parse(line) as LogLine);
          done();
        },
      }),
    );
    registerAuth(side, t.ctx.sessions, t.ctx.keyGate, t.ctx.operators);
    acceptEmptyJson(side);
    await side.register(
      studioExportRoutes({
        storage: t.ctx.storage,
        provenance: t.ctx.provenance,
        speech: t.ctx.speech,
        loadSnapshot: async (accountId, projectId, snapshotId) => {
          const m = manifests.get(snapshotId);
          if (!m || accountId !== owner || projectId !== m.project.id) throw new AppError('NOT_FOUND');
          return m;
        },
      }),
    );
    await side.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(side.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    // fetch keeps its connections for the next request; the server would wait out their keep-alive (72 s).
    side?.server.closeAllConnections();
    await side?.close();
    await t?.close();
  });

  const download = async (path: string, init: RequestInit = {}, sid = c.sid!) => {
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: { 'x-sid': sid, 'content-type': 'application/json', ...init.headers },
    });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const verify = async (bytes: Buffer, name: string) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), name);
    return (await c.post('/provenance/verify', form)).body;
  };
  const P = '/v1/studio/projects/proj_1';

  it('streams the book as mp3 (ElevenLabs route): its length is the paragraphs and pauses, labelled and watermarked, free', async () => {
    const { res, bytes } = await download(`${P}/snapshots/snap_1/stream`, { method: 'POST', body: '{"convert_to_mpeg":true}' });
    expect(res.status, bytes.toString().slice(0, 200)).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(res.headers.get('content-disposition')).toContain('The Storm');
    const probe = await probeFile(bytes, 'mp3');
    expect(Math.abs(Number(probe.format.duration) - total)).toBeLessThan(0.15);
    const check = await verify(bytes, 'book.mp3');
    // Under 32 MB: made whole, so signed as every whole file is, its manifest naming the export's record.
    expect(check).toMatchObject({
      ai_generated: true,
      aigc_valid: true,
      watermark: { detected: true },
      c2pa: { present: true, valid: true },
    });
    expect(check.record).toMatchObject({ type: 'studio-export' });
    // The export's own watermark, one pattern over the joined paragraphs.
    const wav = await download(`${P}/snapshots/snap_1/stream`, { method: 'POST', body: '{}' });
    expect(wav.res.headers.get('content-type')).toBe('audio/wav');
    expect(await verify(wav.bytes, 'book.wav')).toMatchObject({
      aigc_valid: true,
      watermark: { detected: true },
      c2pa: { present: true, valid: true },
    });
  });
  it('streams one chapter as WAV (chapter snapshot route): exactly its samples, its INFO label and C2PA manifest valid', async () => {
    const { res, bytes } = await download(`${P}/chapters/chap_2/snapshots/snap_1/stream`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    const info = parseWavHeader(bytes)!;
    expect(info.sampleRate).toBe(24000);
    // Its data chunk holds exactly the chapter's samples (its C2PA chunk follows it).
    expect(bytes.readUInt32LE(info.dataSizeOffset) / 2).toBe(timeline([book.chapters[1]!]).total);
    expect(bytes.length).toBeGreaterThan(info.dataOffset + bytes.readUInt32LE(info.dataSizeOffset));
    expect(await verify(bytes, 'chapter.wav')).toMatchObject({
      ai_generated: true,
      aigc_valid: true,
      watermark: { detected: true },
      c2pa: { present: true, valid: true },
    });
  });

  it('exports an M4B with chapter marks, title, author, cover and the AIGC label, as long as the book', async () => {
    const { res, bytes } = await download(`${P}/snapshots/snap_1/export?format=m4b`);
    expect(res.status, bytes.toString().slice(0, 200)).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mp4');
    const probe = await probeFile(bytes, 'm4b');
    expect(Math.abs(Number(probe.format.duration) - total)).toBeLessThan(0.15);
    expect(probe.format.tags).toMatchObject({ title: 'The Storm: A Tale', artist: 'Jane Writer' });
    expect(probe.format.tags?.comment).toMatch(/^AIGC=\{.*"Label"/);
    expect(probe.streams.find((s) => s.codec_type === 'audio')?.codec_name).toBe('aac');
    expect(probe.streams.find((s) => s.codec_type === 'video')).toMatchObject({
      codec_name: 'png',
      disposition: { attached_pic: 1 },
    });
    const placed = timeline(book.chapters);
    expect(probe.chapters.map((ch) => ch.tags?.title)).toEqual(['The Storm', 'Morning']);
    expect(Number(probe.chapters[1]!.start_time)).toBeCloseTo(placed.chapters[1]!.start / 24000, 2);
    expect((await verify(bytes, 'book.m4b')).watermark.detected).toBe(true);
  });

  it('exports subtitles per chapter and for the book, in order and within the audio', async () => {
    const srt = await download(`${P}/snapshots/snap_1/export?format=srt`);
    const vtt = await download(`${P}/snapshots/snap_1/export?format=vtt&chapter_id=chap_2`);
    expect(srt.res.headers.get('content-type')).toContain('application/x-subrip');
    expect(vtt.bytes.toString()).toMatch(/^WEBVTT\n/);
    const chapter2 = timeline([book.chapters[1]!]).total / 24000;
    for (const [text, length, least] of [
      [srt.bytes.toString(), total, 5],
      [vtt.bytes.toString(), chapter2, 2],
    ] as const) {
      const times = cueTimes(text);
      expect(times.length).toBeGreaterThanOrEqual(least);
      times.forEach((cue, i) => {
        expect(cue.end).toBeGreaterThanOrEqual(cue.start);
        expect(cue.end).toBeLessThanOrEqual(length);
        if (i > 0) expect(cue.start).toBeGreaterThanOrEqual(times[i - 1]!.end);
      });
    }
    // Cues end at the text's sentence ends, with its punctuation.
    expect(srt.bytes.toString()).toContain('stormy night.');
    expect(srt.bytes.toString()).toContain('lighthouse');
    // The second chapter's first words come after the first chapter's audio in the book's file.
    const firstOfTwo = cueTimes(srt.bytes.toString()).find(
      (_, i, all) => i > 0 && all[i]!.start >= timeline([book.chapters[0]!]).total / 24000,
    );
    expect(firstOfTwo).toBeDefined();
  });

  it('zips the chapters (mp3 and SRT each, the M4B when asked), each mp3 labelled and signed', async () => {
    const { res, bytes } = await download(`${P}/snapshots/snap_1/archive`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const zip = await JSZip.loadAsync(bytes);
    expect(Object.keys(zip.files)).toEqual(['01 The Storm.mp3', '01 The Storm.srt', '02 Morning.mp3', '02 Morning.srt']);
    const mp3 = await zip.file('02 Morning.mp3')!.async('nodebuffer');
    expect(
      Math.abs(Number((await probeFile(mp3, 'mp3')).format.duration) - timeline([book.chapters[1]!]).total / 24000),
    ).toBeLessThan(0.15);
    expect(await verify(mp3, 'morning.mp3')).toMatchObject({ aigc_valid: true, c2pa: { present: true, valid: true } });
    const withBook = await download(`${P}/snapshots/snap_1/export?format=zip&m4b=true`);
    expect(Object.keys((await JSZip.loadAsync(withBook.bytes)).files)).toContain('The Storm A Tale.m4b');
  });

  it("answers another account's snapshot, a missing chapter and a bad format in the request's language", async () => {
    const other = new Client(t.url);
    await other.anonymous();
    const theirs = await download(`${P}/snapshots/snap_1/export?format=mp3&lang=zh-CN`, {}, other.sid!);
    expect(theirs.res.status).toBe(404);
    expect(JSON.parse(theirs.bytes.toString()).error).toMatchObject({ code: 'NOT_FOUND' });
    expect(JSON.parse(theirs.bytes.toString()).error.message).toMatch(/[\u4e00-\u9fff]/);
    const chapter = await download(`${P}/snapshots/snap_1/export?format=mp3&chapter_id=nope`);
    expect(chapter.res.status).toBe(404);
    const bad = await download(`${P}/snapshots/snap_1/export?format=flac`);
    expect(bad.res.status).toBe(400);
    expect(JSON.parse(bad.bytes.toString()).error.code).toBe('VALIDATION_FAILED');
    const anon = await fetch(`${base}${P}/snapshots/snap_1/export`);
    expect(anon.status).toBe(401);
  });

  it('a client that leaves mid-M4B leaves no ffmpeg, no temporary folder and no error', async () => {
    const folders = m4bFolders();
    const controller = new AbortController();
    const req = fetch(`${base}${P}/snapshots/snap_long/export?format=m4b`, {
      headers: { 'x-sid': c.sid! },
      signal: controller.signal,
    });
    req.catch(() => {});
    expect(await eventually(() => ffmpegChildren() > 0, 600)).toBe(true);
    controller.abort();
    expect(await eventually(() => ffmpegChildren() === 0 && m4bFolders() <= folders, 600)).toBe(true);
    expect(logs.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('a client that leaves while a signed mp3 is made whole stops its making, with no error and no record', async () => {
    const marks = () =>
      t.ctx.db.kysely.selectFrom('content_marks').select('produce_id').where('record_type', '=', 'studio-export').execute();
    const before = (await marks()).length;
    const leftLines = () => logs.filter((l) => (l as { msg?: string }).msg === 'client left before the response').length;
    const left = leftLines();
    const controller = new AbortController();
    // The long book's mp3 is under the signing limit: it is gathered whole before anything is sent.
    const req = fetch(`${base}${P}/snapshots/snap_long/export?format=mp3`, {
      headers: { 'x-sid': c.sid! },
      signal: controller.signal,
    });
    req.catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    expect(await eventually(() => leftLines() > left, 600)).toBe(true);
    expect(logs.filter((l) => l.level >= 50)).toEqual([]);
    // Nothing was made whole, so nothing was labelled: no provenance record for it.
    expect((await marks()).length).toBe(before);
  });
});
