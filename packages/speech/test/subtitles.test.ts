/** Subtitles from timings: cues at sentence ends, lines of at most 42 characters, two lines a cue, WebVTT word tags. */
import { describe, expect, it } from 'vitest';
import { cues, LINE_CHARS, subtitles } from '../src/pipeline/subtitles.ts';
import type { Timings, TimedWord } from '../src/pipeline/timings.ts';

/**
 * Timings of `text` as a speaker at `perWord` seconds a word would give them, with a pause after each sentence; words
 * are runs of letters and digits (a Han character is a word of its own).
 */
function timed(text: string, perWord = 0.3): Timings {
  const characters = Array.from(text);
  const words: TimedWord[] = [];
  let at = 0.2;
  const re = /\p{Script=Han}|[\p{L}\p{N}'’-]+/gu;
  const cps = (s: string) => Array.from(s).length;
  for (const m of text.matchAll(re)) {
    const charStart = cps(text.slice(0, m.index));
    words.push({ word: m[0], start: at, end: at + perWord * 0.9, charStart, charEnd: charStart + cps(m[0]) });
    at += perWord;
    if (/^[\p{L}\p{N}'’-]*[.!?。！？]/u.test(text.slice(m.index + m[0].length))) at += 0.4;
  }
  const starts = characters.map(() => 0);
  const alignment = { characters, character_start_times_seconds: starts, character_end_times_seconds: starts };
  return { words, alignment, normalizedAlignment: alignment, durationSec: at + 0.2 };
}

const TEXT =
  'The quick brown fox, who was tired after a long day in the fields, went home. Then it slept. ' +
  'In the morning it woke up, ate a large breakfast of berries and bread, and went out again to look for its friends.';

describe('subtitles', () => {
  it('ends a cue at every sentence end and keeps lines within 42 characters, two lines a cue', () => {
    const list = cues(timed(TEXT));
    const texts = list.map((c) => c.lines.map((l) => l.text).join(' '));
    expect(texts.join(' ')).toBe(TEXT);
    // "home." and "slept." end their cues; no cue runs across a sentence's end.
    expect(texts.some((t) => t.endsWith('went home.'))).toBe(true);
    expect(texts).toContain('Then it slept.');
    for (const c of list) {
      expect(c.lines.length).toBeLessThanOrEqual(2);
      for (const l of c.lines) expect(l.text.length).toBeLessThanOrEqual(LINE_CHARS);
      expect(c.end).toBeGreaterThan(c.start);
    }
    for (let i = 1; i < list.length; i++) expect(list[i]!.start).toBeGreaterThanOrEqual(list[i - 1]!.end);
  });

  it('never keeps a cue on screen longer than 7 s', () => {
    const slow = timed('one two three four five six seven eight nine ten eleven twelve thirteen fourteen', 0.8);
    for (const c of cues(slow)) expect(c.end - c.start).toBeLessThanOrEqual(7);
    expect(cues(slow).length).toBeGreaterThan(1);
  });

  it('writes SubRip: numbered cues, hours:minutes:seconds,milliseconds', () => {
    const srt = subtitles(timed('Hello there. How are you today?'), 'srt');
    expect(srt).toBe('1\n00:00:00,200 --> 00:00:00,770\nHello there.\n\n2\n00:00:01,200 --> 00:00:02,370\nHow are you today?\n');
  });

  it('writes WebVTT with a timestamp tag before each word after the first, escaping markup', () => {
    const vtt = subtitles(timed('Fish & chips <now>. Good.'), 'vtt');
    expect(vtt.startsWith('WEBVTT\n\n')).toBe(true);
    expect(vtt).toContain('00:00:00.200 --> ');
    expect(vtt).toContain('Fish &amp; <00:00:00.500>chips &lt; <00:00:00.800>now&gt;.\n');
    expect(vtt).not.toMatch(/<now>/);
  });

  it('joins Chinese words without spaces and splits long lines', () => {
    const zh = '本内容由人工智能生成，请注意辨别。今天天气很好，我们一起去公园散步，然后回家吃晚饭，再看一会儿书。';
    const list = cues(timed(zh, 0.2));
    expect(list.map((c) => c.lines.map((l) => l.text).join('')).join('')).toBe(zh);
    expect(list[0]!.lines[0]!.text).toBe('本内容由人工智能生成，请注意辨别。');
    for (const c of list) for (const l of c.lines) expect(l.text).not.toContain(' ');
  });
});
