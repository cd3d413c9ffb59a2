/**
 * The server's WebVTT subtitles read back into cues and words, for the playground's transcript: each word with the
 * time it starts (the cue's start for its first word, its `<hh:mm:ss.mmm>` tag for the others).
 */
export interface TranscriptWord {
  start: number;
  text: string;
}

export interface TranscriptCue {
  start: number;
  end: number;
  words: TranscriptWord[];
}

const TIME = /(\d+):(\d\d):(\d\d)\.(\d{3})/;

function seconds(clock: string): number | null {
  const m = TIME.exec(clock);
  if (!m) return null;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000;
}

const unescape = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

export function parseVtt(text: string): TranscriptCue[] {
  const cues: TranscriptCue[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split(/\n\n+/)) {
    const lines = block.split('\n');
    const timing = lines.findIndex((l) => l.includes('-->'));
    if (timing < 0) continue;
    const [a, b] = lines[timing]!.split('-->');
    const start = seconds(a ?? '');
    const end = seconds(b ?? '');
    if (start === null || end === null) continue;
    const words: TranscriptWord[] = [];
    for (const line of lines.slice(timing + 1)) {
      // Split before each timestamp tag: the piece after a tag starts at its time.
      let at = words.length === 0 ? start : null;
      for (const part of line.split(/(<\d+:\d\d:\d\d\.\d{3}>)/)) {
        const tag = /^<(.*)>$/.exec(part);
        if (tag) {
          at = seconds(tag[1]!);
          continue;
        }
        const clean = unescape(part.replace(/<[^>]*>/g, '')).trim();
        if (!clean) continue;
        if (at === null && words.length > 0) words[words.length - 1]!.text += ` ${clean}`;
        else words.push({ start: at ?? start, text: clean });
        at = null;
      }
    }
    cues.push({ start, end, words });
  }
  return cues;
}

/** The word being spoken at `time`: [cue, word] indexes, or null between cues. */
export function wordAt(cues: readonly TranscriptCue[], time: number): [number, number] | null {
  for (let c = 0; c < cues.length; c++) {
    const cue = cues[c]!;
    if (time < cue.start || time >= cue.end) continue;
    let w = 0;
    while (w + 1 < cue.words.length && cue.words[w + 1]!.start <= time) w++;
    return [c, w];
  }
  return null;
}

/** ElevenLabs' character alignment, as the timed stream sends it. */
export interface CharacterTimes {
  characters: string[];
  character_start_times_seconds: number[];
  character_end_times_seconds: number[];
}

const HAN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const SPACE = /\s/u;
const LETTER = /[\p{L}\p{N}]/u;
const ENDS_SENTENCE = /[.!?。！？…]$/u;
const WORDS_PER_CUE = 14;

/** Han, kana and the punctuation written with them: no space goes between such a word and its neighbour. */
const CJK_EDGE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/** Whether a space goes between two words of the transcript: not where either side is Chinese or Japanese. */
export function spaceBetween(before: string, after: string): boolean {
  return !CJK_EDGE.test(before.at(-1) ?? '') && !CJK_EDGE.test(after.at(0) ?? '');
}

/**
 * The transcript of a timed stream: words are runs of letters (each Han or kana character a word of its own, and a
 * run of digits or Latin letters one beside them), the punctuation after a word goes with it, and a cue ends at a
 * sentence's end (or after 14 words). Markup (SSML's tags, ElevenLabs' `<break …/>`) is not spoken, so not shown.
 */
export function cuesFromAlignment(a: CharacterTimes): TranscriptCue[] {
  const words: { start: number; end: number; text: string }[] = [];
  let current: { start: number; end: number; text: string } | null = null;
  let inTag = false;
  a.characters.forEach((c, i) => {
    const start = a.character_start_times_seconds[i] ?? 0;
    const end = a.character_end_times_seconds[i] ?? start;
    // A tag: `<` before a letter, `/`, `!` or `?`, to its `>` (a lone `<`, as in "1 < 2", is text).
    if (inTag) {
      if (c === '>') inTag = false;
      return;
    }
    if (c === '<' && /^[\p{L}/!?]/u.test(a.characters[i + 1] ?? '')) {
      inTag = true;
      current = null;
      return;
    }
    if (SPACE.test(c)) {
      current = null;
      return;
    }
    const lettered = LETTER.test(c);
    // A new word: after a space, at a Han character, after one (digits after 年 are a word of their own), or at a
    // letter after punctuation.
    const last = current?.text.at(-1) ?? '';
    if (!current || (lettered && (HAN.test(c) || HAN.test(last) || (!LETTER.test(last) && last !== "'")))) {
      current = { start, end, text: c };
      words.push(current);
      return;
    }
    current.text += c;
    current.end = Math.max(current.end, end);
  });
  const cues: TranscriptCue[] = [];
  let cue: TranscriptCue | null = null;
  for (const w of words) {
    if (!cue) {
      cue = { start: w.start, end: w.end, words: [] };
      cues.push(cue);
    }
    cue.words.push({ start: w.start, text: w.text });
    cue.end = Math.max(cue.end, w.end);
    if (ENDS_SENTENCE.test(w.text) || cue.words.length >= WORDS_PER_CUE) cue = null;
  }
  // Each cue lasts until the next begins, so the lit word stays lit through the pause after it.
  for (let i = 0; i + 1 < cues.length; i++) cues[i]!.end = Math.max(cues[i]!.end, cues[i + 1]!.start);
  return cues;
}
