/**
 * Subtitles of a chapter or the book from the paragraphs' word timings (seconds from the start of the paragraph's
 * audio), each paragraph's words moved to where the paragraph sits. Cues are cut by the speech package's rules
 * (lines of about 42 characters, two lines, 7 s at most, a new cue at a sentence's end) within each paragraph, so no
 * cue runs over a pause into the next speaker's words; times are held inside the paragraph's audio.
 */
import { cues, formatCues, type Cue, type SubtitleFormat, type TimedWord, type Timings } from '@polyvox/speech';
import { seconds, type PlacedParagraph, type Timeline } from './timeline.js';

/**
 * A paragraph's words as the speech package's timings. Its characters are the paragraph's text, each word found in it
 * in order (so a cue ends at the text's sentence ends, with its punctuation); a word the text does not hold (an engine
 * that spoke a number as words) is placed after the last one found.
 */
function paragraphTimings(placed: PlacedParagraph): Timings {
  const offset = seconds(placed.start);
  const length = seconds(placed.samples);
  const at = (t: number) => offset + Math.min(length, Math.max(0, Number.isFinite(t) ? t : 0));
  const text = placed.paragraph.text;
  const lower = text.toLowerCase();
  const characters = Array.from(text);
  const starts: number[] = characters.map(() => offset);
  const ends: number[] = characters.map(() => offset);
  let from = 0;
  const words: TimedWord[] = [];
  for (const w of placed.paragraph.words) {
    const start = at(w.start);
    const end = Math.max(start, at(w.end));
    const found = w.text.trim() === '' ? -1 : lower.indexOf(w.text.trim().toLowerCase(), from);
    let charStart: number;
    let charEnd: number;
    if (found >= 0) {
      charStart = Array.from(text.slice(0, found)).length;
      charEnd = charStart + Array.from(w.text.trim()).length;
      from = found + w.text.trim().length;
    } else {
      // Not in the text: its own characters after the text's, so the cue still shows the word.
      characters.push(' ', ...Array.from(w.text));
      starts.push(start, ...Array.from(w.text, () => start));
      ends.push(start, ...Array.from(w.text, () => end));
      charStart = characters.length - Array.from(w.text).length;
      charEnd = characters.length;
    }
    for (let i = charStart; i < charEnd; i++) {
      starts[i] = start;
      ends[i] = end;
    }
    words.push({ word: w.text, start, end, charStart, charEnd });
  }
  words.sort((a, b) => a.charStart - b.charStart);
  const alignment = { characters, character_start_times_seconds: starts, character_end_times_seconds: ends };
  return { words, alignment, normalizedAlignment: alignment, durationSec: offset + length };
}

/** The timeline's cues, paragraph after paragraph, in time order. */
export function timelineCues(placed: Timeline): Cue[] {
  const out: Cue[] = [];
  let last = 0;
  for (const p of placed.paragraphs) {
    for (const cue of cues(paragraphTimings(p))) {
      // Word timings that overlap across a paragraph's edge never run a cue back in time.
      const start = Math.max(cue.start, last);
      out.push({ ...cue, start, end: Math.max(start, cue.end) });
      last = Math.max(start, cue.end);
    }
  }
  return out;
}

export function exportSubtitles(placed: Timeline, format: SubtitleFormat): string {
  return formatCues(timelineCues(placed), format);
}
