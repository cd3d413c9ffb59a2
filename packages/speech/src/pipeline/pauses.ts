/**
 * The pause between two sentences. Each sentence is its own engine call, and engines leave different silences at the
 * edges of a call (eSpeak NG almost none, Flite and GnuSpeech a fifth of a second), so joined as they come the
 * sentences would run together on one engine and drift apart on another. Inside a file, each sentence's edge silence
 * is trimmed and the pause its ending calls for put in its place: longer after `.?!` than after `,;:`, longer still
 * at a paragraph (a line break), shorter at a faster speed. The first sentence's lead and the last one's tail stay as
 * the engine made them, as in a one-sentence file.
 */

/** How a sentence ends: on no punctuation (a cut inside a sentence), a clause's, a sentence's, or a paragraph. */
export type SentenceEnd = 'word' | 'clause' | 'sentence' | 'paragraph';

/**
 * Milliseconds of silence after each kind of ending at speed 1. Native eSpeak NG leaves about 290 ms between two
 * sentences of one call, 140 ms at a comma and 520 ms at a blank line; GnuSpeech 300 ms and 210 ms (measured by
 * `npx tsx bench/run.ts --only pauses`, which prints them beside these).
 */
export const PAUSE_MS: Readonly<Record<SentenceEnd, number>> = { word: 50, clause: 200, sentence: 340, paragraph: 680 };

const RANK: Readonly<Record<SentenceEnd, number>> = { word: 0, clause: 1, sentence: 2, paragraph: 3 };

/** The longer of two endings (a `</s>` on a sentence that ends on a comma is a sentence's end). */
export function strongerEnd(a: SentenceEnd, b: SentenceEnd): SentenceEnd {
  return RANK[a] >= RANK[b] ? a : b;
}

const CLOSERS = /[\s"'”’»)\]}」』）】》〉]+$/u;
const SENTENCE_MARKS = '.!?。！？…‼⁇⁈⁉';
const CLAUSE_MARKS = ',;:，；：、—–';

/** How a sentence ends, by its last punctuation mark (closing quotes and brackets looked through). */
export function endOf(sentence: string): SentenceEnd {
  const last = sentence.replace(CLOSERS, '').at(-1) ?? '';
  if (SENTENCE_MARKS.includes(last)) return 'sentence';
  if (CLAUSE_MARKS.includes(last)) return 'clause';
  return 'word';
}

/**
 * Each sentence's ending, for sentences split from `text` in order (each a slice of it): by its punctuation, and a
 * paragraph where a line break separates it from the next.
 */
export function sentenceEnds(text: string, sentences: readonly string[]): SentenceEnd[] {
  let at = 0;
  const found = sentences.map((s) => {
    const start = text.indexOf(s, at);
    if (start < 0) return undefined;
    at = start + s.length;
    return { start, end: at };
  });
  return sentences.map((s, i) => {
    const here = found[i];
    const next = found[i + 1];
    if (here && next && text.slice(here.end, next.start).includes('\n')) return 'paragraph';
    return endOf(s);
  });
}

/** The pause after an ending at `speed` (a faster voice pauses for less), in milliseconds. */
export function pauseMs(end: SentenceEnd, speed: number): number {
  return PAUSE_MS[end] / speed;
}

const FRAME_SEC = 0.01;
/** Frames of 10 ms under this share of the loudest (−40 dB) are silence. */
const SILENCE_RATIO = 0.01;
/** Sound kept beyond the last loud frame and before the first: a fade's start and a soft consonant's end. */
const MARGIN_SEC = 0.01;

/** The sound of a sentence without its edge silence, at the ends asked for: [from, to) in samples. */
export function soundBounds(
  samples: Float32Array,
  rate: number,
  edges: { lead: boolean; tail: boolean },
): { from: number; to: number } {
  const all = { from: 0, to: samples.length };
  if (!edges.lead && !edges.tail) return all;
  const frame = Math.max(1, Math.round(rate * FRAME_SEC));
  const frames = Math.floor(samples.length / frame);
  const rms = new Float64Array(frames);
  let loudest = 0;
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) sum += samples[i]! * samples[i]!;
    rms[f] = Math.sqrt(sum / frame);
    loudest = Math.max(loudest, rms[f]!);
  }
  // A sentence of silence (an engine's pause for a sentence of no words) is kept whole.
  if (loudest <= 1e-5) return all;
  const floor = loudest * SILENCE_RATIO;
  let first = 0;
  while (rms[first]! < floor) first++;
  let last = frames - 1;
  while (rms[last]! < floor) last--;
  const margin = Math.round(rate * MARGIN_SEC);
  return {
    from: edges.lead ? Math.max(0, first * frame - margin) : 0,
    to: edges.tail ? Math.min(samples.length, (last + 1) * frame + margin) : samples.length,
  };
}

/** How a sentence joins the others in a file (`chunks.ts` `joinOf`): which edges are trimmed, the pause, lead and gain. */
export interface JoinSpec {
  /** Trim the silence before the sound (every sentence but the first). */
  lead: boolean;
  /** Trim the silence after it (every sentence but the last). */
  tail: boolean;
  /** Silence put after it. */
  pauseMs: number;
  /** Silence put before it (markup). */
  leadMs: number;
  /** A marked-up sentence's volume, as a gain (1: as it is). */
  gain: number;
}

/** A sentence joined as `spec` says: its edge silence trimmed, its lead and pause around it; the words move with it. */
export function joinSentence<W extends { start: number; end: number }>(
  samples: Float32Array,
  rate: number,
  words: W[] | undefined,
  spec: JoinSpec,
): { samples: Float32Array; words: W[] | undefined } {
  const { from, to } = soundBounds(samples, rate, { lead: spec.lead, tail: spec.tail });
  const lead = Math.round((spec.leadMs * rate) / 1000);
  const pause = Math.round((spec.pauseMs * rate) / 1000);
  const gain = spec.gain;
  if (!lead && !pause && gain === 1 && from === 0 && to === samples.length) return { samples, words };
  const out = new Float32Array(lead + (to - from) + pause);
  for (let i = from; i < to; i++) out[lead + i - from] = Math.max(-1, Math.min(1, samples[i]! * gain));
  const shift = (lead - from) / rate;
  const end = (lead + to - from) / rate;
  const moved = (t: number) => Math.min(end, Math.max(lead / rate, t + shift));
  return {
    samples: out,
    words: shift || to < samples.length ? words?.map((w) => ({ ...w, start: moved(w.start), end: moved(w.end) })) : words,
  };
}
