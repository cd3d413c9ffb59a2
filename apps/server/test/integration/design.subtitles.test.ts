/**
 * A design preview's subtitles: every preview of a voice that can be timed keeps its timings beside its audio, so the
 * console lights each word as the preview plays; WebVTT and SubRip for its owner only, the same price as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { decodedSeconds } from '../support/audio.js';

const TEXT = 'Hello there, my friend. This voice was made from a few words of description.';

/** WebVTT cues as {start, end, text}, the word tags taken out. */
function parseVtt(vtt: string): { start: number; end: number; text: string }[] {
  const sec = (s: string) => {
    const [h, m, rest] = s.split(':');
    return Number(h) * 3600 + Number(m) * 60 + Number(rest);
  };
  return vtt
    .replace(/\r\n/g, '\n')
    .trim()
    .split(/\n\n+/)
    .slice(1)
    .map((block) => {
      const lines = block.split('\n');
      const at = lines.findIndex((l) => l.includes(' --> '));
      const [a, b] = lines[at]!.split(' --> ');
      return {
        start: sec(a!),
        end: sec(b!.split(' ')[0]!),
        text: lines
          .slice(at + 1)
          .join(' ')
          .replace(/<[^>]+>/g, ''),
      };
    });
}

describe.each(DIALECTS)("a design preview's subtitles (%s)", (dialect) => {
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

  it('times the previews of every model, by the engine’s own events or by the aligner, inside their audio', async () => {
    const body = {
      type: 'prompt',
      model: 'espeak-ng',
      models: ['espeak-ng', 'flite', 'gnuspeech'],
      language: 'en',
      preview_text: TEXT,
      prompt: 'a warm, calm female voice',
    };
    const estimate = await c.post('/voice/previews/estimate', body);
    expect(estimate.status).toBe(200);
    const res = await c.post('/voice/previews', body);
    expect(res.status).toBe(201);
    // Timings are free: the charge is the estimate made before.
    expect(res.body.items.reduce((sum: number, i: { credits: number }) => sum + i.credits, 0)).toBe(estimate.body.credits);
    for (const item of res.body.items as { id: string; model: string }[]) {
      const vtt = await c.get<string>(`/voice/previews/${item.id}/subtitles`);
      expect(vtt.status, item.model).toBe(200);
      expect(vtt.headers.get('content-type')).toMatch(/^text\/vtt/);
      expect(vtt.body.startsWith('WEBVTT')).toBe(true);
      const audio = await fetch(`${t.url}/voice/previews/${item.id}/audio`, { headers: { 'x-sid': c.sid! } });
      const seconds = await decodedSeconds(Buffer.from(await audio.arrayBuffer()));
      const list = parseVtt(vtt.body);
      expect(list.map((q) => q.text).join(' '), item.model).toBe(TEXT);
      let last = 0;
      for (const q of list) {
        expect(q.start, item.model).toBeGreaterThanOrEqual(last - 1e-3);
        expect(q.end, item.model).toBeGreaterThan(q.start);
        expect(q.end, item.model).toBeLessThanOrEqual(seconds + 0.05);
        last = q.end;
      }
      const srt = await c.get<string>(`/voice/previews/${item.id}/subtitles?format=srt`);
      expect(srt.status).toBe(200);
      expect(srt.headers.get('content-type')).toMatch(/^application\/x-subrip/);
      expect(srt.headers.get('content-disposition')).toContain(`${item.id}.srt`);
    }
    // A hang guard: three engines and two alignments on a loaded two-core machine.
  }, 300_000);

  it('answers only the preview’s owner, refuses a format it does not know and an id that is not a preview', async () => {
    const res = await c.post('/voice/previews', {
      type: 'prompt',
      model: 'espeak-ng',
      language: 'en',
      preview_text: TEXT,
      prompt: 'a deep male voice',
    });
    expect(res.status).toBe(201);
    const other = new Client(t.url);
    await other.anonymous();
    const stranger = await other.get(`/voice/previews/${res.body.id}/subtitles`);
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe('NOT_FOUND');
    const anonymous = await new Client(t.url).get(`/voice/previews/${res.body.id}/subtitles`);
    expect(anonymous.status).toBe(401);
    const format = await c.get(`/voice/previews/${res.body.id}/subtitles?format=ass`);
    expect(format.status).toBe(400);
    expect(format.body.error.code).toBe('VALIDATION_FAILED');
    for (const id of ['prv_nothing', '__proto__', 'constructor', encodeURIComponent('../jobs/x')]) {
      const missing = await c.get(`/voice/previews/${id}/subtitles`);
      expect(missing.status, id).toBe(404);
    }
    const list = await c.get(`/voice/previews/${res.body.id}/subtitles?format=vtt&format=srt`);
    expect(list.status).toBe(400);
  });
});
