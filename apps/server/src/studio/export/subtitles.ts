/**
 * Subtitles of a chapter or the book from the paragraphs' word timings (seconds from the start of the paragraph's
 * audio), each paragraph's words moved to where the paragraph sits. Cues are cut by the speech package's rules
 * (lines of about 42 characters, two lines, 7 s at most, a new cue at a sentence's end) within each paragraph, so no
 * cue runs over a pause into the next speaker's words; times are held inside the paragraph's audio.
 */
import { cues, formatCues, type Cue, type SubtitleFormat, type Timings } from '@polyvox/speech';
import { seconds, type PlacedParagraph, type Timeline } from './timeline.js';

/** A paragraph's words as the speech package's timings (its characters: the words' texts, spaced). */
function paragraphTimings(placed: PlacedParagraph): Timings {
  const offset = seconds(placed.start);
  const length = seconds(placed.samples);
  const at = (t: number) => offset + Math.min(length, Math.max(0, Number.isFinite(t) ? t : 0));
  const characters: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const words = placed.paragraph.words.map((w) => {
    const start = at(w.start);
    const end = Math.max(start, at(w.end));
    if (characters.length > 0) {
      characters.push(' ');
      starts.push(start);
      ends.push(start);
    }
    const charStart = characters.length;
    for (const c of w.text) {
      characters.push(c);
      starts.push(start);
      ends.push(end);
    }
    return { word: w.text, start, end, charStart, charEnd: characters.length };
  });
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
