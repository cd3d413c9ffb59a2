/**
 * Subtitles from timings: cues that end at sentence ends, lines of at most about 42 characters and at most two
 * lines a cue (the broadcasters' guidelines: BBC, Netflix), never longer than 7 s on screen. SubRip (`srt`) and
 * WebVTT (`vtt`, with a timestamp tag before each word after the first, for karaoke-style players).
 */
import type { Timings, TimedWord } from './timings.ts';

export type SubtitleFormat = 'srt' | 'vtt';
export const SUBTITLE_FORMATS: readonly SubtitleFormat[] = ['srt', 'vtt'];

/** Characters a subtitle line holds. */
export const LINE_CHARS = 42;
const MAX_LINES = 2;
const MAX_CUE_SEC = 7;

/** A word of a cue: when it starts, and its text with the punctuation that follows it. */
export interface CueWord {
  start: number;
  end: number;
  text: string;
}

export interface Cue {
  start: number;
  end: number;
  lines: { words: CueWord[]; text: string }[];
}

const SENTENCE_END = /[.!?。！？…]["'”’)\]]*$/u;
/** Scripts written without spaces between words: their words join without one. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\u3000-\u303f\uff00-\uffef]/u;

/** The word as the text wrote it, with the punctuation that follows it up to the next word. */
function wordText(chars: readonly string[], word: TimedWord, next: TimedWord | undefined): string {
  const end = next ? next.charStart : chars.length;
  return chars.slice(word.charStart, end).join('').replace(/\s+/g, ' ').trim();
}

const joined = (a: string, b: string): string =>
  a === '' ? b : UNSPACED.test(a.at(-1)!) && UNSPACED.test(b[0] ?? '') ? a + b : `${a} ${b}`;

/** Splits the words into cues: a new cue at a sentence's end, when two lines are full, or when 7 s have passed. */
export function cues(t: Timings): Cue[] {
  const chars = t.alignment.characters;
  const words = t.words.filter((w) => w.end > w.start || w.charEnd > w.charStart);
  const out: Cue[] = [];
  let cue: Cue | null = null;
  words.forEach((word, i) => {
    const text = wordText(chars, word, words[i + 1]);
    if (text === '') return;
    const item: CueWord = { start: word.start, end: word.end, text };
    // Too long on screen with this word: it opens the next cue.
    if (cue && word.end - cue.start > MAX_CUE_SEC) cue = null;
    if (cue) {
      const line = cue.lines.at(-1)!;
      if (joined(line.text, text).length <= LINE_CHARS) {
        line.text = joined(line.text, text);
        line.words.push(item);
      } else if (cue.lines.length < MAX_LINES) cue.lines.push({ words: [item], text });
      else cue = null;
    }
    if (!cue) {
      cue = { start: word.start, end: word.end, lines: [{ words: [item], text }] };
      out.push(cue);
    }
    cue.end = Math.max(cue.end, word.end);
    if (SENTENCE_END.test(text)) cue = null;
  });
  return out;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function clock(sec: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(sec * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

/** WebVTT forbids `-->` in a cue's text, and `<` and `&` start tags and entities. */
const vttEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function subtitles(t: Timings, format: SubtitleFormat): string {
  return formatCues(cues(t), format);
}

/** Cues as a SubRip or WebVTT file (cues made apart, such as each paragraph's of a book, joined in one). */
export function formatCues(list: readonly Cue[], format: SubtitleFormat): string {
  if (format === 'srt') {
    return list
      .map((c, i) => `${i + 1}\n${clock(c.start, ',')} --> ${clock(c.end, ',')}\n${c.lines.map((l) => l.text).join('\n')}\n`)
      .join('\n');
  }
  const body = list.map((c) => {
    // Each word after the cue's first is preceded by the time it starts: players colour the words as they come.
    const lines = c.lines.map((l, n) =>
      l.words
        .map((w, k) => ({ tagged: n === 0 && k === 0 ? vttEscape(w.text) : `<${clock(w.start, '.')}>${vttEscape(w.text)}`, w }))
        .reduce((a, { tagged, w }) => (a === '' ? tagged : joined(a, w.text) === a + w.text ? a + tagged : `${a} ${tagged}`), ''),
    );
    return `${clock(c.start, '.')} --> ${clock(c.end, '.')}\n${lines.join('\n')}\n`;
  });
  return `WEBVTT\n\n${body.join('\n')}`;
}
