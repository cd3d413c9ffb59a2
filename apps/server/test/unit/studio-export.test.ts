import { describe, expect, it } from 'vitest';
import { ffmetadata } from '../../src/studio/export/m4b.js';
import { attachment } from '../../src/studio/export/send.js';
import { exportSubtitles, timelineCues } from '../../src/studio/export/subtitles.js';
import { chaptersOf, timeline, EXPORT_RATE } from '../../src/studio/export/timeline.js';
import { fileName, zipEntries } from '../../src/studio/export/zip.js';
import type { SnapshotManifest } from '../../src/studio/snapshot.js';

const words = (text: string, from = 0) =>
  text.split(' ').map((w, i) => ({ text: w.replace(/[.,!?]/g, ''), start: from + i * 0.3, end: from + i * 0.3 + 0.25 }));

const paragraph = (id: string, text: string, audioMs: number, pauseMs: number) => ({
  id,
  text,
  speaker: 'Narrator',
  voice_id: 'voice_x',
  audio_key: `k/${id}.wav`,
  audio_ms: audioMs,
  sample_rate: 24000,
  pause_after_ms: pauseMs,
  words: words(text),
});

const manifest: SnapshotManifest = {
  project: {
    id: 'proj',
    name: 'name',
    title: 'Title; with = signs #1',
    author: 'A. Author',
    language: 'en',
    cover_key: null,
    cover_type: null,
  },
  chapters: [
    {
      id: 'c1',
      title: 'One/Two: "Start"',
      paragraphs: [paragraph('p1', 'Hello there. How are you today?', 2000, 500), paragraph('p2', 'Fine, thanks.', 1000, 250)],
    },
    { id: 'c2', title: 'Second', paragraphs: [paragraph('p3', 'The end of it all.', 1500, 0)] },
  ],
};

describe('studio export timeline', () => {
  it('places each paragraph after the ones before and their pauses, chapters from their paragraphs', () => {
    const t = timeline(manifest.chapters);
    expect(t.paragraphs.map((p) => [p.start, p.samples, p.pause])).toEqual([
      [0, 48000, 12000],
      [60000, 24000, 6000],
      [90000, 36000, 0],
    ]);
    expect(t.chapters.map((c) => [c.start, c.end])).toEqual([
      [0, 90000],
      [90000, 126000],
    ]);
    expect(t.total).toBe(126000);
    expect(EXPORT_RATE).toBe(24000);
  });

  it('selects one chapter, and answers NOT_FOUND for another id', () => {
    expect(chaptersOf(manifest, 'c2').map((c) => c.id)).toEqual(['c2']);
    expect(chaptersOf(manifest).length).toBe(2);
    expect(() => chaptersOf(manifest, 'nope')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });
});

describe('studio export M4B metadata', () => {
  it('escapes the tags and gives each chapter its start and end in ms', () => {
    const text = ffmetadata(manifest, timeline(manifest.chapters), {
      Label: '1',
      ContentProducer: 'P',
      ProduceID: 'aigc_1',
      ReservedCode1: 'x',
      ContentPropagator: '',
      PropagateID: '',
      ReservedCode2: '',
    });
    expect(text.startsWith(';FFMETADATA1\n')).toBe(true);
    expect(text).toContain('title=Title\\; with \\= signs \\#1\n');
    expect(text).toContain('artist=A. Author\n');
    expect(text).toMatch(/comment=AIGC\\=\{"Label":"1"/);
    expect(text).toContain('[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=3750\ntitle=One/Two: "Start"\n');
    expect(text).toContain('START=3750\nEND=5250\ntitle=Second\n');
  });
});

describe('studio export subtitles', () => {
  it('moves each paragraph’s words to its place, ends cues at sentence ends, in order and within the audio', () => {
    const t = timeline(manifest.chapters);
    const list = timelineCues(t);
    expect(list.map((c) => c.lines.map((l) => l.text).join(' '))).toEqual([
      'Hello there.',
      'How are you today?',
      'Fine, thanks.',
      'The end of it all.',
    ]);
    expect(list[2]!.start).toBeCloseTo(2.5, 5);
    expect(list[3]!.start).toBeCloseTo(3.75, 5);
    for (const [i, cue] of list.entries()) {
      expect(cue.end).toBeGreaterThanOrEqual(cue.start);
      expect(cue.end).toBeLessThanOrEqual(t.total / EXPORT_RATE);
      if (i > 0) expect(cue.start).toBeGreaterThanOrEqual(list[i - 1]!.end);
    }
    const srt = exportSubtitles(t, 'srt');
    expect(srt).toContain('3\n00:00:02,500 --> ');
    expect(exportSubtitles(timeline([manifest.chapters[1]!]), 'vtt')).toMatch(/^WEBVTT\n\n00:00:00\.000 --> /);
  });

  it('holds words timed past their paragraph’s audio inside it', () => {
    const late = {
      ...manifest.chapters[1]!,
      paragraphs: [{ ...manifest.chapters[1]!.paragraphs[0]!, words: words('The end of it all.', 5) }],
    };
    const list = timelineCues(timeline([late]));
    expect(Math.max(...list.map((c) => c.end))).toBeLessThanOrEqual(1.5);
  });
});

describe('studio export names', () => {
  it('makes file names safe and the zip’s entries in chapter order', () => {
    expect(fileName('a/b\\c:d*e?"f"<g>|h', 'x')).toBe('a b c d e f g h');
    expect(fileName('...', 'fallback')).toBe('fallback');
    expect(zipEntries(manifest, true)).toEqual([
      '01 One Two Start.mp3',
      '01 One Two Start.srt',
      '02 Second.mp3',
      '02 Second.srt',
      'Title; with = signs #1.m4b',
    ]);
    expect(attachment('第一章.mp3')).toBe(`attachment; filename="___.mp3"; filename*=UTF-8''${encodeURIComponent('第一章.mp3')}`);
  });
});
