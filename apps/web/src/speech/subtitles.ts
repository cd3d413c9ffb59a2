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
