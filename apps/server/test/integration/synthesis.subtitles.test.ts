/** A finished job's subtitles: SubRip and WebVTT that ffmpeg reads, cues that follow the speech, only for the job's owner. */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FFMPEG } from '@polyvox/speech';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';
import { eventually } from '../support/leave.js';

const TEXT =
  'The quick brown fox, who was tired after a long day in the fields, went home. Then it slept for three hours. ' +
  'In the morning it woke up, ate a large breakfast of berries and bread, and went out again to look for its friends.';

/** ffmpeg's reading of a subtitle file, written back as SubRip: proof an independent parser takes it. */
async function ffmpegSrt(text: string, ext: 'srt' | 'vtt'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-subs-'));
  try {
    await fs.writeFile(path.join(dir, `in.${ext}`), text);
    await promisify(execFile)(FFMPEG, ['-v', 'error', '-i', path.join(dir, `in.${ext}`), path.join(dir, 'out.srt')]);
    return await fs.readFile(path.join(dir, 'out.srt'), 'utf8');
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** SubRip cues as {start, end, text} in seconds. */
function parseSrt(srt: string): { start: number; end: number; text: string }[] {
  const sec = (s: string) => {
    const [h, m, rest] = s.split(':');
    return Number(h) * 3600 + Number(m) * 60 + Number(rest!.replace(',', '.'));
  };
  return srt
    .replace(/\r\n/g, '\n')
    .trim()
    .split(/\n\n+/)
    .map((block) => {
      const lines = block.split('\n');
      const [a, b] = lines[1]!.split(' --> ');
      return { start: sec(a!), end: sec(b!), text: lines.slice(2).join(' ') };
    });
}

describe.each(DIALECTS)("a finished job's subtitles (%s)", (dialect) => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1' } });
    c = new Client(t.url);
    await c.anonymous();
  });
  afterAll(async () => {
    await t.close();
  });

  const finished = async (client: Client, body: object) => {
    const created = (await client.post('/tts/jobs', body)).body as { id: string };
    expect(
      await eventually(async () => (await client.get(`/tts/jobs/${created.id}`)).body.status === 'succeeded', 1200, 50),
    ).toBe(true);
    return created.id;
  };

  it('answers SubRip and WebVTT whose cues cover the text in order, inside the audio, and that ffmpeg reads', async () => {
    const id = await finished(c, { text: TEXT, voice_id: 'voice_espeak.en-us', format: 'mp3' });
    const audio = await fetch(`${t.url}/tts/jobs/${id}/audio`, { headers: { 'x-sid': c.sid! } });
    const seconds = await decodedSeconds(Buffer.from(await audio.arrayBuffer()));

    const srt = await c.get<string>(`/tts/jobs/${id}/subtitles?format=srt`);
    expect(srt.status).toBe(200);
    expect(srt.headers.get('content-type')).toMatch(/^application\/x-subrip/);
    expect(srt.headers.get('content-disposition')).toContain(`${id}.srt`);
    const list = parseSrt(srt.body);
    expect(list.length).toBeGreaterThanOrEqual(3);
    expect(list.map((q) => q.text).join(' ')).toBe(TEXT);
    let last = 0;
    for (const q of list) {
      expect(q.start).toBeGreaterThanOrEqual(last);
      expect(q.end).toBeGreaterThan(q.start);
      expect(q.end).toBeLessThanOrEqual(seconds + 0.1);
      last = q.end;
    }
    // A sentence's end closes its cue; the next sentence starts after the pause.
    const home = list.findIndex((q) => q.text.endsWith('went home.'));
    expect(home).toBeGreaterThanOrEqual(0);
    expect(list[home + 1]!.text.startsWith('Then it slept')).toBe(true);
    expect(
      parseSrt(await ffmpegSrt(srt.body, 'srt'))
        .map((q) => q.text)
        .join(' '),
    ).toBe(TEXT);

    const vtt = await c.get<string>(`/tts/jobs/${id}/subtitles?format=vtt`);
    expect(vtt.headers.get('content-type')).toMatch(/^text\/vtt/);
    expect(vtt.body.startsWith('WEBVTT\n\n')).toBe(true);
    // Word timing tags, each inside its cue.
    expect(vtt.body).toMatch(/ <00:00:\d\d\.\d{3}>quick/);
    const viaVtt = parseSrt(await ffmpegSrt(vtt.body, 'vtt'));
    expect(viaVtt.map((q) => q.text.replace(/<[^>]+>/g, '')).join(' ')).toBe(TEXT);
  });

  it('refuses an unknown format, an unknown job and another account’s job', async () => {
    const id = await finished(c, { text: 'Hello there. How are you?', voice_id: 'voice_flite.slt', format: 'wav' });
    // Flite's voices are aligned against eSpeak NG's rendering: they have subtitles too.
    expect((await c.get<string>(`/tts/jobs/${id}/subtitles?format=vtt`)).status).toBe(200);
    expect((await c.get(`/tts/jobs/${id}/subtitles?format=ass`)).status).toBe(400);
    const other = new Client(t.url);
    await other.anonymous();
    const theirs = await other.get(`/tts/jobs/${id}/subtitles`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('NOT_FOUND');
    expect((await c.get('/tts/jobs/job_nope/subtitles')).status).toBe(404);
    // Input made to break it: a list where one format goes, a NUL, a prototype's name as the id.
    for (const query of ['format=srt&format=vtt', 'format=srt%00', 'format=__proto__', 'format=constructor'])
      expect((await c.get(`/tts/jobs/${id}/subtitles?${query}`)).status, query).toBe(400);
    for (const bad of ['__proto__', 'constructor']) expect((await c.get(`/tts/jobs/${bad}/subtitles`)).status, bad).toBe(404);
    // A NUL in the path is refused as the platform refuses it everywhere.
    const nul = await c.get('/tts/jobs/job%00x/subtitles');
    expect(nul.status).toBe(400);
    expect(nul.body.error.code).toBe('VALIDATION_FAILED');
    // …and in POST /tts's fields: a list for subtitles, a prototype key in the body.
    const listed = await c.post('/tts', { text: 'Hi.', voice_id: 'voice_espeak.en-us', timestamps: true, subtitles: ['srt'] });
    expect(listed.status).toBe(400);
    const proto = await fetch(`${t.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid! },
      body: '{"text":"Hi.","voice_id":"voice_espeak.en-us","timestamps":true,"__proto__":{"subtitles":"srt"}}',
    });
    // A prototype key is refused as everywhere, not read as a field.
    expect(proto.status).toBe(400);
    expect(((await proto.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
  });

  it('POST /tts with timestamps answers the file, its alignment, its words and, asked for, its subtitles, at the same price; streamed, lines of JSON', async () => {
    const text = 'Hello there, my friend. How are you today?';
    const plain = await c.post('/tts', { text, voice_id: 'voice_espeak.en-us', format: 'wav' });
    const res = await c.post('/tts', { text, voice_id: 'voice_espeak.en-us', format: 'wav', timestamps: true, subtitles: 'vtt' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-charged')).toBe(plain.headers.get('x-credits-charged'));
    const body = res.body as {
      audio_base64: string;
      duration_seconds: number;
      alignment: { characters: string[]; character_start_times_seconds: number[] };
      words: { word: string; start: number; end: number }[];
      subtitles: string;
    };
    const wav = Buffer.from(body.audio_base64, 'base64');
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(Math.abs((await decodedSeconds(wav)) - body.duration_seconds)).toBeLessThan(0.05);
    expect(body.alignment.characters.join('')).toBe(text);
    expect(body.words.map((w) => w.word)).toEqual(['Hello', 'there', 'my', 'friend', 'How', 'are', 'you', 'today']);
    for (const w of body.words) expect(w.end).toBeLessThanOrEqual(body.duration_seconds + 1e-3);
    expect(body.subtitles.startsWith('WEBVTT')).toBe(true);
    expect(body.subtitles).toContain('How <');

    // A stream with timestamps: lines of JSON as the audio is made, the characters with the audio they time.
    const streamed = await fetch(`${t.url}/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sid': c.sid! },
      body: JSON.stringify({ text, voice_id: 'voice_espeak.en-us', format: 'mp3', stream: true, timestamps: true }),
    });
    expect(streamed.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(streamed.headers.get('x-credits-charged')).toBe(plain.headers.get('x-credits-charged'));
    const lines = (await streamed.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { audio_base64: string; alignment: { characters: string[] } | null });
    expect(lines.map((l) => l.alignment?.characters.join('') ?? '').join('')).toBe(text);
    const mp3 = Buffer.concat(lines.map((l) => Buffer.from(l.audio_base64, 'base64')));
    expect(mp3.subarray(0, 3).toString('latin1')).toBe('ID3');
    expect(await decodedSeconds(mp3)).toBeGreaterThan(1.5);

    // Subtitles without timestamps, or of a stream, are refused before any charge.
    for (const bad of [
      { text, voice_id: 'voice_espeak.en-us', stream: true, timestamps: true, subtitles: 'srt' },
      { text, voice_id: 'voice_espeak.en-us', subtitles: 'srt' },
      { text, voice_id: 'voice_espeak.en-us', timestamps: true, subtitles: 'ass' },
    ]) {
      const refused = await c.post('/tts', bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('removes the timings with the job’s audio when the job expires', async () => {
    const id = await finished(c, { text: 'A short job.', voice_id: 'voice_espeak.en-us', format: 'mp3' });
    const keys = async () => (await t.ctx.storage.list('jobs')).filter((k) => k.includes(id));
    expect((await keys()).sort()).toEqual([`jobs/${id}`, `jobs/${id}.timings.json`]);
    // The sweep keeps a live job's two files…
    await t.ctx.jobs.sweep();
    expect(await keys()).toHaveLength(2);
    // …and deletes both once the job is past its time.
    await t.ctx.jobs.sweep(new Date(Date.now() + 400 * 86_400_000));
    expect(await keys()).toEqual([]);
    expect((await c.get(`/tts/jobs/${id}/subtitles`)).status).toBe(404);
  });
});
